// Two candidates on one Lease in a real API server: one leads, the other waits, and takes over
// once the leader stops renewing.
#include "federation/controller/leader_election.h"

#include <gtest/gtest.h>

#include <thread>

#include "clusters/client/rest_client.h"
#include "test/federation/common/fake_time_source.h"
#include "test/federation/controller/fake_api.h"
#include "federation/apiserver/api_server.h"
#include "federation/storage/sqlite_storage.h"

namespace fedhpa::controller {
namespace {

bool within(std::chrono::milliseconds limit, const std::function<bool()>& predicate) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return predicate();
}

TEST(LeaderElection, OneLeadsAndTheOtherTakesOverWhenItStops) {
  clusters::initializeHttpClientPool(4);
  apiserver::ApiServer server(storage::SqliteStorage::openInMemory({}), api::federationResources(), {});
  clusters::RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(server.start());
  clusters::RestClient client(config);
  RealTimeSource time;
  // Real time, so the margins are wide: the leader must miss renewals for 2 s to lose the lease.
  const LeaseTimes times{std::chrono::seconds(3), std::chrono::seconds(2), std::chrono::milliseconds(100)};

  auto first = std::make_unique<LeaderElector>(client, "kube-system", "fedhpa-controller-manager", "first", time, times);
  std::atomic<int> firstStarted{0};
  first->start([&] { ++firstStarted; }, {});
  ASSERT_TRUE(within(std::chrono::seconds(5), [&] { return first->leading(); }));

  LeaderElector second(client, "kube-system", "fedhpa-controller-manager", "second", time, times);
  std::atomic<bool> secondStarted{false};
  second.start([&] { secondStarted = true; }, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(second.leading()) << "the lease is renewed, so it stays with the first";
  EXPECT_EQ(firstStarted, 1);

  first.reset();  // the leader dies without releasing the lease
  EXPECT_TRUE(within(std::chrono::seconds(15), [&] { return second.leading(); }));
  EXPECT_TRUE(secondStarted);
  const auto lease = client.get({"coordination.k8s.io", "v1", "leases", true}, "kube-system", "fedhpa-controller-manager");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "second");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
}

const clusters::Resource kLeases{"coordination.k8s.io", "v1", "leases", true};

clusters::json leaseHeldBy(const std::string& holder, const std::string& renewTime) {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", "fedhpa-controller-manager"}, {"namespace", "kube-system"}}},
          {"spec", {{"holderIdentity", holder}, {"leaseDurationSeconds", 15}, {"renewTime", renewTime}, {"leaseTransitions", 0}}}};
}

// The holder's clock is an hour behind this candidate's: by renewTime the lease looks long
// expired, yet the holder keeps renewing it. client-go goes by what it observes, and so must we.
TEST(LeaderElection, ACandidateJudgesTheHolderByItsOwnClockNotTheRenewTimeWritten) {
  testing::FakeApi api;
  fedhpa::testing::FakeTimeSource time;
  LeaderElector candidate(api, "kube-system", "fedhpa-controller-manager", "candidate", time);
  for (int renewal = 0; renewal < 20; ++renewal) {
    api.put(kLeases, leaseHeldBy("holder", "2020-01-01T00:00:0" + std::to_string(renewal % 10) + ".000000Z"));
    EXPECT_FALSE(candidate.tryAcquireOrRenew()) << "renewal " << renewal;
    time.advance(std::chrono::seconds(2));
  }
}

TEST(LeaderElection, ALeaseNobodyRenewsIsTakenAfterTheDurationOnTheCandidatesClock) {
  testing::FakeApi api;
  fedhpa::testing::FakeTimeSource time;
  api.put(kLeases, leaseHeldBy("holder", "2099-01-01T00:00:00.000000Z"));  // renewTime in the future
  LeaderElector candidate(api, "kube-system", "fedhpa-controller-manager", "candidate", time);
  EXPECT_FALSE(candidate.tryAcquireOrRenew());  // first seen now
  time.advance(std::chrono::seconds(14));
  EXPECT_FALSE(candidate.tryAcquireOrRenew());
  time.advance(std::chrono::seconds(1));
  EXPECT_TRUE(candidate.tryAcquireOrRenew());
  const auto lease = api.peek(kLeases, "kube-system", "fedhpa-controller-manager");
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "candidate");
  EXPECT_EQ((*lease)["spec"]["leaseTransitions"], 1);
}

// A leader whose renewals fail stops leading once the renew deadline has passed on its clock,
// which is before the lease duration after its last renewal, when another may take over.
TEST(LeaderElection, ALeaderThatCannotRenewStopsBeforeTheLeaseCanExpire) {
  testing::FakeApi api;
  fedhpa::testing::FakeTimeSource time;
  const LeaseTimes times{std::chrono::seconds(15), std::chrono::seconds(10), std::chrono::milliseconds(20)};
  LeaderElector leader(api, "kube-system", "fedhpa-controller-manager", "leader", time, times);
  std::atomic<bool> started{false}, stopped{false};
  leader.start([&] { started = true; }, [&] { stopped = true; });
  ASSERT_TRUE(within(std::chrono::seconds(5), [&] { return started.load(); }));
  api.reachable = false;
  time.advance(std::chrono::seconds(9));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(stopped) << "within the renew deadline";
  EXPECT_TRUE(leader.leading());
  time.advance(std::chrono::seconds(1));
  EXPECT_TRUE(within(std::chrono::seconds(5), [&] { return stopped.load(); }));
  EXPECT_FALSE(leader.leading());
}

}  // namespace
}  // namespace fedhpa::controller
