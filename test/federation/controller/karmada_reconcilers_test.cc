// The FederatedHPA and CronFederatedHPA reconcilers over the fake federation API: what they write,
// what they leave alone, and what status and Events tell the user.
#include <gtest/gtest.h>

#include "federation/api/hpa_type.h"
#include "federation/api/time.h"
#include "federation/controller/cache_transforms.h"
#include "federation/controller/cron_federated_hpa_reconciler.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/federated_hpa_reconciler.h"
#include "federation/controller/hpa_reconciler.h"
#include "test/federation/common/fake_time_source.h"
#include "test/federation/controller/fake_api.h"

namespace fedhpa::controller {
namespace {

using testing::FakeApi;
using testing::SnapshotLister;
using fedhpa::testing::FakeTimeSource;

const clusters::Resource kEvents{"", "v1", "events", true};

// Remembers the propagation policy of every delete.
class RecordingApi : public FakeApi {
 public:
  std::vector<std::string> deletePolicies;
  json remove(const clusters::Resource& resource, const std::string& ns, const std::string& name, const std::string& policy,
              const std::string& resourceVersion = "") override {
    deletePolicies.push_back(resource.resource + ":" + policy);
    return FakeApi::remove(resource, ns, name, policy, resourceVersion);
  }
};

json federatedHpa(const std::string& name, json spec) {
  return {{"apiVersion", "autoscaling.karmada.io/v1alpha1"},
          {"kind", "FederatedHPA"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}, {"finalizers", {kFederatedHpaFinalizer}}}},
          {"spec", spec}};
}

json nginxSpec() {
  return {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "nginx"}}},
          {"minReplicas", 1},
          {"maxReplicas", 10},
          {"behavior", {{"scaleDown", {{"stabilizationWindowSeconds", 10}}}}}};
}

class FederatedHpaReconcilerTest : public ::testing::Test {
 protected:
  FederatedHpaReconcilerTest() { refresh(); }

  void refresh() {
    federatedHpas_.refresh();
    hpas_.refresh();
  }
  void reconcile(const std::string& key = "default/nginx") {
    refresh();
    reconciler_->reconcile(key);
    refresh();
  }
  std::vector<json> events() {
    reconciler_.reset();
    events_.reset();  // flushes
    std::vector<json> out;
    for (const auto& [key, event] : api_.all(kEvents)) out.push_back(event);
    events_ = std::make_unique<EventRecorder>(api_, time_);
    reconciler_ = makeReconciler();
    return out;
  }
  bool hasEvent(const std::string& reason, const std::string& text) {
    for (const auto& event : events())
      if (event.value("reason", "") == reason && event.value("message", "").find(text) != std::string::npos) return true;
    return false;
  }
  json condition(const std::string& type) {
    const auto object = api_.peek(kFederatedHpas, "default", "nginx");
    for (const auto& entry : object->value("status", json::object()).value("conditions", json::array()))
      if (entry.value("type", "") == type) return entry;
    return nullptr;
  }

  FakeTimeSource time_;
  RecordingApi api_;
  SnapshotLister federatedHpas_{api_, kFederatedHpas, federationObjectTransform()};
  SnapshotLister hpas_{api_, kHpas, federationObjectTransform()};
  std::unique_ptr<EventRecorder> events_ = std::make_unique<EventRecorder>(api_, time_);
  std::unique_ptr<FederatedHpaReconciler> reconciler_ = makeReconciler();

  // A reconciler recording through the current events_ (events() replaces the recorder).
  std::unique_ptr<FederatedHpaReconciler> makeReconciler() {
    auto hpasInNamespace = [this](const std::string& ns) {
      std::vector<json> out;
      for (const auto& [key, hpa] : api_.all(kHpas))
        if (hpa["metadata"].value("namespace", "") == ns) out.push_back(hpa);
      return out;
    };
    return std::make_unique<FederatedHpaReconciler>(FederatedHpaContext{api_, federatedHpas_, hpas_, hpasInNamespace, *events_, time_});
  }
};

