// The etcd v3 backend, as kube-apiserver stores its objects: every key lives under a prefix
// (/registry by default), an object's mod_revision is its resourceVersion, every conditional write
// is one txn comparing mod_revision, and watches are etcd watches replaying from a revision.
// Several API servers may share one etcd cluster: etcd orders all their writes.
//
// History: etcd keeps every revision until compacted. Like kube-apiserver's compactor, this
// backend compacts, keeping the newest `historyLimit` revisions; a list or watch older than that
// is Expired (410 at the API).
#pragma once

#include <memory>

#include "federation/storage/etcd_client.h"
#include "federation/storage/storage.h"

namespace fedhpa::storage {

struct EtcdOptions {
  EtcdClientOptions client;
  std::string prefix = "/registry";  // prepended to every key; not visible above this interface
  std::size_t historyLimit = 10000;  // revisions kept for watch resumption and paging
};

class EtcdStorage : public Storage {
  struct PrivateTag {};

 public:
  // Throws StorageError(Unavailable) when no endpoint answers.
  static std::unique_ptr<EtcdStorage> open(EtcdOptions options);
  ~EtcdStorage() override;

  std::optional<KeyValue> get(const std::string& key) override;
  ListResult list(const ListOptions& options) override;
  KeyValue create(const std::string& key, const std::string& value) override;
  KeyValue update(const std::string& key, const std::string& value, Revision expectedModRevision) override;
  KeyValue remove(const std::string& key, Revision expectedModRevision) override;
  std::unique_ptr<Watch> watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) override;
  Revision currentRevision() override;
  Revision oldestRevision() override;

  class Impl;
  EtcdStorage(PrivateTag, std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedhpa::storage
