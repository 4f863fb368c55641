#include "federation/storage/sqlite_storage.h"

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>

namespace fedhpa::storage {

namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw StorageError(StorageError::Code::Unavailable, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

// Prepared statements kept for the next use of the same SQL: preparing one costs more than most
// of the statements take to run (about a tenth of a member-sim's CPU per create went to it). A
// statement is taken out while in use, so two uses of one SQL at once each have their own.
class StatementCache {
 public:
  StatementCache() = default;
  ~StatementCache() { clear(); }
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  sqlite3_stmt* take(sqlite3* db, const char* sql) {
    {
      std::lock_guard lock(mutex_);
      if (const auto it = idle_.find(std::string_view(sql)); it != idle_.end()) {
        sqlite3_stmt* statement = it->second;
        idle_.erase(it);
        return statement;
      }
    }
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK) fail(db, "prepare");
    return statement;
  }
  // Back for the next use: reset, its bindings cleared (a blob bound SQLITE_TRANSIENT is a copy).
  void give(const char* sql, sqlite3_stmt* statement) {
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    std::lock_guard lock(mutex_);
    if (!idle_.emplace(sql, statement).second) sqlite3_finalize(statement);
  }
  // Before the connection closes: it does not close while a statement is prepared on it.
  void clear() {
    std::lock_guard lock(mutex_);
    for (const auto& [sql, statement] : idle_) sqlite3_finalize(statement);
    idle_.clear();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, sqlite3_stmt*, std::less<>> idle_;  // by SQL text
};

// A prepared statement, finalized when it goes out of scope, or given back to the cache it came from.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK) fail(db, "prepare");
  }
  Statement(sqlite3* db, StatementCache& cache, const char* sql)
      : db_(db), cache_(&cache), sql_(sql), statement_(cache.take(db, sql)) {}
  ~Statement() {
    if (cache_) cache_->give(sql_, statement_);
    else sqlite3_finalize(statement_);
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, const std::string& text) {
    sqlite3_bind_blob(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int index, std::int64_t value) {
    sqlite3_bind_int64(statement_, index, value);
    return *this;
  }
  Statement& bindNull(int index) {
    sqlite3_bind_null(statement_, index);
    return *this;
  }
  // True while rows come; false when done.
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "step");
  }
  void run() { step(); }
  std::string text(int column) const {
    const void* data = sqlite3_column_blob(statement_, column);
    const int size = sqlite3_column_bytes(statement_, column);
    return data ? std::string(static_cast<const char*>(data), static_cast<std::size_t>(size)) : std::string();
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }
  bool isNull(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  StatementCache* cache_ = nullptr;
  const char* sql_ = nullptr;
  sqlite3_stmt* statement_ = nullptr;
};

bool hasPrefix(const std::string& key, const std::string& prefix) { return key.compare(0, prefix.size(), prefix) == 0; }

enum EventKind : std::int64_t { kPut = 0, kDelete = 1 };

}  // namespace