TEST_F(FederatedHpaReconcilerTest, CreatesAnOwnedFederatedHpaWithTheSameSpec) {
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  const auto hpa = api_.peek(kHpas, "default", "nginx");
  ASSERT_TRUE(hpa);
  EXPECT_EQ((*hpa)["spec"]["maxReplicas"], 10);
  EXPECT_EQ((*hpa)["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 10);
  EXPECT_EQ((*hpa)["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);  // HPA defaults
  EXPECT_TRUE(ownedBy(*hpa, *api_.peek(kFederatedHpas, "default", "nginx")));
  EXPECT_EQ(condition("Federated")["status"], "True");
  EXPECT_TRUE(hasEvent("HPACreated", "default/nginx"));
}

TEST_F(FederatedHpaReconcilerTest, AddsItsFinalizerFirst) {
  json object = federatedHpa("nginx", nginxSpec());
  object["metadata"]["finalizers"] = json::array();
  api_.put(kFederatedHpas, object);
  reconcile();
  EXPECT_TRUE(hasFinalizer(*api_.peek(kFederatedHpas, "default", "nginx"), kFederatedHpaFinalizer));
  EXPECT_FALSE(api_.peek(kHpas, "default", "nginx"));
}

TEST_F(FederatedHpaReconcilerTest, MirrorsSpecDownAndStatusUp) {
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  api_.touch(kFederatedHpas, "default", "nginx", [](json& object) {
    object["spec"]["minReplicas"] = 3;
    object["spec"]["maxReplicas"] = 12;
    object["metadata"]["generation"] = 2;
  });
  api_.touch(kHpas, "default", "nginx", [](json& hpa) {
    hpa["status"] = {{"currentReplicas", 4}, {"desiredReplicas", 5}, {"observedGeneration", 1},
                     {"conditions", json::array({{{"type", "AbleToScale"}, {"status", "True"}}})}};
  });
  reconcile();
  const auto hpa = api_.peek(kHpas, "default", "nginx");
  EXPECT_EQ((*hpa)["spec"]["minReplicas"], 3);
  EXPECT_EQ((*hpa)["spec"]["maxReplicas"], 12);
  const auto object = api_.peek(kFederatedHpas, "default", "nginx");
  EXPECT_EQ((*object)["status"]["currentReplicas"], 4);
  EXPECT_EQ((*object)["status"]["desiredReplicas"], 5);
  EXPECT_EQ((*object)["status"]["conditions"][0]["type"], "AbleToScale");
  EXPECT_EQ(condition("Federated")["status"], "True");
}

TEST_F(FederatedHpaReconcilerTest, CopiesTheMembersSharesUpForKubectlGetWide) {
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  const std::string shares = R"({"member1":{"min":1,"max":7,"current":5},"member2":{"min":1,"max":3,"current":1}})";
  api_.touch(kHpas, "default", "nginx", [&](json& hpa) { hpa["metadata"]["annotations"][kClusterStatusAnnotation] = shares; });
  reconcile();
  const auto object = api_.peek(kFederatedHpas, "default", "nginx");
  EXPECT_EQ((*object)["metadata"]["annotations"][kClusterStatusAnnotation], shares);
  EXPECT_EQ(api::clusterShares(*object), "member1 1-7 (5), member2 1-3 (1)");
  events();  // the recorder posts Events from its own thread: let them land before counting
  const int writes = api_.writes;
  reconcile();
  EXPECT_EQ(api_.writes, writes) << "copied once";
}

TEST_F(FederatedHpaReconcilerTest, ASettledObjectIsNotWrittenAgain) {
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  reconcile();
  events();  // the recorder posts Events from its own thread: let them land before counting
  const int writes = api_.writes;
  reconcile();
  EXPECT_EQ(api_.writes, writes);
}

TEST_F(FederatedHpaReconcilerTest, AnHpaOfTheSameNameItDoesNotOwnIsAConflictLeftAlone) {
  json foreign = {{"metadata", {{"name", "nginx"}, {"namespace", "default"}}},
                  {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "other"}}}, {"maxReplicas", 3}}}};
  api_.put(kHpas, foreign);
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  EXPECT_EQ((*api_.peek(kHpas, "default", "nginx"))["spec"]["maxReplicas"], 3);
  EXPECT_EQ(condition("Federated")["status"], "False");
  EXPECT_EQ(condition("Federated")["reason"], "NameConflict");
  EXPECT_TRUE(hasEvent("NameConflict", "not owned by this FederatedHPA"));
}

