// kube-apiserver's cacher: a Storage in front of another (SQLite or etcd) that keeps, per
// resource, a WatchCache fed by ONE watch on the backend, and serves from it:
//   - list (no atRevision: the current state; atRevision: a snapshot a first page kept, else the
//     backend), paged in O(page); listFromMemory answers only when the cache can at once (no wait
//     for its own writes, no backend read);
//   - watch, from the cache's history (Expired before its window) and then live, each event stored
//     once and shared by every watcher; a watcher whose queue passes its limit is closed (ended()),
//     and lists and watches again, rather than letting memory grow.
// Writes and get go to the backend (get is a quorum read, as kube-apiserver's GET without
// resourceVersion); an update's first try may start from the cache's copy (cachedGuess), the
// write itself conditional on that copy's revision. A write returns as soon as the backend acknowledged it, as kube-apiserver's
// do; a list then waits until the cache has reached the newest write this cacher acknowledged,
// so that this server's clients read their own writes (past applyWait it lists from the backend).
// Keys outside every cached prefix pass straight through.
#pragma once

#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "federation/common/time_source.h"
#include "federation/storage/storage.h"
#include "federation/storage/watch_cache.h"

namespace boost::asio {
class thread_pool;
}

namespace fedhpa::storage {

struct CacherOptions {
  std::vector<std::string> resourcePrefixes;  // one per resource: "/apps/deployments/"
  WatchCacheLimits limits;
  // Events a watcher may have waiting beyond the history it started with before it is closed.
  std::size_t watcherQueueLimit = 1000;
  int deliveryThreads = 2;  // call the watchers' callbacks, so that a slow one holds no other
  // How long a list waits for the cache to reach this cacher's newest write before it lists from
  // the backend instead.
  std::chrono::seconds applyWait{10};
};

class Cacher final : public Storage {
 public:
  // Lists every resource prefix from the backend and watches it (throws what the backend throws).
  Cacher(std::unique_ptr<Storage> backend, CacherOptions options, TimeSource& time);
  ~Cacher() override;

  std::optional<KeyValue> get(const std::string& key) override;
  std::optional<KeyValue> cachedGuess(const std::string& key) override;
  ListResult list(const ListOptions& options) override;
  std::optional<ListResult> listFromMemory(const ListOptions& options) override;
  KeyValue create(const std::string& key, const std::string& value) override;
  KeyValue update(const std::string& key, const std::string& value, Revision expectedModRevision) override;
  KeyValue remove(const std::string& key, Revision expectedModRevision) override;
  std::unique_ptr<Watch> watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) override;
  Revision currentRevision() override;
  Revision oldestRevision() override;

 private:
  class Watcher;
  class CacheWatch;
  struct Resource;

  Resource* resourceOf(const std::string& keyOrPrefix);
  void start(Resource& resource);
  void restartIfEnded(Resource& resource);
  void onBackendEvent(Resource& resource, const WatchEvent& event);
  static void wakeListsSeen(Resource& resource);
  KeyValue acknowledged(KeyValue written);
  // Waits until the cache has reached every write acknowledged through it; false past applyWait
  // (or inside a backend callback, which the cache needs to go on).
  bool readsOwnWrites(Resource& resource);

  std::unique_ptr<Storage> backend_;
  CacherOptions options_;
  TimeSource& time_;
  // Held by pointer so that Asio stays out of the files that include this header.
  std::unique_ptr<boost::asio::thread_pool> delivery_;
  std::vector<std::unique_ptr<Resource>> resources_;
};

}  // namespace fedhpa::storage
