#include "federation/controller/work_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>
#include <thread>

#include "test/federation/common/fake_time_source.h"

namespace fedhpa::controller {
namespace {

TEST(WorkQueue, AKeyIsQueuedOnceAndNeverHandedOutTwice) {
  RealTimeSource time;
  WorkQueue queue(time);
  queue.add("a");
  queue.add("a");
  queue.add("b");
  EXPECT_EQ(queue.length(), 2u);
  EXPECT_EQ(queue.get(), "a");
  queue.add("a");  // while in flight: back after done()
  EXPECT_EQ(queue.get(), "b");
  EXPECT_EQ(queue.length(), 0u);
  queue.done("a");
  EXPECT_EQ(queue.get(), "a");
}

// Backoff is judged on the queue's clock: a failed key waits until that clock has moved by the
// base delay, twice that after a second failure, never more than the maximum.
TEST(WorkQueue, FailuresComeBackLaterAndLaterOnTheQueuesClock) {
  fedhpa::testing::FakeTimeSource time;
  WorkQueue queue(time, std::chrono::milliseconds(20), std::chrono::milliseconds(50));
  const auto handedOutAfter = [&](std::chrono::milliseconds notBefore) {
    auto key = std::async(std::launch::async, [&] { return queue.get(); });
    time.advance(notBefore - std::chrono::milliseconds(1));
    if (key.wait_for(std::chrono::milliseconds(200)) != std::future_status::timeout) return false;
    time.advance(std::chrono::milliseconds(1));
    const bool handedOut = key.get() == "k";
    queue.done("k");
    return handedOut;
  };
  queue.addRateLimited("k");
  EXPECT_TRUE(handedOutAfter(std::chrono::milliseconds(20)));
  queue.addRateLimited("k");
  EXPECT_TRUE(handedOutAfter(std::chrono::milliseconds(40))) << "a second failure waits twice as long";
  queue.addRateLimited("k");
  EXPECT_TRUE(handedOutAfter(std::chrono::milliseconds(50))) << "never longer than the maximum";
  queue.forget("k");
  queue.addRateLimited("k");
  EXPECT_TRUE(handedOutAfter(std::chrono::milliseconds(20))) << "a success forgets the failures";
}

// A member that answers again: keys that backed off while it did not are handed out at once,
// not when their backoff (here the 30 s maximum) ends, and a failure after that starts again
// from the base delay.
TEST(WorkQueue, RetryNowHandsOutBackedOffKeysAtOnceWithTheirFailuresForgotten) {
  fedhpa::testing::FakeTimeSource time;
  WorkQueue queue(time, std::chrono::milliseconds(100), std::chrono::seconds(30));
  for (int failure = 0; failure < 12; ++failure) queue.addRateLimited("k");  // due in 30 s
  queue.addRateLimited("other");
  queue.add("busy");
  ASSERT_EQ(queue.get(), "busy");
  queue.addRateLimited("busy");  // failed while being reconciled: due later
  EXPECT_EQ(queue.length(), 0u);

  queue.retryNow();  // the fake clock has not moved
  EXPECT_EQ(queue.length(), 2u);
  std::vector<std::string> handedOut = {*queue.get(), *queue.get()};
  std::sort(handedOut.begin(), handedOut.end());
  EXPECT_EQ(handedOut, (std::vector<std::string>{"k", "other"}));
  EXPECT_EQ(queue.length(), 0u) << "a key in flight comes back once done";
  queue.done("busy");
  EXPECT_EQ(queue.get(), "busy");
  queue.done("busy");

  // The failures are forgotten: one more failure waits the base delay, not 30 s.
  queue.done("k");
  queue.addRateLimited("k");
  auto key = std::async(std::launch::async, [&] { return queue.get(); });
  time.advance(std::chrono::milliseconds(100));
  ASSERT_EQ(key.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(key.get(), "k");
}

TEST(WorkQueue, AResyncNeverDelaysAnEvent) {
  RealTimeSource time;
  WorkQueue queue(time);
  for (int i = 0; i < 1000; ++i) queue.addResync("resync-" + std::to_string(i));
  queue.add("changed");
  queue.addResync("changed");  // already waiting as an event: stays up front
  EXPECT_EQ(queue.get(), "changed");
  queue.done("changed");
  EXPECT_EQ(queue.get(), "resync-0");
  queue.done("resync-0");
  queue.add("resync-5");  // an event for a key waiting for its resync moves it up, once
  EXPECT_EQ(queue.get(), "resync-5");
  queue.done("resync-5");
  EXPECT_EQ(queue.length(), 998u);
  for (int i = 1; i < 1000; ++i) {
    if (i == 5) continue;
    const auto key = queue.get();
    ASSERT_EQ(key, "resync-" + std::to_string(i));
    queue.done(*key);
  }
  EXPECT_EQ(queue.length(), 0u);
}

TEST(WorkQueue, ResyncKeysGoToAtMostTheirShareOfWorkers) {
  RealTimeSource time;
  WorkQueue queue(time, std::chrono::milliseconds(100), std::chrono::seconds(30), 2);
  for (int i = 0; i < 10; ++i) queue.addResync("resync-" + std::to_string(i));
  EXPECT_EQ(queue.get(), "resync-0");
  EXPECT_EQ(queue.get(), "resync-1");
  // Two resync keys in flight: a third worker waits, and takes an event at once.
  std::optional<std::string> third;
  std::thread worker([&] { third = queue.get(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  queue.add("changed");
  worker.join();
  EXPECT_EQ(third, "changed");
  // Done with one resync key: the next may go.
  std::optional<std::string> fourth;
  std::thread another([&] { fourth = queue.get(); });
  queue.done("resync-0");
  another.join();
  EXPECT_EQ(fourth, "resync-2");
}

TEST(WorkQueue, ShutDownWakesWorkers) {
  RealTimeSource time;
  WorkQueue queue(time);
  std::thread worker([&] { EXPECT_FALSE(queue.get()); });
  queue.shutDown();
  worker.join();
}

TEST(RunWorker, AFailedKeyComesBackAndTheWorkerEndsWithTheQueue) {
  RealTimeSource time;
  WorkQueue queue(time, std::chrono::milliseconds(10), std::chrono::milliseconds(10));
  std::mutex mutex;
  std::condition_variable reconciled;
  std::vector<std::string> seen;
  std::thread worker([&] {
    runWorker(queue, [&](const std::string& key) {
      std::lock_guard lock(mutex);
      seen.push_back(key);
      reconciled.notify_all();
      if (key == "flaky" && std::count(seen.begin(), seen.end(), "flaky") == 1) throw std::runtime_error("member timed out");
    }, "test");
  });
  queue.add("flaky");
  queue.add("steady");
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(reconciled.wait_for(lock, std::chrono::seconds(10), [&] { return std::count(seen.begin(), seen.end(), "flaky") == 2; }))
        << "the key that failed was not tried again";
  }
  queue.shutDown();
  worker.join();  // returns once the queue is shut down
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "steady"), 1) << "a key that succeeded is not tried again";
}

}  // namespace
}  // namespace fedhpa::controller