TEST_F(FederatedHpaReconcilerTest, AnotherHpaScalingTheSameTargetIsAConflictNotAFight) {
  api_.put(kHpas, {{"metadata", {{"name", "web"}, {"namespace", "default"}}},
                   {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "nginx"}}}, {"maxReplicas", 3}}}});
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  EXPECT_FALSE(api_.peek(kHpas, "default", "nginx"));
  EXPECT_EQ(condition("Federated")["reason"], "TargetConflict");
  EXPECT_NE(condition("Federated")["message"].get<std::string>().find("default/web also scales Deployment/nginx"), std::string::npos);
  EXPECT_TRUE(hasEvent("TargetConflict", "default/web"));
  // Once the other one goes, the FederatedHPA is federated.
  api_.remove(kHpas, "default", "web", "");
  reconcile();
  EXPECT_TRUE(api_.peek(kHpas, "default", "nginx"));
  EXPECT_EQ(condition("Federated")["status"], "True");
}

TEST_F(FederatedHpaReconcilerTest, KarmadaOnlyFieldsAreKeptAndReported) {
  json spec = nginxSpec();
  spec["scaleTargetRefSelector"] = {{"region", "eu"}};
  api_.put(kFederatedHpas, federatedHpa("nginx", spec));
  reconcile();
  EXPECT_FALSE((*api_.peek(kHpas, "default", "nginx"))["spec"].contains("scaleTargetRefSelector"));
  EXPECT_EQ((*api_.peek(kFederatedHpas, "default", "nginx"))["spec"]["scaleTargetRefSelector"]["region"], "eu");
  EXPECT_EQ(condition("KarmadaFieldsIgnored")["status"], "True");
  EXPECT_TRUE(hasEvent("KarmadaFieldsIgnored", "spec.scaleTargetRefSelector"));
}

TEST_F(FederatedHpaReconcilerTest, DeleteCascadesToItsHpa) {
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  api_.remove(kFederatedHpas, "default", "nginx", "");
  reconcile();
  EXPECT_FALSE(api_.peek(kHpas, "default", "nginx"));
  EXPECT_FALSE(api_.peek(kFederatedHpas, "default", "nginx"));
  EXPECT_EQ(api_.deletePolicies.back(), "horizontalpodautoscalers:Background");
}

TEST_F(FederatedHpaReconcilerTest, OrphanDeletesItsHpaWithOrphanSoMembersKeepTheirCopies) {
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  api_.touch(kFederatedHpas, "default", "nginx", [](json& object) { object["metadata"]["finalizers"].push_back("orphan"); });
  api_.remove(kFederatedHpas, "default", "nginx", "Orphan");
  reconcile();
  EXPECT_EQ(api_.deletePolicies.back(), "horizontalpodautoscalers:Orphan");
  EXPECT_EQ((*api_.peek(kFederatedHpas, "default", "nginx"))["metadata"]["finalizers"], json::array({"orphan"}));
}

TEST_F(FederatedHpaReconcilerTest, DeleteLeavesAnHpaItDoesNotOwn) {
  api_.put(kHpas, {{"metadata", {{"name", "nginx"}, {"namespace", "default"}}}, {"spec", {{"maxReplicas", 3}}}});
  api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  reconcile();
  api_.remove(kFederatedHpas, "default", "nginx", "");
  reconcile();
  EXPECT_TRUE(api_.peek(kHpas, "default", "nginx"));
  EXPECT_FALSE(api_.peek(kFederatedHpas, "default", "nginx"));
}

// ---- CronFederatedHPA ----

