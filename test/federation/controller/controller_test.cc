// The controller against a real federation API server and three simulated members, all in this
// process: the documented spread, re-partitioning, cascading and orphaning deletes, and one watch
// per resource and client however many controllers read it.
#include "federation/controller/controller_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "clusters/client/join.h"
#include "clusters/client/rest_client.h"
#include "clusters/sim/member_simulator.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/common/eventually.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::controller {
namespace {

using clusters::ClientError;
using clusters::json;
using fedhpa::testing::eventually;

json federatedHpa(int minReplicas, int maxReplicas, const std::string& name = "php-apache") {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "php-apache"}}},
            {"minReplicas", minReplicas},
            {"maxReplicas", maxReplicas}}}};
}

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clusters::initializeHttpClientPool(4);
    federationServer_ = std::make_unique<apiserver::ApiServer>(storage::SqliteStorage::openInMemory({}),
                                                               api::federationResources(), apiserver::ApiServerOptions{});
    clusters::RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(federationServer_->start());
    federation_ = std::make_unique<clusters::RestClient>(config);
    for (const char* name : {"member1", "member2", "member3"}) {
      members_.push_back(startMember(name, 0));
      clusters::RestConfig memberConfig;
      memberConfig.server = "http://127.0.0.1:" + std::to_string(ports_.back());
      clusters::joinCluster(*federation_, name, memberConfig);
      memberClients_[name] = std::make_unique<clusters::RestClient>(memberConfig);
    }
    ControllerOptions options;
    options.workers = 2;
    options.resyncPeriod = std::chrono::milliseconds(500);
    options.clusterProbePeriod = std::chrono::milliseconds(200);
    options.policy.scaleForbiddenWindow = std::chrono::seconds(0);
    configure(options);
    controller_ = std::make_unique<ControllerManager>(
        controllerFederation(), [this](const clusters::RestConfig& c) { return memberClient(c); }, options, time());
    controller_->start();
  }
  virtual void configure(ControllerOptions&) {}
  // The clients the controller is given: the test's own federation client, and a RestClient per member.
  virtual clusters::KubeClient& controllerFederation() { return *federation_; }
  virtual std::shared_ptr<clusters::KubeClient> memberClient(const clusters::RestConfig& config) {
    return std::make_shared<clusters::RestClient>(config);
  }
  virtual TimeSource& time() { return realTime_; }
  // A member-sim on `port` (0: any), whose port is remembered in ports_ when it is new.
  std::unique_ptr<sim::MemberSimulator> startMember(const std::string& name, std::uint16_t port) {
    sim::MemberSimulatorOptions options;
    options.name = name;
    options.hpaSyncPeriod = std::chrono::milliseconds(500);
    options.http.port = port;
    auto member = std::make_unique<sim::MemberSimulator>(options);
    const std::uint16_t started = member->start();
    if (port == 0) ports_.push_back(started);
    return member;
  }
  void TearDown() override {
    controller_->stop();
    for (auto& member : members_) member->stop();
  }

  // Each member's local HPA `hpa` as "min/max", "-" where there is none.
  std::vector<std::string> localLimits(const std::string& hpa = "php-apache") {
    std::vector<std::string> out;
    for (auto& [name, client] : memberClients_) {
      try {
        const json local = client->get(kHpas, "default", hpa);
        out.push_back(std::to_string(local["spec"].value("minReplicas", 0)) + "/" + std::to_string(local["spec"].value("maxReplicas", 0)));
      } catch (const ClientError&) {
        out.push_back("-");
      }
    }
    return out;
  }
  // Every member's Cluster status.placedHPAs, "?" where unset, in member order.
  std::vector<std::string> placedHpas() {
    std::vector<std::string> out;
    for (const auto& [name, client] : memberClients_) {
      const json status = federation_->get(clusters::kClusters, "", name).value("status", json::object());
      out.push_back(status.contains("placedHPAs") ? status["placedHPAs"].dump() : "?");
    }
    return out;
  }

  std::unique_ptr<apiserver::ApiServer> federationServer_;
  std::unique_ptr<clusters::RestClient> federation_;
  std::vector<std::unique_ptr<sim::MemberSimulator>> members_;
  std::vector<std::uint16_t> ports_;
  std::map<std::string, std::unique_ptr<clusters::RestClient>> memberClients_;
  RealTimeSource realTime_;
  std::unique_ptr<ControllerManager> controller_;
};

