// One conformance suite for every Storage backend: written against the interface, instantiated
// per backend (SQLite on disk and in memory, and etcd: a real one, started once for the suite),
// and for the watch cache in front of SQLite and of etcd: the cacher must be a Storage like any.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "federation/storage/cacher.h"
#include "federation/storage/etcd_storage.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/storage/etcd_process.h"

namespace fedhpa::storage {
namespace {

using ::testing::ElementsAre;

struct Backend {
  std::string name;
  std::function<std::unique_ptr<Storage>(const std::filesystem::path& dir, std::size_t historyLimit)> open;
};

// The cacher caches "/r/" (the keys most tests use); other prefixes pass through to the backend.
std::unique_ptr<Storage> cached(std::unique_ptr<Storage> backend, std::size_t historyLimit) {
  static RealTimeSource time;
  CacherOptions options;
  options.resourcePrefixes = {"/r/"};
  options.limits.historySize = historyLimit;
  return std::make_unique<Cacher>(std::move(backend), options, time);
}

// One etcd for the whole suite; each test its own key prefix (etcd's revisions are shared).
testing::EtcdProcess& sharedEtcd() {
  static testing::EtcdProcess etcd("conformance");
  return etcd;
}

std::unique_ptr<Storage> openEtcd(const std::filesystem::path& dir, std::size_t limit) {
  EtcdOptions options;
  options.client.endpoints = {sharedEtcd().clientUrl()};
  options.prefix = "/test" + dir.string();
  options.historyLimit = limit;
  return EtcdStorage::open(options);
}

std::vector<Backend> backends() {
  return {{"SqliteFile",
           [](const std::filesystem::path& dir, std::size_t limit) { return SqliteStorage::open(dir, {limit}); }},
          {"SqliteMemory",
           [](const std::filesystem::path&, std::size_t limit) { return SqliteStorage::openInMemory({limit}); }},
          {"Etcd", openEtcd},
          {"CachedSqliteFile",
           [](const std::filesystem::path& dir, std::size_t limit) {
             return cached(SqliteStorage::open(dir, {limit}), limit);
           }},
          {"CachedEtcd", [](const std::filesystem::path& dir, std::size_t limit) {
             return cached(openEtcd(dir, limit), limit);
           }}};
}

// Collects watch events and lets a test wait for a number of them.
class EventSink {
 public:
  WatchCallback callback() {
    return [this](const WatchEvent& event) {
      std::lock_guard lock(mutex_);
      events_.push_back(event);
      changed_.notify_all();
    };
  }
  std::vector<WatchEvent> waitFor(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return events_.size() >= count; });
    return events_;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return events_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<WatchEvent> events_;
};

std::vector<std::string> keysOf(const ListResult& result) {
  std::vector<std::string> keys;
  for (const auto& kv : result.items) keys.push_back(kv->key);
  return keys;
}

StorageError::Code codeOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const StorageError& error) {
    return error.code();
  }
  ADD_FAILURE() << "no StorageError";
  return StorageError::Code::Unavailable;
}

class StorageConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fedhpa-storage-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage_ = GetParam().open(dir_, 20);
  }
  void TearDown() override {
    storage_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
  std::unique_ptr<Storage> storage_;
};

TEST_P(StorageConformance, CreateGetUpdateRemove) {
  const KeyValue created = storage_->create("/r/a", "one");
  EXPECT_EQ(created.createRevision, created.modRevision);
  EXPECT_EQ(storage_->get("/r/a")->value, "one");
  const KeyValue updated = storage_->update("/r/a", "two", created.modRevision);
  EXPECT_GT(updated.modRevision, created.modRevision);
  EXPECT_EQ(updated.createRevision, created.createRevision);
  const KeyValue removed = storage_->remove("/r/a", updated.modRevision);
  EXPECT_EQ(removed.value, "two");
  EXPECT_GT(removed.modRevision, updated.modRevision);
  EXPECT_FALSE(storage_->get("/r/a"));
  EXPECT_EQ(storage_->currentRevision(), removed.modRevision);
}