json cron(json target, json rules) {
  return {{"apiVersion", "autoscaling.karmada.io/v1alpha1"},
          {"kind", "CronFederatedHPA"},
          {"metadata", {{"name", "scale"}, {"namespace", "default"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"spec", {{"scaleTargetRef", target}, {"rules", rules}}}};
}

const json kFederatedHpaTarget = {{"apiVersion", "autoscaling.karmada.io/v1alpha1"}, {"kind", "FederatedHPA"}, {"name", "nginx"}};

class CronFederatedHpaReconcilerTest : public ::testing::Test {
 protected:
  CronFederatedHpaReconcilerTest() {
    setClock("2026-03-02T10:00:30Z");
    api_.put(kFederatedHpas, federatedHpa("nginx", nginxSpec()));
  }
  void setClock(const std::string& at) {
    const auto wanted = *api::parseRfc3339(at);
    time_.advance(std::chrono::duration_cast<std::chrono::milliseconds>(wanted - time_.systemTime()));
  }
  void reconcile() {
    crons_.refresh();
    reconciler_->reconcile("default/scale");
  }
  json history(std::size_t rule = 0) { return (*api_.peek(kCronFederatedHpas, "default", "scale"))["status"]["executionHistories"][rule]; }
  json target() { return (*api_.peek(kFederatedHpas, "default", "nginx"))["spec"]; }

  FakeTimeSource time_;
  FakeApi api_;
  SnapshotLister crons_{api_, kCronFederatedHpas, federationObjectTransform()};
  EventRecorder events_{api_, time_};
  std::unique_ptr<CronFederatedHpaReconciler> reconciler_ =
      std::make_unique<CronFederatedHpaReconciler>(CronFederatedHpaContext{api_, crons_, events_, time_, std::chrono::seconds(120)});
};

TEST_F(CronFederatedHpaReconcilerTest, FiresWhenDueAndRecordsTheExecution) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "peak"}, {"schedule", "1 10 * * *"},
                                                                        {"targetMinReplicas", 4}, {"targetMaxReplicas", 20}}})));
  reconcile();
  EXPECT_EQ(target()["maxReplicas"], 10);
  EXPECT_EQ(history()["nextExecutionTime"], "2026-03-02T10:01:00Z");
  EXPECT_FALSE(history().contains("successfulExecutions"));
  setClock("2026-03-02T10:01:00Z");
  reconcile();
  EXPECT_EQ(target()["minReplicas"], 4);
  EXPECT_EQ(target()["maxReplicas"], 20);
  const json execution = history()["successfulExecutions"][0];
  EXPECT_EQ(execution["scheduleTime"], "2026-03-02T10:01:00Z");
  EXPECT_EQ(execution["appliedMinReplicas"], 4);
  EXPECT_EQ(execution["appliedMaxReplicas"], 20);
  EXPECT_EQ(history()["nextExecutionTime"], "2026-03-03T10:01:00Z");
}

TEST_F(CronFederatedHpaReconcilerTest, NeverFiresTheSameScheduleTimeTwiceEvenAfterARestart) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "peak"}, {"schedule", "1 10 * * *"},
                                                                        {"targetMaxReplicas", 20}}})));
  setClock("2026-03-02T10:01:05Z");
  reconcile();
  api_.touch(kFederatedHpas, "default", "nginx", [](json& object) { object["spec"]["maxReplicas"] = 7; });  // a user's edit
  reconciler_ = std::make_unique<CronFederatedHpaReconciler>(CronFederatedHpaContext{api_, crons_, events_, time_, std::chrono::seconds(120)});
  setClock("2026-03-02T10:01:40Z");
  reconcile();
  EXPECT_EQ(target()["maxReplicas"], 7);
  EXPECT_EQ(history()["successfulExecutions"].size(), 1u);
}

TEST_F(CronFederatedHpaReconcilerTest, AStaleCacheDoesNotFireTheRuleAgain) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "peak"}, {"schedule", "1 10 * * *"},
                                                                        {"targetMaxReplicas", 20}}})));
  setClock("2026-03-02T10:01:00Z");
  reconcile();
  api_.touch(kFederatedHpas, "default", "nginx", [](json& object) { object["spec"]["maxReplicas"] = 7; });
  setClock("2026-03-02T10:01:01Z");
  // The cache has not seen the status write yet: no second firing; the status write from the
  // stale copy conflicts, and the key comes back once the cache has caught up.
  EXPECT_THROW(reconciler_->reconcile("default/scale"), clusters::ClientError);
  EXPECT_EQ(target()["maxReplicas"], 7);
  reconcile();
  EXPECT_EQ(target()["maxReplicas"], 7);
  EXPECT_EQ(history()["successfulExecutions"].size(), 1u);
}

