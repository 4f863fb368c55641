// The member-sim's injected latency and freeze, seen from a client on a real socket.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "clusters/sim/member_simulator.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::sim {
namespace {

using apiserver::testing::call;
using apiserver::testing::HttpReply;
using apiserver::testing::WatchConnection;
using std::chrono::milliseconds;
using Stopwatch = std::chrono::steady_clock;

MemberSimulatorOptions withLatency(milliseconds latency) {
  MemberSimulatorOptions options;
  options.hpaSyncPeriod = std::chrono::hours(1);  // no controller traffic during the test
  options.latency = latency;
  return options;
}

milliseconds timedGet(std::uint16_t port, int* status = nullptr) {
  const auto started = Stopwatch::now();
  const HttpReply reply = call(port, "GET", "/api/v1/namespaces/default");
  if (status) *status = reply.status;
  return std::chrono::duration_cast<milliseconds>(Stopwatch::now() - started);
}

TEST(MemberSimLatency, DelaysEveryRequestByTheLatency) {
  constexpr milliseconds kLatency{200};
  MemberSimulator plain(withLatency(milliseconds(0)));
  MemberSimulator slow(withLatency(kLatency));
  const auto plainPort = plain.start();
  const auto slowPort = slow.start();
  int plainStatus = 0;
  int slowStatus = 0;
  const milliseconds plainTrip = timedGet(plainPort, &plainStatus);
  const milliseconds slowTrip = timedGet(slowPort, &slowStatus);
  EXPECT_EQ(plainStatus, 200);
  EXPECT_EQ(slowStatus, 200);
  EXPECT_GE(slowTrip, kLatency);
  RecordProperty("round_trip_ms_without_latency", static_cast<int>(plainTrip.count()));
  RecordProperty("round_trip_ms_with_200ms_latency", static_cast<int>(slowTrip.count()));
}

TEST(MemberSimLatency, WithJitterEveryRequestStillWaitsTheLatency) {
  MemberSimulatorOptions options = withLatency(milliseconds(50));
  options.latencyJitter = milliseconds(100);
  MemberSimulator sim(options);
  const auto port = sim.start();
  for (int i = 0; i < 5; ++i) EXPECT_GE(timedGet(port), milliseconds(50));
}

TEST(MemberSimLatency, ConcurrentRequestsWaitTogetherNotInTurn) {
  // A long latency, so that the bound below leaves a loaded machine seconds to open the connections.
  constexpr milliseconds kLatency{1000};
  constexpr int kRequests = 20;
  MemberSimulator sim(withLatency(kLatency));
  const auto port = sim.start();
  std::vector<std::future<milliseconds>> trips;
  const auto started = Stopwatch::now();
  for (int i = 0; i < kRequests; ++i) trips.push_back(std::async(std::launch::async, [port] { return timedGet(port); }));
  for (auto& trip : trips) EXPECT_GE(trip.get(), kLatency);
  const auto total = std::chrono::duration_cast<milliseconds>(Stopwatch::now() - started);
  // Served one after the other they would take kRequests x kLatency (20 s); together, about 1 s.
  EXPECT_LT(total, kRequests * kLatency / 2);
  RecordProperty("20_concurrent_requests_at_1s_total_ms", static_cast<int>(total.count()));
}

TEST(MemberSimFreeze, AFrozenSimAnswersNothingUntilUnfrozen) {
  MemberSimulator sim(withLatency(milliseconds(0)));
  const auto port = sim.start();
  ASSERT_EQ(call(port, "POST", kFreezePath).status, 200);
  EXPECT_TRUE(sim.frozen());
  auto pending = std::async(std::launch::async, [port] { return call(port, "GET", "/api/v1/namespaces/default"); });
  EXPECT_EQ(pending.wait_for(milliseconds(500)), std::future_status::timeout) << "a frozen sim answered";
  const HttpReply unfrozen = call(port, "POST", kUnfreezePath);  // served while frozen: the way out
  EXPECT_EQ(unfrozen.status, 200);
  EXPECT_EQ(unfrozen.json()["frozen"], false);
  ASSERT_EQ(pending.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(pending.get().status, 200);
  EXPECT_EQ(call(port, "GET", "/api/v1/namespaces/default").status, 200);
}

TEST(MemberSimFreeze, HoldsWatchEventsAndTheApiToo) {
  MemberSimulator sim(withLatency(milliseconds(0)));
  const auto port = sim.start();
  const std::string version = call(port, "GET", "/api/v1/namespaces").json()["metadata"]["resourceVersion"];
  WatchConnection watch(port, "/api/v1/namespaces?watch=true&resourceVersion=" + version);
  ASSERT_EQ(watch.status(), 200);

  sim.freeze();
  sim.server().store("", "namespaces")->create(
      "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "while-frozen"}}}}, false);
  auto event = std::async(std::launch::async, [&watch] { return watch.next(); });
  EXPECT_EQ(event.wait_for(milliseconds(500)), std::future_status::timeout) << "a frozen sim sent a watch event";
  sim.unfreeze();
  ASSERT_EQ(event.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto received = event.get();
  ASSERT_TRUE(received);
  EXPECT_EQ((*received)["type"], "ADDED");
  EXPECT_EQ((*received)["object"]["metadata"]["name"], "while-frozen");
}

TEST(MemberSimFreeze, DebugEndpointsWantPost) {
  MemberSimulator sim(withLatency(milliseconds(0)));
  const auto port = sim.start();
  EXPECT_EQ(call(port, "GET", kFreezePath).status, 405);
  EXPECT_FALSE(sim.frozen());
}

TEST(MemberSimFreeze, StoppingAFrozenSimLetsHeldClientsGo) {
  MemberSimulator sim(withLatency(milliseconds(0)));
  const auto port = sim.start();
  sim.freeze();
  auto pending = std::async(std::launch::async, [port] { return call(port, "GET", "/api/v1/namespaces/default"); });
  std::this_thread::sleep_for(milliseconds(200));  // let the request arrive and be held
  sim.stop();
  ASSERT_EQ(pending.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_NE(pending.get().status, 200);
}

}  // namespace
}  // namespace fedhpa::sim
