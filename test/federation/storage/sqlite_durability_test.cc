// What SQLite-specific guarantees the API server's users rely on: data survives a restart, every
// write acknowledged before a SIGKILL is there afterwards, and writes committed together (group
// commit) still succeed or fail one by one.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "federation/storage/sqlite_storage.h"

namespace fedhpa::storage {
namespace {

std::filesystem::path freshDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("fedhpa-sqlite-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(SqliteStorage, ReopenKeepsObjectsRevisionsAndTheCounter) {
  const auto dir = freshDir("reopen");
  Revision last = 0;
  {
    auto storage = SqliteStorage::open(dir, {});
    const KeyValue a = storage->create("/r/a", "one");
    storage->create("/r/b", "two");
    last = storage->remove("/r/b", storage->get("/r/b")->modRevision).modRevision;
    EXPECT_EQ(a.modRevision, 1);
  }
  auto reopened = SqliteStorage::open(dir, {});
  EXPECT_EQ(reopened->get("/r/a")->value, "one");
  EXPECT_EQ(reopened->get("/r/a")->modRevision, 1);
  EXPECT_FALSE(reopened->get("/r/b"));
  EXPECT_EQ(reopened->currentRevision(), last);
  EXPECT_EQ(reopened->create("/r/c", "three").modRevision, last + 1) << "revisions are never reused";
  std::filesystem::remove_all(dir);
}

// Many writers at once on the file store share commits; each write is still checked alone: of
// the writers racing to create or update the same key exactly one wins, the others get their own
// error, and nothing of theirs (nor of the winners') is lost or reordered for a watcher.
TEST(SqliteStorage, WritesCommittedTogetherSucceedOrFailOneByOne) {
  const auto dir = freshDir("group");
  auto storage = SqliteStorage::open(dir, {});
  for (int k = 0; k < 10; ++k) storage->create("/r/shared-" + std::to_string(k), "0");
  std::mutex mutex;
  std::vector<Revision> seen;
  auto watch = storage->watch("/r/", storage->currentRevision(), [&](const WatchEvent& event) {
    std::lock_guard lock(mutex);
    seen.push_back(event.kv.modRevision);
  });
  std::atomic<int> created{0}, alreadyExists{0}, updated{0}, conflicts{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w)
    writers.emplace_back([&, w] {
      for (int k = 0; k < 10; ++k) {
        try {
          storage->create("/r/contested-" + std::to_string(k), std::to_string(w));
          ++created;
        } catch (const StorageError& error) {
          EXPECT_EQ(error.code(), StorageError::Code::AlreadyExists);
          ++alreadyExists;
        }
        // Every writer updates from the same revision: one wins, the rest conflict.
        try {
          storage->update("/r/shared-" + std::to_string(k), std::to_string(w), k + 1);
          ++updated;
        } catch (const StorageError& error) {
          EXPECT_EQ(error.code(), StorageError::Code::Conflict);
          ++conflicts;
        }
        storage->create("/r/own-" + std::to_string(w) + "-" + std::to_string(k), "v");
      }
    });
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(created, 10);
  EXPECT_EQ(alreadyExists, 70);
  EXPECT_EQ(updated, 10);
  EXPECT_EQ(conflicts, 70);
  const Revision last = storage->currentRevision();
  EXPECT_EQ(last, 10 + 10 + 10 + 80) << "one revision per successful write, none for a failed one";
  // The 10 shared keys, the 10 contested ones and each writer's 10 own.
  EXPECT_EQ(storage->list({"/r/", {}, {}, ""}).items.size(), 100u);
  const auto seenAll = [&] {
    std::lock_guard lock(mutex);
    return seen.size() == 100u;
  };
  for (int i = 0; i < 1000 && !seenAll(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  {
    std::lock_guard lock(mutex);
    ASSERT_EQ(seen.size(), 100u);
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 11 + static_cast<Revision>(i)) << "in revision order, no gap";
  }
  watch.reset();
  storage.reset();
  auto reopened = SqliteStorage::open(dir, {});
  EXPECT_EQ(reopened->currentRevision(), last);
  EXPECT_EQ(reopened->list({"/r/", {}, {}, ""}).items.size(), 100u);
  std::filesystem::remove_all(dir);
}

// A child writes keys as fast as it can and reports each acknowledged one on a pipe; the parent
// kills it at a random moment and checks every reported key after reopening.
TEST(SqliteStorage, AcknowledgedWritesSurviveSigkill) {
  const auto dir = freshDir("sigkill");
  std::mt19937 random(12345);
  int nextKey = 0;
  for (int round = 0; round < 8; ++round) {
    int pipeEnds[2];
    ASSERT_EQ(::pipe(pipeEnds), 0);
    const int firstKey = nextKey;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(pipeEnds[0]);
      auto storage = SqliteStorage::open(dir, {});
      for (int key = firstKey;; ++key) {
        storage->create("/r/" + std::to_string(key), "value-" + std::to_string(key));
        if (::write(pipeEnds[1], &key, sizeof key) != sizeof key) ::_exit(1);
      }
    }
    ::close(pipeEnds[1]);
    // The random moment starts at the first acknowledgement, however long the child took to get there.
    std::vector<int> acknowledged;
    int key = 0;
    pollfd firstAck{pipeEnds[0], POLLIN, 0};
    ASSERT_EQ(::poll(&firstAck, 1, 60'000), 1) << "the child acknowledged nothing in 60 s";
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 200)(random)));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    while (::read(pipeEnds[0], &key, sizeof key) == sizeof key) acknowledged.push_back(key);
    ::close(pipeEnds[0]);

    auto storage = SqliteStorage::open(dir, {});
    for (int k : acknowledged) {
      const auto kv = storage->get("/r/" + std::to_string(k));
      ASSERT_TRUE(kv) << "acknowledged key " << k << " lost in round " << round;
      EXPECT_EQ(kv->value, "value-" + std::to_string(k));
    }
    // Keys the child wrote but did not get to report may be there too; continue after them all.
    nextKey = static_cast<int>(storage->list({"/r/", {}, {}, ""}).items.size());
    EXPECT_GE(nextKey, firstKey + static_cast<int>(acknowledged.size()));
  }
  EXPECT_GT(nextKey, 0);
  std::filesystem::remove_all(dir);
}

TEST(SqliteStorage, UnwritableDataDirIsAnError) {
  EXPECT_THROW(SqliteStorage::open("/proc/fedhpa-cannot-be-here", {}), StorageError);
}

}  // namespace
}  // namespace fedhpa::storage