TEST_F(ControllerTest, SpreadsRepartitionsAndDeletesEverywhere) {
  federation_->create(kHpas, "default", federatedHpa(2, 9));
  EXPECT_TRUE(eventually([&] { return localLimits() == std::vector<std::string>{"1/3", "1/3", "1/3"}; }))
      << ::testing::PrintToString(localLimits());
  const json federated = federation_->get(kHpas, "default", "php-apache");
  EXPECT_THAT(federated["metadata"]["finalizers"], ::testing::Contains(kFederationFinalizer));
  // What `kubectl get clusters -o wide` shows, written with the next probes.
  EXPECT_TRUE(eventually([&] { return placedHpas() == std::vector<std::string>{"1", "1", "1"}; }))
      << ::testing::PrintToString(placedHpas());
  for (const auto& [name, client] : memberClients_) {
    const json status = federation_->get(clusters::kClusters, "", name)["status"];
    EXPECT_EQ(status.value("circuitBreakerState", ""), "Closed") << name;
    EXPECT_GE(status.value("probeRoundTripMilliseconds", -1), 0) << name;
  }

  federation_->mergePatch(kHpas, "default", "php-apache", {{"spec", {{"minReplicas", 1}, {"maxReplicas", 2}}}});
  EXPECT_TRUE(eventually([&] {
    const auto limits = localLimits();
    return std::count(limits.begin(), limits.end(), "-") == 1 && std::count(limits.begin(), limits.end(), "1/1") == 2;
  })) << ::testing::PrintToString(localLimits());
  EXPECT_TRUE(eventually([&] {
    const auto placed = placedHpas();
    return std::count(placed.begin(), placed.end(), "0") == 1 && std::count(placed.begin(), placed.end(), "1") == 2;
  })) << "the member that lost its copy counts none: " << ::testing::PrintToString(placedHpas());

  federation_->remove(kHpas, "default", "php-apache", "Background");
  EXPECT_TRUE(eventually([&] { return localLimits() == std::vector<std::string>{"-", "-", "-"}; }))
      << ::testing::PrintToString(localLimits());
  EXPECT_TRUE(eventually([&] { return placedHpas() == std::vector<std::string>{"0", "0", "0"}; }))
      << ::testing::PrintToString(placedHpas());
  EXPECT_TRUE(eventually([&] {
    try {
      federation_->get(kHpas, "default", "php-apache");
      return false;
    } catch (const ClientError& error) {
      return error.kind() == ClientError::Kind::NotFound;
    }
  })) << "the finalizer is removed once the members are clean";
}

TEST_F(ControllerTest, OrphanLeavesTheMemberCopiesUnmanaged) {
  federation_->create(kHpas, "default", federatedHpa(1, 10));
  ASSERT_TRUE(eventually([&] {
    const auto limits = localLimits();
    return std::count(limits.begin(), limits.end(), "-") == 0;
  }));
  federation_->remove(kHpas, "default", "php-apache", "Orphan");
  EXPECT_TRUE(eventually([&] {
    try {
      federation_->get(kHpas, "default", "php-apache");
      return false;
    } catch (const ClientError&) {
      return true;
    }
  }));
  for (auto& [name, client] : memberClients_) {
    const json local = client->get(kHpas, "default", "php-apache");
    EXPECT_FALSE(local["metadata"].value("labels", json::object()).contains(kManagedByLabel)) << name;
  }
}

TEST_F(ControllerTest, StatusIsAggregatedWithAPerClusterBreakdown) {
  federation_->create(kHpas, "default", federatedHpa(3, 9));
  EXPECT_TRUE(eventually([&] {
    const json federated = federation_->get(kHpas, "default", "php-apache");
    const std::string breakdown =
        federated["metadata"].value("annotations", json::object()).value(kClusterStatusAnnotation, "");
    return breakdown.find("member3") != std::string::npos && federated.value("status", json::object()).contains("desiredReplicas");
  }));
  // No Deployment in the members: their HPAs cannot get the scale, and the federation says so.
  EXPECT_TRUE(eventually([&] {
    const json federated = federation_->get(kHpas, "default", "php-apache");
    for (const auto& condition : federated["status"].value("conditions", json::array()))
      if (condition["type"] == "AbleToScale") return condition["status"] == "False";
    return false;
  }));
}

