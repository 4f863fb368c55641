// The runtime every controller runs on: no worker before the caches have synced, every key
// reconciled, tickers that enqueue, and a stop that ends it all even while it is still waiting.
#include "federation/controller/controller_runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "test/federation/common/eventually.h"

namespace fedhpa::controller {
namespace {

using fedhpa::testing::eventually;

TEST(ControllerRuntime, WorkersStartOnlyOnceSyncedAndReconcileEveryKey) {
  RealTimeSource time;
  WorkQueue queue(time);
  std::atomic<bool> synced{false};
  std::mutex mutex;
  std::set<std::string> reconciled;
  ControllerRuntime* self = nullptr;
  ControllerRuntime runtime(
      "test",
      [&] {
        // Waits as long as the caches take, as the real wait does: a deadline here would make
        // the test depend on how fast a loaded machine gets from start() to `synced = true`.
        while (!synced && !self->stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return synced.load();
      },
      {{"Thing", &queue, [&](const std::string& key) {
          std::lock_guard lock(mutex);
          reconciled.insert(key);
        }, 2}},
      {});
  self = &runtime;
  queue.add("a");
  queue.add("b");
  runtime.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(runtime.workersStarted());
  {
    std::lock_guard lock(mutex);
    EXPECT_TRUE(reconciled.empty()) << "a worker ran before the caches had synced";
  }
  synced = true;
  EXPECT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return reconciled == std::set<std::string>{"a", "b"};
  }));
  EXPECT_TRUE(runtime.workersStarted());
  runtime.stop();
  EXPECT_EQ(queue.get(), std::nullopt) << "stop shuts the queue down";
}

TEST(ControllerRuntime, TickersEnqueueEveryPeriodUntilStopped) {
  RealTimeSource time;
  WorkQueue queue(time);
  std::atomic<int> ticks{0};
  std::atomic<int> reconciles{0};
  ControllerRuntime runtime("test", [] { return true; }, {{"Thing", &queue, [&](const std::string&) { ++reconciles; }}},
                            {{std::chrono::milliseconds(20), [&] {
                                ++ticks;
                                queue.addResync("everything");
                              }}});
  runtime.start();
  EXPECT_TRUE(eventually([&] { return reconciles >= 3; }));
  runtime.stop();
  const int ticksAtStop = ticks;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(ticks, ticksAtStop) << "a ticker outlived stop()";
}

// What the health prober's owner does when a member joins: that ticker's round now, not an hour
// later; asked before the caches synced, once they have; the other tickers keep their periods.
TEST(ControllerRuntime, ATickerAskedToTickSoonTicksWithoutWaitingForItsPeriod) {
  std::atomic<bool> synced{false};
  std::atomic<int> resyncs{0};
  std::atomic<int> probes{0};
  const auto hour = std::chrono::hours(1);
  ControllerRuntime* self = nullptr;
  ControllerRuntime runtime(
      "test",
      [&] {
        while (!synced && !self->stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return !self->stopping();
      },
      {}, {{hour, [&] { ++resyncs; }}, {hour, [&] { ++probes; }}});
  self = &runtime;
  runtime.tickSoon(1);
  runtime.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(probes, 0) << "a tick before the caches synced";
  synced = true;
  EXPECT_TRUE(eventually([&] { return probes == 1; })) << "asked before the start, it ticks once started";
  runtime.tickSoon(1);
  EXPECT_TRUE(eventually([&] { return probes == 2; }));
  runtime.stop();
  EXPECT_EQ(probes, 2);
  EXPECT_EQ(resyncs, 0) << "only the ticker asked ticks before its period";
}

TEST(ControllerRuntime, StopEndsAWaitForCachesThatNeverSync) {
  RealTimeSource time;
  WorkQueue queue(time);
  std::atomic<bool> gaveUp{false};
  ControllerRuntime* self = nullptr;
  ControllerRuntime runtime(
      "test",
      [&] {
        while (!self->stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        gaveUp = true;
        return false;
      },
      {{"Thing", &queue, [](const std::string&) {}}}, {});
  self = &runtime;
  runtime.start();
  runtime.stop();
  EXPECT_TRUE(gaveUp);
  EXPECT_FALSE(runtime.workersStarted());
}

}  // namespace
}  // namespace fedhpa::controller