namespace fedhpa::storage {
namespace {

// The member-cluster simulator keeps its history in memory: large objects must not make it grow
// without bound, whatever the event count limit allows.
TEST(SqliteStorage, HistoryIsBoundedInBytesAsWellAsEvents) {
  SqliteOptions options;
  options.historyLimit = 10000;
  options.historyBytesLimit = 4 * 1024 * 1024;
  auto storage = SqliteStorage::openInMemory(options);
  const std::string big(256 * 1024, 'x');
  storage->create("/r/k", big);
  const Revision first = storage->currentRevision();
  for (int i = 0; i < 40; ++i) storage->update("/r/k", big + std::to_string(i), storage->currentRevision());
  // 40 events of 512 KiB (old and new value): far over 4 MiB, so the oldest ones are gone...
  EXPECT_GT(storage->oldestRevision(), first);
  const Revision kept = storage->currentRevision() - storage->oldestRevision();
  EXPECT_LE(kept, 8) << "at most 4 MiB of 512 KiB events";
  EXPECT_GE(kept, 4) << "trimming goes to three quarters of the limit, not to nothing";
  // ...and what is kept still replays in order.
  std::mutex mutex;
  std::vector<Revision> seen;
  auto watch = storage->watch("/r/", storage->oldestRevision(), [&](const WatchEvent& event) {
    std::lock_guard lock(mutex);
    seen.push_back(event.kv.modRevision);
  });
  const auto seenCount = [&] {
    std::lock_guard lock(mutex);
    return seen.size();
  };
  for (int i = 0; i < 250 && seenCount() < static_cast<std::size_t>(kept); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  watch.reset();
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kept));
  EXPECT_EQ(seen.back(), storage->currentRevision());
}

}  // namespace
}  // namespace fedhpa::storage