class SqliteStorage::Impl {
 public:
  Impl(const std::string& path, SqliteOptions options) : options_(options) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw StorageError(StorageError::Code::Unavailable, "open " + path + ": " + message);
    }
    sqlite3_busy_timeout(db_, 5000);
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec("CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL, create_rev INTEGER NOT NULL, "
         "mod_rev INTEGER NOT NULL)");
    exec("CREATE TABLE IF NOT EXISTS events (rev INTEGER PRIMARY KEY, key BLOB NOT NULL, kind INTEGER NOT NULL, "
         "value BLOB NOT NULL, create_rev INTEGER NOT NULL, prev_value BLOB, prev_create_rev INTEGER, "
         "prev_mod_rev INTEGER)");
    exec("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
    exec("INSERT OR IGNORE INTO meta VALUES ('revision', 0), ('compacted', 0)");
    revision_ = readMeta("revision");
    compacted_ = readMeta("compacted");
    Statement bytes(db_, "SELECT ifnull(sum(length(value) + ifnull(length(prev_value), 0)), 0) FROM events");
    historyBytes_ = bytes.step() ? static_cast<std::size_t>(bytes.integer(0)) : 0;
    dispatcher_ = std::thread([this] { dispatch(); });
  }

  ~Impl() {
    {
      std::lock_guard lock(queueMutex_);
      stopping_ = true;
    }
    queueChanged_.notify_all();
    dispatcher_.join();
    statements_.clear();
    sqlite3_close(db_);
  }

  std::optional<KeyValue> get(const std::string& key) {
    std::lock_guard lock(mutex_);
    Statement query(db_, statements_, "SELECT value, create_rev, mod_rev FROM kv WHERE key = ?");
    query.bind(1, key);
    if (!query.step()) return std::nullopt;
    return KeyValue{key, query.text(0), query.integer(1), query.integer(2)};
  }

  ListResult list(const ListOptions& options) {
    std::lock_guard lock(mutex_);
    const Revision at = options.atRevision.value_or(revision_);
    if (at < compacted_ || at > revision_)
      throw StorageError(StorageError::Code::Expired, "revision " + std::to_string(at) + " is not available");
    const std::string lower = std::max(options.prefix, options.startAfterKey);
    const bool exclusive = !options.startAfterKey.empty() && options.startAfterKey >= options.prefix;
    ListResult result;
    result.revision = at;
    if (at == revision_) {
      Statement query(db_, statements_, exclusive
                               ? "SELECT key, value, create_rev, mod_rev FROM kv WHERE key > ? AND key < ? ORDER BY key LIMIT ?"
                               : "SELECT key, value, create_rev, mod_rev FROM kv WHERE key >= ? AND key < ? ORDER BY key LIMIT ?");
      query.bind(1, lower).bind(2, prefixEnd(options.prefix));
      query.bind(3, options.limit ? static_cast<std::int64_t>(*options.limit) + 1 : std::int64_t{-1});
      while (query.step())
        result.items.push_back(std::make_shared<const KeyValue>(
            KeyValue{query.text(0), query.text(1), query.integer(2), query.integer(3)}));
    } else {
      result.items = rolledBack(options.prefix, at);
      std::erase_if(result.items, [&](const SharedKeyValue& kv) { return exclusive ? kv->key <= lower : kv->key < lower; });
    }
    if (options.limit && result.items.size() > *options.limit) {
      result.items.resize(*options.limit);
      result.more = true;
    }
    return result;
  }

  // Group commit: a write joins the queue, and whichever writer finds no commit running takes
  // everything queued and commits it in one transaction, so that writers arriving during one
  // fsync share the next (etcd's backend batches its commits the same way). Each write is still
  // checked on its own, in queue order, against the writes before it; one that fails its check
  // fails alone. Returns once the write is durable, or throws.
  KeyValue write(const std::string& key, const std::optional<std::string>& value, std::optional<Revision> expected,
                 bool mustBeAbsent) {
    PendingWrite pending;
    pending.key = key;
    pending.value = value;
    pending.expected = expected;
    pending.mustBeAbsent = mustBeAbsent;
    std::unique_lock lock(commitMutex_);
    queued_.push_back(&pending);
    commitDone_.wait(lock, [&] { return pending.finished || !committing_; });
    if (!pending.finished) {  // no commit is running: this writer commits what is queued
      std::vector<PendingWrite*> batch;
      batch.swap(queued_);
      committing_ = true;
      lock.unlock();
      commit(batch);
      lock.lock();
      committing_ = false;
      for (PendingWrite* write : batch) write->finished = true;
      commitDone_.notify_all();
    }
    if (pending.error) std::rethrow_exception(pending.error);
    return pending.result;
  }

  std::unique_ptr<Watch> watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent);

  Revision currentRevision() {
    std::lock_guard lock(mutex_);
    return revision_;
  }
  Revision oldestRevision() {
    std::lock_guard lock(mutex_);
    return compacted_;
  }

 private:
  friend class SqliteWatch;
  struct Watcher {
    std::string prefix;
    Revision after;
    Revision registeredAt;  // history up to here was queued for this watcher alone
    WatchCallback callback;
  };
  struct Delivery {
    std::optional<std::uint64_t> onlyFor;  // history replay goes to one watcher; live events to all
    WatchEvent event;
  };

  struct PendingWrite {
    std::string key;
    std::optional<std::string> value;  // none: a delete
    std::optional<Revision> expected;
    bool mustBeAbsent = false;
    // Set by the committing writer.
    KeyValue result;
    std::exception_ptr error;
    bool finished = false;  // under commitMutex_
  };

  // One transaction for the batch. A write whose check fails (exists, missing, conflict) gets its
  // error and changes nothing; any other failure rolls the whole batch back and fails every write.
  void commit(const std::vector<PendingWrite*>& batch) {
    std::lock_guard lock(mutex_);
    std::vector<WatchEvent> events;
    Revision revision = revision_;
    History history{compacted_, historyBytes_};
    try {
      Transaction transaction(*this);
      for (PendingWrite* write : batch) {
        try {
          events.push_back(apply(*write, revision + 1, history));
          write->result = events.back().kv;
          ++revision;
        } catch (const StorageError& error) {
          if (error.code() == StorageError::Code::Unavailable) throw;
          write->error = std::current_exception();
        }
      }
      transaction.commit();
    } catch (...) {
      const auto failure = std::current_exception();
      for (PendingWrite* write : batch) write->error = failure;
      return;
    }
    revision_ = revision;
    compacted_ = history.compacted;
    historyBytes_ = history.bytes;
    for (auto& event : events) enqueue({std::nullopt, std::move(event)});
  }

  // The event history as a batch leaves it: the revision below it, and the bytes of its values.
  struct History {
    Revision compacted;
    std::size_t bytes;
  };

  // One write inside the batch's transaction at `revision`; throws before changing anything when
  // its check fails. `history` follows the history trimmed so far.
  WatchEvent apply(const PendingWrite& write, Revision revision, History& history) {
    std::optional<KeyValue> current;
    {
      Statement query(db_, statements_, "SELECT value, create_rev, mod_rev FROM kv WHERE key = ?");
      query.bind(1, write.key);
      if (query.step()) current = KeyValue{write.key, query.text(0), query.integer(1), query.integer(2)};
    }
    if (write.mustBeAbsent && current) throw StorageError(StorageError::Code::AlreadyExists, write.key + " already exists");
    if (!write.mustBeAbsent && !current) throw StorageError(StorageError::Code::NotFound, write.key + " not found");
    if (write.expected && current && current->modRevision != *write.expected)
      throw StorageError(StorageError::Code::Conflict, write.key + " was modified at revision " +
                                                           std::to_string(current->modRevision));
    WatchEvent event;
    if (write.value) {
      event.type = WatchEvent::Type::Put;
      event.kv = {write.key, *write.value, current ? current->createRevision : revision, revision};
      Statement put(db_, statements_, "INSERT OR REPLACE INTO kv VALUES (?, ?, ?, ?)");
      put.bind(1, write.key).bind(2, *write.value).bind(3, event.kv.createRevision).bind(4, revision).run();
    } else {
      event.type = WatchEvent::Type::Delete;
      event.kv = {write.key, current->value, current->createRevision, revision};
      Statement erase(db_, statements_, "DELETE FROM kv WHERE key = ?");
      erase.bind(1, write.key).run();
    }
    event.previous = current;
    recordEvent(event, history);
    return event;
  }

  // BEGIN IMMEDIATE ... COMMIT, rolled back if the scope ends without commit().
  class Transaction {
   public:
    explicit Transaction(Impl& impl) : impl_(impl) { impl_.exec("BEGIN IMMEDIATE"); }
    ~Transaction() {
      if (!committed_) sqlite3_exec(impl_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit() {
      impl_.exec("COMMIT");
      committed_ = true;
    }

   private:
    Impl& impl_;
    bool committed_ = false;
  };

  void exec(const char* sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error ? error : "unknown error";
      sqlite3_free(error);
      throw StorageError(StorageError::Code::Unavailable, std::string(sql) + ": " + message);
    }
  }

  std::int64_t readMeta(const std::string& name) {
    Statement query(db_, ("SELECT value FROM meta WHERE name = '" + name + "'").c_str());
    return query.step() ? query.integer(0) : 0;
  }

  void recordEvent(const WatchEvent& event, History& history) {
    Statement insert(db_, statements_, "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, event.kv.modRevision).bind(2, event.kv.key);
    insert.bind(3, event.type == WatchEvent::Type::Put ? kPut : kDelete).bind(4, event.kv.value);
    insert.bind(5, event.kv.createRevision);
    if (event.previous) {
      insert.bind(6, event.previous->value).bind(7, event.previous->createRevision).bind(8, event.previous->modRevision);
    } else {
      insert.bindNull(6).bindNull(7).bindNull(8);
    }
    insert.run();
    Statement setRevision(db_, statements_, "UPDATE meta SET value = ? WHERE name = 'revision'");
    setRevision.bind(1, event.kv.modRevision).run();
    // Keep the newest historyLimit events, and no more than historyBytesLimit of their values
    // (old and new); the revision below them can no longer be rebuilt.
    history.bytes += event.kv.value.size() + (event.previous ? event.previous->value.size() : 0);
    Revision keepFrom = std::max(history.compacted + 1, event.kv.modRevision - static_cast<Revision>(options_.historyLimit) + 1);
    std::size_t dropped = 0;
    {
      Statement oldest(db_, statements_, "SELECT rev, length(value) + ifnull(length(prev_value), 0) FROM events ORDER BY rev");
      // Over the byte limit: trim to three quarters of it, so that the trimming is not paid on every write.
      const std::size_t target =
          history.bytes > options_.historyBytesLimit ? options_.historyBytesLimit / 4 * 3 : history.bytes;
      while (oldest.step()) {
        const Revision rev = oldest.integer(0);
        const auto size = static_cast<std::size_t>(oldest.integer(1));
        if (rev >= event.kv.modRevision) break;  // the newest event always stays
        if (rev >= keepFrom && history.bytes - dropped <= target) break;
        dropped += size;
        keepFrom = std::max(keepFrom, rev + 1);
      }
    }
    if (keepFrom - 1 > history.compacted) {
      Statement trim(db_, statements_, "DELETE FROM events WHERE rev < ?");
      trim.bind(1, keepFrom).run();
      Statement setCompacted(db_, statements_, "UPDATE meta SET value = ? WHERE name = 'compacted'");
      setCompacted.bind(1, keepFrom - 1).run();
      history.compacted = keepFrom - 1;
      history.bytes -= std::min(dropped, history.bytes);
    }
  }

  WatchEvent eventFromRow(const Statement& row) const {
    WatchEvent event;
    event.type = row.integer(2) == kPut ? WatchEvent::Type::Put : WatchEvent::Type::Delete;
    event.kv = {row.text(1), row.text(3), row.integer(4), row.integer(0)};
    if (!row.isNull(5)) event.previous = KeyValue{row.text(1), row.text(5), row.integer(6), row.integer(7)};
    return event;
  }

  // The keys under prefix as they were at revision `at`: today's rows with the newer events undone.
  std::vector<SharedKeyValue> rolledBack(const std::string& prefix, Revision at) {
    std::map<std::string, KeyValue> state;
    Statement current(db_, statements_, "SELECT key, value, create_rev, mod_rev FROM kv WHERE key >= ? AND key < ?");
    current.bind(1, prefix).bind(2, prefixEnd(prefix));
    while (current.step()) state[current.text(0)] = {current.text(0), current.text(1), current.integer(2), current.integer(3)};
    Statement newer(db_, statements_, "SELECT * FROM events WHERE rev > ? AND key >= ? AND key < ? ORDER BY rev DESC");
    newer.bind(1, at).bind(2, prefix).bind(3, prefixEnd(prefix));
    while (newer.step()) {
      const WatchEvent event = eventFromRow(newer);
      if (event.previous) state[event.kv.key] = *event.previous;
      else state.erase(event.kv.key);
    }
    std::vector<SharedKeyValue> items;
    items.reserve(state.size());
    for (auto& [key, kv] : state) items.push_back(std::make_shared<const KeyValue>(std::move(kv)));
    return items;
  }

  void enqueue(Delivery delivery) {
    {
      std::lock_guard lock(queueMutex_);
      queue_.push_back(std::move(delivery));
    }
    queueChanged_.notify_all();
  }

  void dispatch() {
    std::unique_lock lock(queueMutex_);
    for (;;) {
      queueChanged_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      const Delivery delivery = std::move(queue_.front());
      queue_.pop_front();
      std::vector<std::uint64_t> targets;
      for (const auto& [id, watcher] : watchers_) {
        const Revision revision = delivery.event.kv.modRevision;
        const bool addressed = delivery.onlyFor ? *delivery.onlyFor == id : revision > watcher.registeredAt;
        if (addressed && hasPrefix(delivery.event.kv.key, watcher.prefix) && revision > watcher.after)
          targets.push_back(id);
      }
      for (const auto id : targets) {
        const auto it = watchers_.find(id);
        if (it == watchers_.end()) continue;  // cancelled by an earlier callback
        inFlight_ = id;
        WatchCallback callback = it->second.callback;
        lock.unlock();
        const bool delivered = deliverToWatch(callback, delivery.event, "sqlite watch " + std::to_string(id));
        lock.lock();
        inFlight_.reset();
        if (!delivered && watchers_.erase(id)) failedWatchers_.insert(id);
        callbackDone_.notify_all();
      }
    }
  }

  bool failed(std::uint64_t id) {
    std::lock_guard lock(queueMutex_);
    return failedWatchers_.count(id) > 0;
  }

  void cancel(std::uint64_t id) {
    std::unique_lock lock(queueMutex_);
    watchers_.erase(id);
    failedWatchers_.erase(id);
    if (std::this_thread::get_id() == dispatcher_.get_id()) return;  // cancelled from its own callback
    callbackDone_.wait(lock, [&] { return inFlight_ != id; });
  }

  SqliteOptions options_;
  sqlite3* db_ = nullptr;
  StatementCache statements_;  // statements on db_
  std::mutex mutex_;  // the connection and the revision counters
  Revision revision_ = 0;
  Revision compacted_ = 0;
  std::size_t historyBytes_ = 0;  // values (old and new) held by the events table

  std::mutex commitMutex_;  // the queue of writes waiting for a commit
  std::condition_variable commitDone_;
  std::vector<PendingWrite*> queued_;
  bool committing_ = false;

  std::mutex queueMutex_;  // the delivery queue and the watchers
  std::condition_variable queueChanged_;
  std::condition_variable callbackDone_;
  std::deque<Delivery> queue_;
  std::map<std::uint64_t, Watcher> watchers_;
  std::set<std::uint64_t> failedWatchers_;  // taken out of watchers_ when their callback threw
  std::optional<std::uint64_t> inFlight_;
  std::uint64_t nextWatcherId_ = 1;
  bool stopping_ = false;
  std::thread dispatcher_;
};

class SqliteWatch : public Watch {
 public:
  SqliteWatch(SqliteStorage::Impl& impl, std::uint64_t id) : impl_(impl), id_(id) {}
  ~SqliteWatch() override { impl_.cancel(id_); }
  bool ended() const override { return impl_.failed(id_); }

 private:
  SqliteStorage::Impl& impl_;
  std::uint64_t id_;
};

std::unique_ptr<Watch> SqliteStorage::Impl::watch(const std::string& prefix, Revision afterRevision,
                                                  WatchCallback onEvent) {
  // Under the write lock: the history read here and the live events enqueued after it meet
  // without a gap or an overlap.
  std::lock_guard lock(mutex_);
  if (afterRevision < compacted_)
    throw StorageError(StorageError::Code::Expired, "revision " + std::to_string(afterRevision) + " is compacted");
  // A revision this store never reached (a client that watched another incarnation of an
  // in-memory server): the client must list again, as it must after compaction.
  if (afterRevision > revision_)
    throw StorageError(StorageError::Code::Expired, "revision " + std::to_string(afterRevision) + " is in the future");
  std::vector<WatchEvent> history;
  if (afterRevision < revision_) {
    Statement query(db_, statements_, "SELECT * FROM events WHERE rev > ? AND key >= ? AND key < ? ORDER BY rev");
    query.bind(1, afterRevision).bind(2, prefix).bind(3, prefixEnd(prefix));
    while (query.step()) history.push_back(eventFromRow(query));
  }
  std::uint64_t id;
  {
    std::lock_guard queueLock(queueMutex_);
    id = nextWatcherId_++;
    watchers_[id] = {prefix, afterRevision, revision_, std::move(onEvent)};
    for (auto& event : history) queue_.push_back({id, std::move(event)});
  }
  queueChanged_.notify_all();
  return std::make_unique<SqliteWatch>(*this, id);
}

SqliteStorage::SqliteStorage(PrivateTag, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteStorage::~SqliteStorage() = default;

std::unique_ptr<SqliteStorage> SqliteStorage::open(const std::filesystem::path& dataDir, SqliteOptions options) {
  std::error_code error;
  std::filesystem::create_directories(dataDir, error);
  if (error) throw StorageError(StorageError::Code::Unavailable, "create " + dataDir.string() + ": " + error.message());
  const std::string path = (dataDir / "fedhpa.db").string();
  return std::make_unique<SqliteStorage>(PrivateTag{}, std::make_unique<Impl>(path, options));
}

std::unique_ptr<SqliteStorage> SqliteStorage::openInMemory(SqliteOptions options) {
  return std::make_unique<SqliteStorage>(PrivateTag{}, std::make_unique<Impl>(":memory:", options));
}

std::optional<KeyValue> SqliteStorage::get(const std::string& key) { return impl_->get(key); }
ListResult SqliteStorage::list(const ListOptions& options) { return impl_->list(options); }
KeyValue SqliteStorage::create(const std::string& key, const std::string& value) {
  return impl_->write(key, value, std::nullopt, true);
}
KeyValue SqliteStorage::update(const std::string& key, const std::string& value, Revision expectedModRevision) {
  return impl_->write(key, value, expectedModRevision, false);
}
KeyValue SqliteStorage::remove(const std::string& key, Revision expectedModRevision) {
  return impl_->write(key, std::nullopt, expectedModRevision, false);
}
std::unique_ptr<Watch> SqliteStorage::watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) {
  return impl_->watch(prefix, afterRevision, std::move(onEvent));
}
Revision SqliteStorage::currentRevision() { return impl_->currentRevision(); }
Revision SqliteStorage::oldestRevision() { return impl_->oldestRevision(); }

}  // namespace fedhpa::storage
