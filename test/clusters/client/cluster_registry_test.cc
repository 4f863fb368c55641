// The registry and the prober with a real federation API server and a real simulated member:
// joining makes a client appear, the prober marks the member Ready, and a member that stops
// answering turns NotReady only after the failure threshold, then Ready again when it returns;
// the condition's transition time is when its status last changed, on the prober's clock.
#include "clusters/client/cluster_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "clusters/client/join.h"
#include "clusters/client/rest_client.h"
#include "clusters/sim/member_simulator.h"
#include "federation/api/machinery/base64.h"
#include "federation/api/time.h"
#include "federation/storage/sqlite_storage.h"
#include "test/clusters/client/mock_kube_client.h"
#include "test/federation/common/eventually.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::clusters {
namespace {

using fedhpa::testing::eventually;

class ClusterRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    initializeHttpClientPool(4);
    federationServer_ = std::make_unique<apiserver::ApiServer>(storage::SqliteStorage::openInMemory({}),
                                                               api::federationResources(), apiserver::ApiServerOptions{});
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(federationServer_->start());
    federation_ = std::make_unique<RestClient>(config);
    startMember(0);
  }
  void startMember(std::uint16_t port) {
    sim::MemberSimulatorOptions options;
    options.http.port = port;
    member_ = std::make_unique<sim::MemberSimulator>(options);
    memberPort_ = member_->start();
  }
  json readyCondition() {
    for (const auto& condition : federation_->get(kClusters, "", "member1")["status"].value("conditions", json::array()))
      if (condition["type"] == "Ready") return condition;
    return json::object();
  }
  std::string readyStatus() { return readyCondition().value("status", ""); }
  ClientFactory factory() {
    return [](const RestConfig& config) {
      RestClientOptions options;
      options.retry = {1, std::chrono::milliseconds(10), std::chrono::milliseconds(10)};
      options.requestTimeout = std::chrono::seconds(2);
      return std::make_shared<RestClient>(config, options);
    };
  }

  std::unique_ptr<apiserver::ApiServer> federationServer_;
  std::unique_ptr<RestClient> federation_;
  std::unique_ptr<sim::MemberSimulator> member_;
  std::uint16_t memberPort_ = 0;
};

TEST_F(ClusterRegistryTest, JoinedMembersGetClientsAndReadyConditions) {
  std::vector<std::string> changes;
  std::mutex mutex;
  ClusterRegistry registry(*federation_, factory(), [&](const std::string& name) {
    std::lock_guard lock(mutex);
    changes.push_back(name);
  });
  registry.start();
  ASSERT_TRUE(registry.waitForSync(std::chrono::seconds(10)));
  RestConfig member;
  member.server = "http://127.0.0.1:" + std::to_string(memberPort_);
  joinCluster(*federation_, "member1", member);
  ASSERT_TRUE(eventually([&] { return registry.client("member1") != nullptr; }));
  EXPECT_EQ(registry.client("member1")->list({"apps", "v1", "deployments", true}, "default", {})["kind"], "DeploymentList");

  ProberOptions options;
  options.failureThreshold = 2;
  fedhpa::testing::FakeTimeSource time;
  ClusterHealthProber prober(*federation_, registry, time, options);
  prober.probeAll();
  EXPECT_EQ(readyStatus(), "True");
  const std::string readySince = api::formatRfc3339(time.systemTime());
  EXPECT_EQ(readyCondition().value("lastTransitionTime", ""), readySince);

  time.advance(std::chrono::seconds(30));
  prober.probeAll();
  EXPECT_EQ(readyCondition().value("lastTransitionTime", ""), readySince) << "still Ready: no transition";
  EXPECT_EQ(readyCondition().value("lastProbeTime", ""), api::formatRfc3339(time.systemTime()));

  member_->stop();
  time.advance(std::chrono::seconds(30));
  prober.probeAll();
  EXPECT_EQ(readyStatus(), "True") << "one failed probe is not enough";
  EXPECT_EQ(readyCondition().value("lastTransitionTime", ""), readySince);
  time.advance(std::chrono::seconds(30));
  prober.probeAll();
  EXPECT_EQ(readyStatus(), "False");
  EXPECT_EQ(readyCondition().value("lastTransitionTime", ""), api::formatRfc3339(time.systemTime()));

  startMember(memberPort_);
  prober.probeAll();
  EXPECT_EQ(readyStatus(), "True");

  unjoinCluster(*federation_, "member1");
  EXPECT_TRUE(eventually([&] { return registry.client("member1") == nullptr; }));
  std::lock_guard lock(mutex);
  EXPECT_THAT(changes, ::testing::Contains("member1"));
}

