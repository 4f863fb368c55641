// Two candidates on one Lease in a real API server: one leads, the other waits, and takes over
// once the leader stops renewing.
#include "federation/controller/leader_election.h"

#include <gtest/gtest.h>

#include <thread>

#include "clusters/client/rest_client.h"
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
  const LeaseTimes times{std::chrono::seconds(1), std::chrono::milliseconds(800), std::chrono::milliseconds(100)};

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
  EXPECT_TRUE(within(std::chrono::seconds(5), [&] { return second.leading(); }));
  EXPECT_TRUE(secondStarted);
  const auto lease = client.get({"coordination.k8s.io", "v1", "leases", true}, "kube-system", "fedhpa-controller-manager");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "second");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
}

}  // namespace
}  // namespace fedhpa::controller
