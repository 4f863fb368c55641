// StatusWriter: a reconcile's status write goes out off its thread; writes of one key coalesce
// (the newest waiting one wins), never run at once, and one submitted while its key's write is
// under way goes out after it; a failed write sends its key back, a NotFound does not.
#include "federation/controller/status_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>

#include "clusters/client/kube_client.h"

namespace fedhpa::controller {
namespace {

using clusters::ClientError;

struct Retries {
  std::mutex mutex;
  std::vector<std::string> keys;
  void add(const std::string& key) {
    std::lock_guard lock(mutex);
    keys.push_back(key);
  }
};

TEST(StatusWriterTest, AWaitingWriteIsReplacedByANewerOneOfTheSameKey) {
  Retries retries;
  StatusWriter writer(1, [&](const std::string& key) { retries.add(key); });
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  writer.submit("blocker", [&] { started.set_value(); released.wait(); });
  started.get_future().wait();  // the one thread is busy: what follows waits
  std::vector<std::string> written;
  std::mutex mutex;
  auto record = [&](std::string what) {
    return [&, what] {
      std::lock_guard lock(mutex);
      written.push_back(what);
    };
  };
  writer.submit("a", record("a1"));
  writer.submit("b", record("b1"));
  writer.submit("a", record("a2"));
  release.set_value();
  writer.waitUntilIdle();
  EXPECT_EQ(written, (std::vector<std::string>{"a2", "b1"})) << "a keeps its place in line; its newest write goes out";
  EXPECT_TRUE(retries.keys.empty());
}

TEST(StatusWriterTest, AKeysWritesNeverRunAtOnceAndALaterOneFollows) {
  StatusWriter writer(4, nullptr);
  std::atomic<int> running{0}, most{0}, runs{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  writer.submit("a", [&] {
    most = std::max(most.load(), ++running);
    started.set_value();
    released.wait();
    --running;
    ++runs;
  });
  started.get_future().wait();
  writer.submit("a", [&] {  // under way: this one waits for it, though three threads are free
    most = std::max(most.load(), ++running);
    --running;
    ++runs;
  });
  release.set_value();
  writer.waitUntilIdle();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(most, 1);
}

TEST(StatusWriterTest, AFailedWriteSendsItsKeyBackButAVanishedObjectDoesNot) {
  Retries retries;
  StatusWriter writer(2, [&](const std::string& key) { retries.add(key); });
  writer.submit("conflict", [] { throw ClientError(ClientError::Kind::Conflict, 409, "Conflict", "modified"); });
  writer.submit("gone", [] { throw ClientError(ClientError::Kind::NotFound, 404, "NotFound", "not found"); });
  writer.submit("fine", [] {});
  writer.waitUntilIdle();
  std::lock_guard lock(retries.mutex);
  EXPECT_EQ(retries.keys, std::vector<std::string>{"conflict"});
}

TEST(StatusWriterTest, StopDropsWhatWaits) {
  StatusWriter writer(1, nullptr);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::atomic<bool> laterRan{false};
  writer.submit("a", [&] { started.set_value(); released.wait(); });
  started.get_future().wait();
  writer.submit("b", [&] { laterRan = true; });
  auto stopped = std::async(std::launch::async, [&] { writer.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  release.set_value();
  stopped.get();
  EXPECT_FALSE(laterRan);
  writer.submit("c", [&] { laterRan = true; });  // after stop: dropped
  EXPECT_FALSE(laterRan);
}

}  // namespace
}  // namespace fedhpa::controller