// The summary the controller-manager reads on every reconcile follows the Cluster: decoded once
// per version (the same object until the Cluster changes), new labels and the Ready condition
// once the informer delivers them, gone with the Cluster.
TEST_F(ClusterRegistryTest, TheSummaryOfAClusterFollowsItsVersions) {
  ClusterRegistry registry(*federation_, factory());
  registry.start();
  ASSERT_TRUE(registry.waitForSync(std::chrono::seconds(10)));
  EXPECT_EQ(registry.summary("member1"), nullptr);
  RestConfig member;
  member.server = "http://127.0.0.1:" + std::to_string(memberPort_);
  joinCluster(*federation_, "member1", member);
  ASSERT_TRUE(eventually([&] { return registry.summary("member1") != nullptr; }));
  const auto joined = registry.summary("member1");
  EXPECT_EQ(joined->name, "member1");
  EXPECT_FALSE(joined->ready) << "not probed yet";
  EXPECT_EQ(registry.summary("member1"), joined) << "an unchanged Cluster is not decoded again";

  federation_->mergePatch(kClusters, "", "member1", {{"metadata", {{"labels", {{"region", "eu"}, {"zone", "a"}}}}}});
  ASSERT_TRUE(eventually([&] { return registry.summary("member1")->labels.count("region") > 0; }));
  const auto labelled = registry.summary("member1");
  EXPECT_EQ(labelled->labels, (std::map<std::string, std::string>{{"region", "eu"}, {"zone", "a"}}));
  EXPECT_NE(labelled->resourceVersion, joined->resourceVersion);
  EXPECT_TRUE(joined->labels.empty()) << "a reader's summary is never changed under it";

  fedhpa::testing::FakeTimeSource time;
  ClusterHealthProber prober(*federation_, registry, time);
  prober.probeAll();
  ASSERT_TRUE(eventually([&] { return registry.summary("member1")->ready.has_value(); }));
  const auto probed = registry.summary("member1");
  EXPECT_TRUE(probed->ready->status);
  EXPECT_EQ(probed->ready->lastTransitionTime, api::formatRfc3339(time.systemTime()));
  EXPECT_EQ(probed->labels.at("zone"), "a");

  unjoinCluster(*federation_, "member1");
  EXPECT_TRUE(eventually([&] { return registry.summary("member1") == nullptr; }));
}