TEST_F(CronFederatedHpaReconcilerTest, CatchesUpInsideTheWindowOnlyOnceAndNotBeyondIt) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "every"}, {"schedule", "*/10 * * * *"},
                                                                         {"targetMaxReplicas", 15}}})));
  setClock("2026-03-02T10:00:00Z");
  reconcile();  // fires 10:00
  setClock("2026-03-02T10:21:30Z");  // down over 10:10 and 10:20; 10:20 is inside the 2 min window
  reconcile();
  const json executions = history()["successfulExecutions"];
  ASSERT_EQ(executions.size(), 2u);
  EXPECT_EQ(executions[1]["scheduleTime"], "2026-03-02T10:20:00Z");
  setClock("2026-03-02T10:35:00Z");  // 10:30 is 5 min past: outside the window, not fired
  reconcile();
  EXPECT_EQ(history()["successfulExecutions"].size(), 2u);
  EXPECT_EQ(history()["nextExecutionTime"], "2026-03-02T10:40:00Z");
}

TEST_F(CronFederatedHpaReconcilerTest, ASuspendedRuleDoesNotFire) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "off"}, {"schedule", "* * * * *"}, {"suspend", true},
                                                                        {"targetMaxReplicas", 30}}})));
  setClock("2026-03-02T10:05:00Z");
  reconcile();
  EXPECT_EQ(target()["maxReplicas"], 10);
  EXPECT_FALSE(history().contains("nextExecutionTime"));
  EXPECT_FALSE(history().contains("successfulExecutions"));
}

TEST_F(CronFederatedHpaReconcilerTest, SetsAFederatedDeploymentsReplicas) {
  api_.put(kDeployments, {{"metadata", {{"name", "web"}, {"namespace", "default"}}}, {"spec", {{"replicas", 2}}}});
  api_.put(kCronFederatedHpas, cron({{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}},
                                    json::array({{{"name", "up"}, {"schedule", "1 10 * * *"}, {"targetReplicas", 6}}})));
  setClock("2026-03-02T10:01:00Z");
  reconcile();
  EXPECT_EQ((*api_.peek(kDeployments, "default", "web"))["spec"]["replicas"], 6);
  EXPECT_EQ(history()["successfulExecutions"][0]["appliedReplicas"], 6);
}

TEST_F(CronFederatedHpaReconcilerTest, AFailureIsRecordedWithItsReason) {
  api_.put(kCronFederatedHpas, cron({{"kind", "FederatedHPA"}, {"name", "missing"}},
                                    json::array({{{"name", "up"}, {"schedule", "1 10 * * *"}, {"targetMaxReplicas", 6}}})));
  setClock("2026-03-02T10:01:00Z");
  reconcile();
  const json failed = history()["failedExecutions"][0];
  EXPECT_EQ(failed["scheduleTime"], "2026-03-02T10:01:00Z");
  EXPECT_EQ(failed["message"], "FederatedHPA default/missing not found");
}

TEST_F(CronFederatedHpaReconcilerTest, HistoryIsTrimmedToTheRulesLimit) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "every"}, {"schedule", "* * * * *"},
                                                                         {"successfulHistoryLimit", 2}, {"targetMaxReplicas", 11}}})));
  for (const char* at : {"2026-03-02T10:01:00Z", "2026-03-02T10:02:00Z", "2026-03-02T10:03:00Z"}) {
    setClock(at);
    reconcile();
  }
  const json executions = history()["successfulExecutions"];
  ASSERT_EQ(executions.size(), 2u);
  EXPECT_EQ(executions[0]["scheduleTime"], "2026-03-02T10:02:00Z");
  EXPECT_EQ(executions[1]["scheduleTime"], "2026-03-02T10:03:00Z");
}

TEST_F(CronFederatedHpaReconcilerTest, RulesFireInTheirOwnTimeZone) {
  api_.put(kCronFederatedHpas, cron(kFederatedHpaTarget, json::array({{{"name", "berlin"}, {"schedule", "30 11 * * *"},
                                                                         {"timeZone", "Europe/Berlin"}, {"targetMaxReplicas", 9}}})));
  setClock("2026-03-02T10:29:00Z");
  reconcile();
  EXPECT_EQ(history()["nextExecutionTime"], "2026-03-02T10:30:00Z");  // 11:30 CET
  setClock("2026-03-02T10:30:00Z");
  reconcile();
  EXPECT_EQ(target()["maxReplicas"], 9);
}

}  // namespace
}  // namespace fedhpa::controller