// A client that counts the watches it opens, by group and resource, and passes everything through.
class WatchCountingClient final : public clusters::KubeClient {
 public:
  // Passes everything to `inner`; `owned`, if given, is what keeps it alive.
  explicit WatchCountingClient(clusters::KubeClient& inner, std::shared_ptr<clusters::KubeClient> owned = nullptr)
      : owned_(std::move(owned)), inner_(inner) {}
  json get(const clusters::Resource& r, const std::string& ns, const std::string& name) override { return inner_.get(r, ns, name); }
  json list(const clusters::Resource& r, const std::string& ns, const clusters::ListOptions& options) override {
    return inner_.list(r, ns, options);
  }
  json create(const clusters::Resource& r, const std::string& ns, const json& object) override { return inner_.create(r, ns, object); }
  json update(const clusters::Resource& r, const json& object, const std::string& subresource) override {
    return inner_.update(r, object, subresource);
  }
  json mergePatch(const clusters::Resource& r, const std::string& ns, const std::string& name, const json& patch,
                  const std::string& subresource) override {
    return inner_.mergePatch(r, ns, name, patch, subresource);
  }
  json remove(const clusters::Resource& r, const std::string& ns, const std::string& name, const std::string& propagationPolicy,
              const std::string& resourceVersion) override {
    return inner_.remove(r, ns, name, propagationPolicy, resourceVersion);
  }
  std::unique_ptr<clusters::WatchStream> watch(const clusters::Resource& r, const std::string& ns, const std::string& resourceVersion,
                                               const clusters::ListOptions& options) override {
    {
      std::lock_guard lock(mutex_);
      ++watches_[r.group + "/" + r.resource];
    }
    return inner_.watch(r, ns, resourceVersion, options);
  }
  int probe(const std::string& path) override { return inner_.probe(path); }

  std::map<std::string, int> watches() const {
    std::lock_guard lock(mutex_);
    return watches_;
  }

 private:
  std::shared_ptr<clusters::KubeClient> owned_;
  clusters::KubeClient& inner_;
  mutable std::mutex mutex_;
  std::map<std::string, int> watches_;
};

// The controller-manager as `fedhpa controller-manager` runs it (the HPA, Deployment, propagation
// and policy-status controllers and Karmada's FederatedHPA and CronFederatedHPA controllers, the
// cluster registry, prober and token rotator): each resource is watched once on the federation
// and once on each member, however many of them read it.
class ControllerWatchesTest : public ControllerTest {
 protected:
  clusters::KubeClient& controllerFederation() override {
    federationWatches_ = std::make_unique<WatchCountingClient>(*federation_);
    return *federationWatches_;
  }
  std::shared_ptr<clusters::KubeClient> memberClient(const clusters::RestConfig& config) override {
    auto member = std::make_shared<clusters::RestClient>(config);
    auto client = std::make_shared<WatchCountingClient>(*member, member);
    std::lock_guard lock(mutex_);
    memberWatches_.push_back(client);
    return client;
  }
  std::vector<std::map<std::string, int>> memberWatches() {
    std::lock_guard lock(mutex_);
    std::vector<std::map<std::string, int>> out;
    for (const auto& client : memberWatches_) out.push_back(client->watches());
    return out;
  }

  void TearDown() override {
    ControllerTest::TearDown();
    controller_.reset();  // before the client it was given goes
  }

  std::unique_ptr<WatchCountingClient> federationWatches_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<WatchCountingClient>> memberWatches_;
};

TEST_F(ControllerWatchesTest, EachResourceIsWatchedOncePerClient) {
  federation_->create(kHpas, "default", federatedHpa(2, 9));
  // A whole pass, start to spread: every informer the controllers open lazily is open by then.
  ASSERT_TRUE(eventually([&] { return localLimits() == std::vector<std::string>{"1/3", "1/3", "1/3"}; }))
      << ::testing::PrintToString(localLimits());
  const std::map<std::string, int> federation = {
      {"/configmaps", 1},
      {"/secrets", 1},
      {"/services", 1},
      {"apps/deployments", 1},
      {"autoscaling/horizontalpodautoscalers", 1},
      {"autoscaling.karmada.io/cronfederatedhpas", 1},
      {"autoscaling.karmada.io/federatedhpas", 1},
      {"federation/clusters", 1},
      {"policy.karmada.io/clusterpropagationpolicies", 1},
      {"policy.karmada.io/propagationpolicies", 1}};
  EXPECT_EQ(federationWatches_->watches(), federation);
  const std::map<std::string, int> member = {
      {"/configmaps", 1}, {"/services", 1}, {"apps/deployments", 1}, {"autoscaling/horizontalpodautoscalers", 1}};
  const std::vector<std::map<std::string, int>> everyMember(3, member);
  EXPECT_EQ(memberWatches(), everyMember);
}