// What the controller-manager knows of a member rides on the probe's own status write: the round
// trip (on the prober's clock), the placed HPAs and the circuit breaker, one write per probe
// whatever changed; what is not known any more is removed.
TEST_F(ClusterRegistryTest, TheProbeWritesItsRoundTripAndTheControllersReportInItsOneWrite) {
  fedhpa::testing::FakeTimeSource time;
  auto member = std::make_shared<::testing::NiceMock<testing::MockKubeClient>>();
  std::atomic<bool> answering{true};
  ON_CALL(*member, probe("/readyz")).WillByDefault([&](const std::string&) {
    time.advance(std::chrono::milliseconds(37));
    if (!answering) throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "connection refused");
    return 200;
  });
  ClusterRegistry registry(*federation_, [member](const RestConfig&) { return member; });
  registry.start();
  ASSERT_TRUE(registry.waitForSync(std::chrono::seconds(10)));
  RestConfig address;
  address.server = "http://127.0.0.1:" + std::to_string(memberPort_);
  joinCluster(*federation_, "member1", address);
  ASSERT_TRUE(eventually([&] { return registry.client("member1") != nullptr; }));

  std::mutex mutex;
  MemberReport report{4, "Closed"};
  ProberOptions options;
  options.report = [&](const std::string& cluster) {
    EXPECT_EQ(cluster, "member1");
    std::lock_guard lock(mutex);
    return report;
  };
  ClusterHealthProber prober(*federation_, registry, time, options);
  const auto status = [&] { return federation_->get(kClusters, "", "member1")["status"]; };
  const auto revision = [&] { return std::stoll(federation_->get(kClusters, "", "member1")["metadata"].value("resourceVersion", "0")); };
  prober.probeAll();
  EXPECT_EQ(status().value("probeRoundTripMilliseconds", -1), 37);
  EXPECT_EQ(status().value("placedHPAs", -1), 4);
  EXPECT_EQ(status().value("circuitBreakerState", ""), "Closed");

  const auto before = revision();
  {
    std::lock_guard lock(mutex);
    report = {5, "Open"};
  }
  prober.probeAll();
  EXPECT_EQ(revision() - before, 1) << "one write for the probe, the new figures included";
  EXPECT_EQ(status().value("placedHPAs", -1), 5);
  EXPECT_EQ(status().value("circuitBreakerState", ""), "Open");

  answering = false;
  {
    std::lock_guard lock(mutex);
    report = {std::nullopt, "HalfOpen"};
  }
  prober.probeAll();
  EXPECT_FALSE(status().contains("probeRoundTripMilliseconds")) << "no answer, no round trip: " << status().dump();
  EXPECT_FALSE(status().contains("placedHPAs")) << "the caches no longer know";
  EXPECT_EQ(status().value("circuitBreakerState", ""), "HalfOpen");
}

// A member that stops answering mid-request costs its own probe the timeout and nobody else's:
// the member that answers is marked Ready while the frozen one's probe still waits.
TEST_F(ClusterRegistryTest, AFrozenMemberDoesNotDelayTheOthersReadyCondition) {
  ClusterRegistry registry(*federation_, [](const RestConfig& config) {
    RestClientOptions options;
    options.retry = {1, std::chrono::milliseconds(10), std::chrono::milliseconds(10)};
    options.requestTimeout = std::chrono::seconds(5);
    return std::make_shared<RestClient>(config, options);
  });
  registry.start();
  ASSERT_TRUE(registry.waitForSync(std::chrono::seconds(10)));
  sim::MemberSimulator live(sim::MemberSimulatorOptions{});
  RestConfig frozenMember, liveMember;
  frozenMember.server = "http://127.0.0.1:" + std::to_string(memberPort_);
  liveMember.server = "http://127.0.0.1:" + std::to_string(live.start());
  joinCluster(*federation_, "member1", frozenMember);  // probed first, were probes one after another
  joinCluster(*federation_, "member2", liveMember);
  ASSERT_TRUE(eventually([&] { return registry.client("member1") && registry.client("member2"); }));
  member_->freeze();

  RealTimeSource time;
  ClusterHealthProber prober(*federation_, registry, time, ProberOptions{});
  std::thread round([&] { prober.probeAll(); });
  const auto conditionsOf = [&](const std::string& name) {
    return federation_->get(kClusters, "", name).value("status", json::object()).value("conditions", json::array());
  };
  const bool liveReady = eventually([&] { return !conditionsOf("member2").empty(); });
  const json frozenConditions = conditionsOf("member1");
  member_->unfreeze();
  round.join();
  ASSERT_TRUE(liveReady);
  EXPECT_EQ(conditionsOf("member2")[0].value("status", ""), "True");
  EXPECT_TRUE(frozenConditions.empty()) << "member2 waited for member1's probe: " << frozenConditions.dump();
}