TEST_P(StorageConformance, ErrorsHaveTheirCodes) {
  const KeyValue created = storage_->create("/r/a", "one");
  EXPECT_EQ(codeOf([&] { storage_->create("/r/a", "again"); }), StorageError::Code::AlreadyExists);
  EXPECT_EQ(codeOf([&] { storage_->update("/r/a", "x", created.modRevision + 5); }), StorageError::Code::Conflict);
  EXPECT_EQ(codeOf([&] { storage_->remove("/r/a", created.modRevision + 5); }), StorageError::Code::Conflict);
  EXPECT_EQ(codeOf([&] { storage_->update("/r/missing", "x", 1); }), StorageError::Code::NotFound);
  EXPECT_EQ(codeOf([&] { storage_->remove("/r/missing", 1); }), StorageError::Code::NotFound);
  EXPECT_EQ(storage_->get("/r/a")->value, "one") << "failed writes change nothing";
}

TEST_P(StorageConformance, ListsByPrefixInKeyOrderWithPages) {
  for (const char* key : {"/r/ns1/c", "/r/ns1/a", "/r/ns2/b", "/r/ns1/b", "/s/x"}) storage_->create(key, key);
  EXPECT_THAT(keysOf(storage_->list({"/r/ns1/", {}, {}, ""})), ElementsAre("/r/ns1/a", "/r/ns1/b", "/r/ns1/c"));
  const ListResult first = storage_->list({"/r/", {}, 2, ""});
  EXPECT_THAT(keysOf(first), ElementsAre("/r/ns1/a", "/r/ns1/b"));
  EXPECT_TRUE(first.more);
  const ListResult second = storage_->list({"/r/", first.revision, 2, "/r/ns1/b"});
  EXPECT_THAT(keysOf(second), ElementsAre("/r/ns1/c", "/r/ns2/b"));
  EXPECT_FALSE(second.more);
}

TEST_P(StorageConformance, ListAtAnEarlierRevisionShowsThatMoment) {
  const KeyValue a = storage_->create("/r/a", "a1");
  storage_->create("/r/b", "b1");
  const Revision then = storage_->currentRevision();
  storage_->update("/r/a", "a2", a.modRevision);
  storage_->remove("/r/b", storage_->get("/r/b")->modRevision);
  storage_->create("/r/c", "c1");
  const ListResult past = storage_->list({"/r/", then, {}, ""});
  ASSERT_THAT(keysOf(past), ElementsAre("/r/a", "/r/b"));
  EXPECT_EQ(past.items[0]->value, "a1");
  EXPECT_EQ(past.revision, then);
  EXPECT_THAT(keysOf(storage_->list({"/r/", {}, {}, ""})), ElementsAre("/r/a", "/r/c"));
}

TEST_P(StorageConformance, RevisionsOlderThanTheHistoryAreExpired) {
  const Revision start = storage_->currentRevision();
  for (int i = 0; i < 30; ++i) storage_->create("/r/k" + std::to_string(i), "v");  // history keeps 20
  EXPECT_GT(storage_->oldestRevision(), start);
  EXPECT_EQ(codeOf([&] { storage_->list({"/r/", start, {}, ""}); }), StorageError::Code::Expired);
  EXPECT_EQ(codeOf([&] { storage_->watch("/r/", start, [](const WatchEvent&) {}); }), StorageError::Code::Expired);
  EXPECT_NO_THROW(storage_->watch("/r/", storage_->oldestRevision(), [](const WatchEvent&) {}));
  EXPECT_EQ(codeOf([&] { storage_->watch("/r/", storage_->currentRevision() + 100, [](const WatchEvent&) {}); }),
            StorageError::Code::Expired)
      << "a revision the store never reached";
}