// The controller on a clock that moves only when the test says so: a wait the controller measures
// (a key's backoff, how long a refused create has gone unexplained) passes in fake seconds.
class ControllerOnFakeClockTest : public ControllerTest {
 protected:
  TimeSource& time() override { return fakeTime_; }
  // Like eventually(), the fake clock moving a second a step, so that a key a failed write put
  // back is retried: only an HPA nothing re-queues stays where it is.
  bool eventuallyAsTimePasses(const std::function<bool()>& predicate) {
    for (int i = 0; i < 300; ++i) {
      if (predicate()) return true;
      fakeTime_.advance(std::chrono::seconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  fedhpa::testing::FakeTimeSource fakeTime_;
};

TEST_F(ControllerOnFakeClockTest, AnHpaFedhpaDidNotCreateIsLeftAlone) {
  json foreign = federatedHpa(1, 2);
  memberClients_["member1"]->create(kHpas, "default", foreign);
  federation_->create(kHpas, "default", federatedHpa(1, 9));
  EXPECT_TRUE(eventually([&] {
    const auto limits = localLimits();
    return limits[1] != "-" && limits[2] != "-";
  }));
  EXPECT_EQ(localLimits()[0], "1/2") << "member1's own HPA is untouched";
  // Someone else's only once the cache has gone on not showing a copy of fedhpa's for 10 s.
  EXPECT_TRUE(eventuallyAsTimePasses([&] {
    const json events = federation_->list({"", "v1", "events", true}, "default", {"", "reason=ForeignHpa", {}, ""});
    return !events["items"].empty() && events["items"][0]["type"] == "Warning";
  }));
  EXPECT_EQ(localLimits()[0], "1/2") << "member1's own HPA is untouched";
}

// A member that comes back answering: no resync brings back what it missed (the period is an
// hour), and the keys' backoff runs on a clock that moves only when the test says so. The
// member's Ready condition turning True is what reconciles the HPA created while it was away.
class ControllerRecoveryTest : public ControllerOnFakeClockTest {
 protected:
  void configure(ControllerOptions& options) override {
    options.resyncPeriod = std::chrono::hours(1);
    options.clusterUnhealthyGrace = std::chrono::hours(1);  // away, it stays Unknown: its share is kept
  }
  bool memberReady(const std::string& name) {
    return clusters::clusterReady(federation_->get(clusters::kClusters, "", name));
  }
};

TEST_F(ControllerRecoveryTest, AMemberReadyAgainGetsTheHpaCreatedWhileItWasAway) {
  federation_->create(kHpas, "default", federatedHpa(3, 9));
  ASSERT_TRUE(eventually([&] { return localLimits() == std::vector<std::string>{"1/3", "1/3", "1/3"}; }))
      << ::testing::PrintToString(localLimits());

  members_[2]->stop();
  ASSERT_TRUE(eventually([&] { return !memberReady("member3"); }));
  federation_->create(kHpas, "default", federatedHpa(2, 6, "created-while-away"));
  ASSERT_TRUE(eventuallyAsTimePasses([&] {
    const auto limits = localLimits("created-while-away");
    return limits[0] != "-" && limits[1] != "-";
  })) << ::testing::PrintToString(localLimits("created-while-away"));

  members_[2] = startMember("member3", ports_[2]);  // back, and empty: a member-sim keeps nothing
  EXPECT_TRUE(eventuallyAsTimePasses([&] { return localLimits("created-while-away")[2] != "-"; }))
      << ::testing::PrintToString(localLimits("created-while-away"));
  EXPECT_TRUE(memberReady("member3"));
}

}  // namespace
}  // namespace fedhpa::controller
