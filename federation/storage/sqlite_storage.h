// The default storage backend: one SQLite database (WAL, synchronous=FULL, so every acknowledged
// write is on disk; writes that arrive while a commit runs share the next one, group commit), a
// store-wide revision counter, and a bounded event history that serves watch-from-revision and
// list-at-revision. The member-cluster simulator uses the same code on an
// in-memory database.
#pragma once

#include <filesystem>
#include <memory>

#include "federation/storage/storage.h"

namespace fedhpa::storage {

struct SqliteOptions {
  // Events kept for watch resumption and consistent paging; older revisions answer Expired.
  std::size_t historyLimit = 10000;
  // ... and no more than this many bytes of their values (each event keeps its old and new
  // value), so that large objects cannot make the history hold gigabytes (in memory, for the
  // member-cluster simulator). The newest event always stays.
  std::size_t historyBytesLimit = 64 * 1024 * 1024;
};

class SqliteStorage : public Storage {
  struct PrivateTag {};

 public:
  static std::unique_ptr<SqliteStorage> open(const std::filesystem::path& dataDir, SqliteOptions options);
  static std::unique_ptr<SqliteStorage> openInMemory(SqliteOptions options);
  ~SqliteStorage() override;

  std::optional<KeyValue> get(const std::string& key) override;
  ListResult list(const ListOptions& options) override;
  KeyValue create(const std::string& key, const std::string& value) override;
  KeyValue update(const std::string& key, const std::string& value, Revision expectedModRevision) override;
  KeyValue remove(const std::string& key, Revision expectedModRevision) override;
  std::unique_ptr<Watch> watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) override;
  Revision currentRevision() override;
  Revision oldestRevision() override;

  class Impl;
  SqliteStorage(PrivateTag, std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedhpa::storage