TEST_P(StorageConformance, WatchReplaysHistoryThenLiveWithoutGapOrDuplicate) {
  const KeyValue a = storage_->create("/r/a", "1");
  storage_->update("/r/a", "2", a.modRevision);
  storage_->create("/other/x", "ignored");
  EventSink sink;
  auto watch = storage_->watch("/r/", a.modRevision - 1, sink.callback());
  storage_->remove("/r/a", storage_->get("/r/a")->modRevision);
  const auto events = sink.waitFor(3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_TRUE(events[0].created());
  EXPECT_FALSE(events[1].created());
  EXPECT_EQ(events[1].previous->value, "1");
  EXPECT_EQ(events[2].type, WatchEvent::Type::Delete);
  EXPECT_EQ(events[2].kv.value, "2") << "a delete carries the last value";
  for (std::size_t i = 1; i < events.size(); ++i) EXPECT_GT(events[i].kv.modRevision, events[i - 1].kv.modRevision);
}

TEST_P(StorageConformance, ManyWatchersEachSeeEveryEventOnce) {
  std::vector<std::unique_ptr<EventSink>> sinks;
  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < 200; ++i) {
    sinks.push_back(std::make_unique<EventSink>());
    watches.push_back(storage_->watch("/r/", storage_->currentRevision(), sinks.back()->callback()));
  }
  for (int i = 0; i < 5; ++i) storage_->create("/r/" + std::to_string(i), "v");
  for (auto& sink : sinks) EXPECT_EQ(sink->waitFor(5).size(), 5u);
}

TEST_P(StorageConformance, DestroyedWatchGetsNoMoreCallbacks) {
  EventSink sink;
  auto watch = storage_->watch("/r/", storage_->currentRevision(), sink.callback());
  storage_->create("/r/a", "v");
  sink.waitFor(1);
  watch.reset();
  storage_->create("/r/b", "v");
  EventSink later;
  auto probe = storage_->watch("/r/", storage_->currentRevision() - 1, later.callback());
  later.waitFor(1);  // the dispatcher got past /r/b
  EXPECT_EQ(sink.size(), 1u);
}

TEST_P(StorageConformance, WatchMayBeCancelledFromItsOwnCallback) {
  std::unique_ptr<Watch> watch;
  std::mutex mutex;
  std::condition_variable done;
  bool cancelled = false;
  watch = storage_->watch("/r/", storage_->currentRevision(), [&](const WatchEvent&) {
    std::lock_guard lock(mutex);
    watch.reset();
    cancelled = true;
    done.notify_all();
  });
  storage_->create("/r/a", "v");
  std::unique_lock lock(mutex);
  EXPECT_TRUE(done.wait_for(lock, std::chrono::seconds(10), [&] { return cancelled; }));
}

TEST_P(StorageConformance, AWatchWhoseCallbackThrowsEndsAloneAndTheStorageGoesOn) {
  std::atomic<int> failingCalls{0};
  auto failing = storage_->watch("/r/", storage_->currentRevision(), [&](const WatchEvent&) {
    ++failingCalls;
    throw std::runtime_error("an event its watcher cannot decode");
  });
  EventSink sink;
  auto healthy = storage_->watch("/r/", storage_->currentRevision(), sink.callback());
  storage_->create("/r/a", "v");
  storage_->create("/r/b", "v");
  EXPECT_EQ(sink.waitFor(2).size(), 2u) << "the process and the other watch go on";
  // Behind a cache each watcher drains on its own: the failing one may be a moment behind.
  for (int i = 0; i < 100 && !failing->ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(failing->ended());
  EXPECT_FALSE(healthy->ended());
  EXPECT_EQ(storage_->list({"/r/", {}, {}, ""}).items.size(), 2u);
  failing.reset();
  EXPECT_EQ(failingCalls, 1) << "nothing more is delivered after the failure";
}

TEST_P(StorageConformance, ConcurrentWritersNeverShareARevision) {
  std::vector<std::thread> writers;
  std::mutex mutex;
  std::set<Revision> revisions;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 25; ++i) {
        const Revision revision = storage_->create("/r/" + std::to_string(w) + "-" + std::to_string(i), "v").modRevision;
        std::lock_guard lock(mutex);
        revisions.insert(revision);
      }
    });
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(revisions.size(), 100u);
  EXPECT_EQ(storage_->list({"/r/", {}, {}, ""}).items.size(), 100u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StorageConformance, ::testing::ValuesIn(backends()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace fedhpa::storage
