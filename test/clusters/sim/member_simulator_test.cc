// The member-sim's API defaults HPAs as kube-apiserver does, on every write path; its Deployments'
// pods take the startup delay to become ready, and the status says so as kube's does.
#include <gtest/gtest.h>

#include "clusters/sim/member_simulator.h"
#include "federation/api/hpa_defaults.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::sim {
namespace {

using apiserver::testing::call;
using nlohmann::json;

const char* kHpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

json bareHpa() {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "web"}}},
          {"spec", {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}}, {"maxReplicas", 5}}}};
}

// "True MinimumReplicasAvailable": a status condition's status and reason.
std::string conditionReason(const json& status, const std::string& type) {
  for (const json& condition : status.value("conditions", json::array()))
    if (condition.value("type", "") == type) return condition.value("status", "") + " " + condition.value("reason", "");
  return "(none)";
}

json defaultedSpec(json spec) {
  api::applyHpaV2Defaults(spec);
  return spec;
}

TEST(MemberSimHpaDefaults, CreateUpdateAndPatchStoreTheDefaultedSpec) {
  MemberSimulatorOptions options;
  options.hpaSyncPeriod = std::chrono::hours(1);
  MemberSimulator sim(options);
  const auto port = sim.start();
  const std::string web = std::string(kHpas) + "/web";

  const auto created = call(port, "POST", kHpas, bareHpa().dump());
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["spec"], defaultedSpec(bareHpa()["spec"]));
  EXPECT_EQ(created.json()["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);

  json replaced = call(port, "GET", web).json();
  replaced["spec"].erase("metrics");
  replaced["spec"]["behavior"] = json::object();
  const auto updated = call(port, "PUT", web, replaced.dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.json()["spec"], defaultedSpec(replaced["spec"]));
  EXPECT_EQ(updated.json()["spec"]["behavior"]["scaleUp"]["policies"].size(), 2u);

  const auto patched = call(port, "PATCH", web, R"({"spec":{"minReplicas":null,"behavior":{"scaleDown":null}}})",
                            {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["spec"]["minReplicas"], 1);
  EXPECT_EQ(patched.json()["spec"]["behavior"]["scaleDown"]["selectPolicy"], "Max");
  EXPECT_EQ(call(port, "GET", web).json()["spec"], patched.json()["spec"]);
}

TEST(MemberSimDeployments, NewPodsAreUnreadyForTheStartupDelay) {
  MemberSimulatorOptions options;
  options.podStartupDelay = std::chrono::seconds(30);
  MemberSimulator sim(options);  // not started: only the syncs below move the clock
  apiserver::ResourceStore& deployments = *sim.server().store("apps", "deployments");
  deployments.create("default", json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
      "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})"),
                     false);
  const TimePoint start = Clock::now();
  sim.syncOnce(start);
  const json starting = deployments.get("default", "web")["status"];
  EXPECT_EQ(starting["replicas"], 3);
  EXPECT_EQ(starting["updatedReplicas"], 3);
  EXPECT_FALSE(starting.contains("readyReplicas")) << "kube leaves a count of 0 out";
  EXPECT_FALSE(starting.contains("availableReplicas"));
  EXPECT_EQ(starting["unavailableReplicas"], 3);
  EXPECT_EQ(conditionReason(starting, "Available"), "False MinimumReplicasUnavailable");
  EXPECT_EQ(conditionReason(starting, "Progressing"), "True ReplicaSetUpdated");
  sim.syncOnce(start + std::chrono::seconds(29));
  EXPECT_EQ(deployments.get("default", "web")["status"], starting) << "nothing ready yet, nothing rewritten";
  sim.syncOnce(start + std::chrono::seconds(30));
  const json ready = deployments.get("default", "web")["status"];
  EXPECT_EQ(ready["readyReplicas"], 3);
  EXPECT_EQ(ready["availableReplicas"], 3);
  EXPECT_FALSE(ready.contains("unavailableReplicas")) << "kube leaves it out at 0";
  EXPECT_EQ(conditionReason(ready, "Available"), "True MinimumReplicasAvailable");
  EXPECT_EQ(conditionReason(ready, "Progressing"), "True NewReplicaSetAvailable");
}

// kube's replica calculator on a scale-up counts a pod that is still starting as idle. Two ready
// pods serving 3.9 replicas' worth of requests read 19.5 per pod against a target of 10, and the
// HPA scales to 4. While the two new pods start, the ready ones still read 19.5, but counted with
// the starting ones as idle the load is 3.9 over 4 pods, within the tolerance: the HPA holds at 4,
// where 1.95 x target on 4 replicas would ask for 8.
TEST(MemberSimDeployments, StartingPodsHoldTheHpaAsKubesReplicaCalculatorDoes) {
  MemberSimulatorOptions options;
  options.podStartupDelay = std::chrono::seconds(30);
  MemberSimulator sim(options);  // not started: only the syncs below move the clock
  apiserver::ResourceStore& deployments = *sim.server().store("apps", "deployments");
  apiserver::ResourceStore& hpas = *sim.server().store("autoscaling", "horizontalpodautoscalers");
  deployments.create("default", json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "web", "annotations": {"sim.fedhpa.io/demand": "3.9"}},
      "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})"),
                     false);
  const TimePoint start = Clock::now();
  sim.syncOnce(start);  // the two pods are created
  json hpa = bareHpa();
  hpa["spec"]["maxReplicas"] = 20;
  hpa["spec"]["metrics"] = json::parse(R"([{"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"},
                                                                      "target": {"type": "AverageValue", "averageValue": "10"}}}])");
  hpas.create("default", hpa, false);
  const auto desired = [&] { return hpas.get("default", "web")["status"]["desiredReplicas"]; };
  const auto reading = [&] { return hpas.get("default", "web")["status"]["currentMetrics"][0]["pods"]["current"]["averageValue"]; };
  const auto replicas = [&] { return deployments.get("default", "web")["spec"]["replicas"]; };

  sim.syncOnce(start + std::chrono::seconds(30));  // both ready: 19.5 per pod wants ceil(3.9) = 4
  EXPECT_EQ(reading(), "19500m");
  EXPECT_EQ(desired(), 4);
  EXPECT_EQ(replicas(), 4);

  sim.syncOnce(start + std::chrono::seconds(45));  // two pods created now, ready at 75 s
  EXPECT_EQ(deployments.get("default", "web")["status"]["readyReplicas"], 2);
  EXPECT_EQ(reading(), "19500m") << "the load is on the two ready pods";
  EXPECT_EQ(desired(), 4) << "the starting pods count as idle: 3.9 / 4 is within the tolerance";
  EXPECT_EQ(replicas(), 4);

  sim.syncOnce(start + std::chrono::seconds(75));
  EXPECT_EQ(deployments.get("default", "web")["status"]["readyReplicas"], 4);
  EXPECT_EQ(reading(), "9750m");
  EXPECT_EQ(desired(), 4);
}

}  // namespace
}  // namespace fedhpa::sim
