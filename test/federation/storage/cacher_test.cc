// The cacher over a real SQLite store: lists served from memory, watchers that fall behind closed
// without holding up the others, and resuming after that.
#include "federation/storage/cacher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "federation/storage/sqlite_storage.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::storage {
namespace {

// SQLite, counting the lists that reach it; its watches can be ended as an etcd watch ends when its
// stream broke and the history it would resume from was compacted: silent, ended() true; and their
// events can be held back, as a watch stream that lags behind the writes.
class CountingStorage final : public Storage {
 public:
  explicit CountingStorage(std::atomic<int>& lists) : backend_(SqliteStorage::openInMemory({})), lists_(lists) {}
  Storage& backend() { return *backend_; }
  void endWatches() { *watchesEnded_ = true; }
  void holdEvents() {
    std::lock_guard lock(held_->mutex);
    held_->holding = true;
  }
  // Delivers what was held back, on the calling thread, and delivers at once from then on.
  void releaseEvents() {
    std::unique_lock lock(held_->mutex);
    held_->holding = false;
    auto events = std::move(held_->events);
    lock.unlock();
    for (const auto& [event, deliver] : events) deliver(event);
  }
  std::optional<KeyValue> get(const std::string& key) override { return backend_->get(key); }
  ListResult list(const ListOptions& options) override {
    ++lists_;
    return backend_->list(options);
  }
  KeyValue create(const std::string& key, const std::string& value) override { return backend_->create(key, value); }
  KeyValue update(const std::string& key, const std::string& value, Revision expected) override {
    return backend_->update(key, value, expected);
  }
  KeyValue remove(const std::string& key, Revision expected) override { return backend_->remove(key, expected); }
  std::unique_ptr<Watch> watch(const std::string& prefix, Revision after, WatchCallback onEvent) override {
    auto ended = std::make_shared<std::atomic<bool>>(false);
    watchesEnded_ = ended;
    return std::make_unique<EndableWatch>(
        backend_->watch(prefix, after, [ended, held = held_, onEvent = std::move(onEvent)](const WatchEvent& event) {
          if (*ended) return;
          {
            std::lock_guard lock(held->mutex);
            if (held->holding) {
              held->events.emplace_back(event, onEvent);
              return;
            }
          }
          onEvent(event);
        }),
        ended);
  }
  Revision currentRevision() override { return backend_->currentRevision(); }
  Revision oldestRevision() override { return backend_->oldestRevision(); }

 private:
  class EndableWatch final : public Watch {
   public:
    EndableWatch(std::unique_ptr<Watch> inner, std::shared_ptr<std::atomic<bool>> ended)
        : inner_(std::move(inner)), ended_(std::move(ended)) {}
    bool ended() const override { return *ended_; }

   private:
    std::unique_ptr<Watch> inner_;
    std::shared_ptr<std::atomic<bool>> ended_;
  };

  struct Held {
    std::mutex mutex;
    bool holding = false;
    std::vector<std::pair<WatchEvent, WatchCallback>> events;
  };

  std::unique_ptr<Storage> backend_;
  std::shared_ptr<Held> held_ = std::make_shared<Held>();
  std::atomic<int>& lists_;
  std::shared_ptr<std::atomic<bool>> watchesEnded_;  // the latest watch's (the cacher has one prefix)
};

class EventCounter {
 public:
  WatchCallback callback() {
    return [this](const WatchEvent& event) {
      std::lock_guard lock(mutex_);
      revisions_.push_back(event.kv.modRevision);
      changed_.notify_all();
    };
  }
  std::vector<Revision> waitFor(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return revisions_.size() >= count; });
    return revisions_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Revision> revisions_;
};

class CacherTest : public ::testing::Test {
 protected:
  std::unique_ptr<Cacher> makeCacher(std::size_t watcherQueueLimit = 1000,
                                     std::chrono::seconds applyWait = std::chrono::seconds(10)) {
    CacherOptions options;
    options.resourcePrefixes = {"/r/"};
    options.watcherQueueLimit = watcherQueueLimit;
    options.applyWait = applyWait;
    auto backend = std::make_unique<CountingStorage>(backendLists_);
    backend_ = backend.get();
    return std::make_unique<Cacher>(std::move(backend), options, time_);
  }
  std::atomic<int> backendLists_{0};
  CountingStorage* backend_ = nullptr;
  fedhpa::testing::FakeTimeSource time_;
};