// A Cluster whose address no client can be built for (no scheme: the Cluster API takes any
// non-empty string) is left without a client, with a warning; the members after it in the cache
// still get theirs.
TEST_F(ClusterRegistryTest, AMemberWithAnUnusableAddressKeepsNoOtherFromItsClient) {
  RestConfig unusable, member;
  unusable.server = "10.0.0.1:6443";
  member.server = "http://127.0.0.1:" + std::to_string(memberPort_);
  joinCluster(*federation_, "a-unusable", unusable);
  joinCluster(*federation_, "b-member", member);
  ClusterRegistry registry(*federation_, factory());
  registry.start();
  ASSERT_TRUE(registry.waitForSync(std::chrono::seconds(10)));
  ASSERT_TRUE(eventually([&] { return registry.client("b-member") != nullptr; }));
  EXPECT_EQ(registry.client("a-unusable"), nullptr);
  EXPECT_THAT(registry.names(), ::testing::ElementsAre("b-member"));
}

TEST_F(ClusterRegistryTest, TheSecretHoldsAFlattenedKubeconfig) {
  RestConfig member;
  member.server = "https://10.0.0.1:6443";
  member.caPem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  member.bearerToken = "t0ken";
  const RestConfig back = parseKubeconfig(flattenedKubeconfig("member1", member), "secret").resolve();
  EXPECT_EQ(back.server, member.server);
  EXPECT_EQ(back.caPem, member.caPem);
  EXPECT_EQ(back.bearerToken, "t0ken");
  joinCluster(*federation_, "member9", member);
  // A re-join is idempotent and replaces the stored credential.
  member.bearerToken = "n3w";
  joinCluster(*federation_, "member9", member);
  const json secret = federation_->get(kSecrets, kFederationNamespace, "member9");
  EXPECT_EQ(memberRestConfig(federation_->get(kClusters, "", "member9"), secret).bearerToken, "n3w");
  unjoinCluster(*federation_, "member9");
  EXPECT_THROW(unjoinCluster(*federation_, "member9"), ClientError);
}

// The controller's client of a member whose token was rotated (the Secret rewritten) before the
// registry saw the new Secret: the member's 401 makes it read the Secret again and send the
// request once more with the token it holds now.
TEST_F(ClusterRegistryTest, AMembersClientRereadsItsSecretAfterA401) {
  const auto tokens = std::filesystem::temp_directory_path() / ("fedhpa-registry-tokens-" + std::to_string(::getpid()));
  std::ofstream(tokens) << "new-token,fedhpa-member,uid-1\n";
  sim::MemberSimulatorOptions options;
  options.http.tokenAuthFile = tokens.string();
  member_ = std::make_unique<sim::MemberSimulator>(options);
  memberPort_ = member_->start();
  RestConfig member;
  member.server = "http://127.0.0.1:" + std::to_string(memberPort_);
  member.bearerToken = "old-token";
  joinCluster(*federation_, "member1", member);
  const json cluster = federation_->get(kClusters, "", "member1");
  const Credential old{"old-token", "", ""};
  // Rotated: the Secret now holds the token the member accepts.
  member.bearerToken = "new-token";
  json secret = federation_->get(kSecrets, kFederationNamespace, "member1");
  secret["data"][kKubeconfigSecretKey] = api::machinery::encodeBase64(flattenedKubeconfig("member1", member));
  federation_->update(kSecrets, secret);

  RestConfig stale = memberRestConfig(cluster, federation_->get(kSecrets, kFederationNamespace, "member1"));
  stale.credentials = std::make_shared<SecretCredentials>(*federation_, cluster, "member1", old);
  RestClient client(stale, {});
  EXPECT_EQ(client.list({"apps", "v1", "deployments", true}, "default", {})["kind"], "DeploymentList");
  EXPECT_EQ(stale.credentials->current().bearerToken, "new-token");
  EXPECT_FALSE(stale.credentials->rejected(stale.credentials->current())) << "the Secret has nothing newer: the 401 stands";
  std::filesystem::remove(tokens);
}

}  // namespace
}  // namespace fedhpa::clusters
