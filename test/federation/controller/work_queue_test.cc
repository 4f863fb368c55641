#include "federation/controller/work_queue.h"

#include <gtest/gtest.h>

namespace fedhpa::controller {
namespace {

TEST(WorkQueue, AKeyIsQueuedOnceAndNeverHandedOutTwice) {
  WorkQueue queue;
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

TEST(WorkQueue, FailuresComeBackLater) {
  WorkQueue queue(std::chrono::milliseconds(20), std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  queue.addRateLimited("k");
  EXPECT_EQ(queue.get(), "k");
  queue.done("k");
  queue.addRateLimited("k");  // second failure: twice the delay
  EXPECT_EQ(queue.get(), "k");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));
}

TEST(WorkQueue, ShutDownWakesWorkers) {
  WorkQueue queue;
  std::thread worker([&] { EXPECT_FALSE(queue.get()); });
  queue.shutDown();
  worker.join();
}

}  // namespace
}  // namespace fedhpa::controller