TEST_F(CacherTest, ListsAndContinuePagesComeFromMemory) {
  auto cacher = makeCacher();
  for (int i = 0; i < 50; ++i) cacher->create("/r/" + std::to_string(100 + i), "v");
  const int listsAtStart = backendLists_;
  ListResult page = cacher->list({"/r/", {}, 20, ""});
  std::size_t seen = page.items.size();
  std::size_t writtenMeanwhile = 0;
  while (page.more) {
    cacher->create("/r/0-written-meanwhile-" + std::to_string(++writtenMeanwhile), "v");
    page = cacher->list({"/r/", page.revision, 20, page.items.back()->key});
    seen += page.items.size();
  }
  EXPECT_EQ(seen, 50u) << "the pages read the first page's moment";
  EXPECT_EQ(writtenMeanwhile, 2u);
  EXPECT_EQ(cacher->list({"/r/", {}, {}, ""}).items.size(), 52u) << "and a new list reads now";
  EXPECT_EQ(backendLists_, listsAtStart) << "no list reached the storage";
  cacher->list({"/other/", {}, {}, ""});
  EXPECT_EQ(backendLists_, listsAtStart + 1) << "an uncached prefix passes through";
}

TEST_F(CacherTest, AWatcherThatFallsBehindIsClosedAndTheOthersGoOn) {
  auto cacher = makeCacher(5);
  const Revision start = cacher->currentRevision();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> slowSeen{0};
  Revision slowLast = 0;
  auto slow = cacher->watch("/r/", start, [&](const WatchEvent& event) {
    slowLast = event.kv.modRevision;
    ++slowSeen;
    released.wait();  // a client that stopped reading
  });
  EventCounter fast;
  auto fastWatch = cacher->watch("/r/", start, fast.callback());
  for (std::size_t i = 0; i < 20; ++i) {
    cacher->create("/r/" + std::to_string(i), "v");
    // One at a time, so that the fast watcher never has 5 waiting, however loaded the machine.
    ASSERT_EQ(fast.waitFor(i + 1).size(), i + 1) << "the slow watcher holds nothing up";
  }
  EXPECT_TRUE(slow->ended()) << "20 events behind with room for 5";
  EXPECT_FALSE(fastWatch->ended());
  release.set_value();
  cacher->create("/r/after", "v");
  EXPECT_EQ(fast.waitFor(21).size(), 21u);
  slow.reset();
  EXPECT_EQ(slowSeen, 1) << "nothing more is delivered to a closed watcher";
  EventCounter resumed;
  auto again = cacher->watch("/r/", slowLast, resumed.callback());
  EXPECT_EQ(resumed.waitFor(20).size(), 20u) << "it resumes from the last event it saw";
}

TEST_F(CacherTest, AWatcherWhoseCallbackThrowsIsClosedAndTheOthersGoOn) {
  auto cacher = makeCacher();
  const Revision start = cacher->currentRevision();
  std::atomic<int> failingCalls{0};
  auto failing = cacher->watch("/r/", start, [&](const WatchEvent&) {
    ++failingCalls;
    throw std::runtime_error("an event its watcher cannot decode");
  });
  EventCounter healthy;
  auto healthyWatch = cacher->watch("/r/", start, healthy.callback());
  cacher->create("/r/a", "v");
  cacher->create("/r/b", "v");
  EXPECT_EQ(healthy.waitFor(2).size(), 2u) << "the process and the other watcher go on";
  // Each watcher drains on its own: the failing one may be a moment behind the healthy one.
  for (int i = 0; i < 100 && !failing->ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(failing->ended());
  EXPECT_FALSE(healthyWatch->ended());
  cacher->create("/r/c", "v");
  EXPECT_EQ(healthy.waitFor(3).size(), 3u);
  EXPECT_EQ(cacher->list({"/r/", {}, {}, ""}).items.size(), 3u) << "the cache keeps serving";
  failing.reset();
  EXPECT_EQ(failingCalls, 1) << "nothing more is delivered after the failure";
}

TEST_F(CacherTest, AWatchBeforeTheWindowIsExpired) {
  auto cacher = makeCacher();
  const Revision start = cacher->currentRevision();
  cacher->create("/r/a", "v");
  cacher->list({"/r/", {}, {}, ""});  // returns once the cache has applied the create
  time_.advance(std::chrono::seconds(301));  // older than the default history age
  cacher->create("/r/b", "v");
  try {
    cacher->watch("/r/", start, [](const WatchEvent&) {});
    FAIL() << "no Expired";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), StorageError::Code::Expired);
  }
  EventCounter events;
  auto watch = cacher->watch("/r/", start + 1, events.callback());
  EXPECT_EQ(events.waitFor(1).size(), 1u);
}

TEST_F(CacherTest, WhenItsStorageWatchEndsTheCacheListsAgainAndItsWatchersEnd) {
  auto cacher = makeCacher();
  cacher->create("/r/a", "v");
  EventCounter events;
  auto watch = cacher->watch("/r/", cacher->currentRevision(), events.callback());
  backend_->endWatches();
  backend_->backend().create("/r/missed", "v");  // the ended storage watch does not deliver it
  EXPECT_TRUE(watch->ended()) << "its watcher must list again: the cache missed events";
  const int listsBefore = backendLists_;
  EXPECT_EQ(cacher->list({"/r/", {}, {}, ""}).items.size(), 2u) << "the cache listed the storage again";
  EXPECT_EQ(backendLists_, listsBefore + 1);
  EventCounter after;
  auto again = cacher->watch("/r/", cacher->currentRevision(), after.callback());
  EXPECT_FALSE(again->ended());
  cacher->create("/r/b", "v");
  EXPECT_EQ(after.waitFor(1).size(), 1u) << "and watches it again";
  EXPECT_EQ(cacher->list({"/r/", {}, {}, ""}).items.size(), 3u);
}

// A write answers once the storage has it, as kube-apiserver's do, not once the cache does; the
// writer's next list waits for the cache to show the write.
TEST_F(CacherTest, AWriteAnswersBeforeTheCacheShowsItAndTheNextListWaitsForIt) {
  auto cacher = makeCacher(1000, std::chrono::seconds(600));
  cacher->create("/r/a", "v");
  backend_->holdEvents();
  auto create = std::async(std::launch::async, [&] { return cacher->create("/r/b", "v"); });
  ASSERT_EQ(create.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "the create waits for a cache whose watch lags";
  const Revision written = create.get().modRevision;
  const int listsBefore = backendLists_;
  auto list = std::async(std::launch::async, [&] { return cacher->list({"/r/", {}, {}, ""}); });
  EXPECT_EQ(list.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "a list answered from a cache without the write";
  backend_->releaseEvents();
  const ListResult listed = list.get();
  EXPECT_EQ(listed.items.size(), 2u) << "the list shows the write";
  EXPECT_GE(listed.revision, written);
  EXPECT_EQ(backendLists_, listsBefore) << "from the cache";
}

// The cache's copy is offered as a first guess for a conditional write only while the cache
// shows the last write of that key made through it: never a copy older than such a write.
TEST_F(CacherTest, TheCachedGuessOfAKeyWaitsForTheKeysOwnWrites) {
  auto cacher = makeCacher();
  EXPECT_FALSE(cacher->cachedGuess("/other/a")) << "a key outside every cached prefix";
  const KeyValue first = cacher->create("/r/a", "v1");
  cacher->create("/r/b", "w1");
  cacher->list({"/r/", {}, {}, ""});  // the cache has reached both
  ASSERT_TRUE(cacher->cachedGuess("/r/a"));
  EXPECT_EQ(cacher->cachedGuess("/r/a")->value, "v1");
  EXPECT_FALSE(cacher->cachedGuess("/r/missing"));
  backend_->holdEvents();
  const KeyValue second = cacher->update("/r/a", "v2", first.modRevision);
  EXPECT_FALSE(cacher->cachedGuess("/r/a")) << "the cache still shows v1";
  ASSERT_TRUE(cacher->cachedGuess("/r/b")) << "another key's copy is current";
  EXPECT_EQ(cacher->cachedGuess("/r/b")->value, "w1");
  backend_->releaseEvents();
  cacher->list({"/r/", {}, {}, ""});  // waits until the cache has reached the update
  const auto guess = cacher->cachedGuess("/r/a");
  ASSERT_TRUE(guess);
  EXPECT_EQ(guess->value, "v2");
  EXPECT_EQ(guess->modRevision, second.modRevision);
}

TEST_F(CacherTest, AListTheCacheCannotServeInTimeReadsTheStorage) {
  auto cacher = makeCacher(1000, std::chrono::seconds(1));
  backend_->holdEvents();
  cacher->create("/r/a", "v");
  const int listsBefore = backendLists_;
  // The wait is judged on the cacher's clock: the list returns once that clock passes applyWait.
  auto listed = std::async(std::launch::async, [&] { return cacher->list({"/r/", {}, {}, ""}).items.size(); });
  EXPECT_EQ(listed.wait_for(std::chrono::milliseconds(1500)), std::future_status::timeout)
      << "gave up before applyWait had passed on its clock";
  time_.advance(std::chrono::seconds(1));
  EXPECT_EQ(listed.get(), 1u) << "the write is read";
  EXPECT_EQ(backendLists_, listsBefore + 1) << "from the storage, after the wait";
  backend_->releaseEvents();
  EXPECT_EQ(cacher->list({"/r/", {}, {}, ""}).items.size(), 1u);
  EXPECT_EQ(backendLists_, listsBefore + 1) << "and from the cache once it caught up";
}

// listFromMemory answers only what the cache holds at once (a caller may be a thread that must
// not block): never a cache behind a write acknowledged here, never a storage read.
TEST_F(CacherTest, AListFromMemoryIsAnsweredOnlyWhenTheCacheHasCaughtUp) {
  auto cacher = makeCacher(1000, std::chrono::seconds(600));
  cacher->create("/r/a", "v");
  cacher->list({"/r/", {}, {}, ""});  // the cache has reached the create
  const int listsBefore = backendLists_;
  const auto listed = cacher->listFromMemory({"/r/", {}, {}, ""});
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items.front()->value, "v");
  EXPECT_FALSE(cacher->listFromMemory({"/other/", {}, {}, ""})) << "an uncached prefix is the storage's";
  backend_->holdEvents();
  cacher->create("/r/b", "v");
  EXPECT_FALSE(cacher->listFromMemory({"/r/", {}, {}, ""})) << "answered from a cache without this server's write";
  backend_->releaseEvents();
  cacher->list({"/r/", {}, {}, ""});  // waits until the cache has reached the create
  const auto caughtUp = cacher->listFromMemory({"/r/", {}, {}, ""});
  ASSERT_TRUE(caughtUp);
  EXPECT_EQ(caughtUp->items.size(), 2u) << "the write shows once the cache has it";
  backend_->endWatches();
  EXPECT_FALSE(cacher->listFromMemory({"/r/", {}, {}, ""})) << "an ended watch means listing the storage again";
  EXPECT_EQ(backendLists_, listsBefore) << "no list reached the storage";
}

// The values a list hands out are the cache's own, shared: a later write gives the key a new
// value and leaves the one a list already holds as it was.
TEST_F(CacherTest, AListFromMemoryKeepsTheValuesItWasGivenAndItsContinuePagesTheirMoment) {
  auto cacher = makeCacher();
  for (int i = 0; i < 5; ++i) cacher->create("/r/" + std::to_string(i), "v1");
  cacher->list({"/r/", {}, {}, ""});
  const auto first = cacher->listFromMemory({"/r/", {}, 2, ""});
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->more);
  const SharedKeyValue held = first->items.front();
  EXPECT_EQ(cacher->listFromMemory({"/r/", {}, {}, ""})->items.front(), held) << "the same value, not a copy";
  cacher->update("/r/0", "v2", held->modRevision);
  cacher->create("/r/1-later", "v1");
  cacher->list({"/r/", {}, {}, ""});  // the cache has reached both writes
  EXPECT_EQ(held->value, "v1");
  EXPECT_EQ(cacher->listFromMemory({"/r/", {}, {}, ""})->items.front()->value, "v2");
  std::vector<std::string> keys;
  for (auto page = first; page;) {
    for (const auto& kv : page->items) keys.push_back(kv->key);
    if (!page->more) break;
    page = cacher->listFromMemory({"/r/", page->revision, 2, page->items.back()->key});
    ASSERT_TRUE(page) << "the first page's snapshot is kept";
  }
  EXPECT_THAT(keys, ::testing::ElementsAre("/r/0", "/r/1", "/r/2", "/r/3", "/r/4"))
      << "the continue pages read the first page's moment";
}

}  // namespace
}  // namespace fedhpa::storage
