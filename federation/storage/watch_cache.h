// One resource's watch cache, as kube-apiserver's watchCache: the current objects under a key
// prefix plus a window of the latest events, bounded by count and by age (on the injected clock),
// and a few consistent snapshots for continue tokens. Not thread-safe: the Cacher that feeds it
// from its one backend watch holds a lock around every call.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "federation/common/time_source.h"
#include "federation/storage/storage.h"

namespace fedhpa::storage {

struct WatchCacheLimits {
  std::size_t historySize = 1000;         // events kept
  std::chrono::seconds historyAge{300};   // no event (nor snapshot) older than this is kept
  std::size_t snapshotsKept = 16;         // consistent lists kept for continue tokens
};

using SharedEvent = std::shared_ptr<const WatchEvent>;

class WatchCache {
 public:
  // The cache as the backend listed prefix at revision listedAt.
  WatchCache(std::string prefix, const ListResult& listed, WatchCacheLimits limits, TimeSource& time);

  const std::string& prefix() const { return prefix_; }
  // Every event up to this revision is applied.
  Revision revision() const { return revision_; }
  // Every event after this revision is in the history: the oldest revision a watch can start from.
  Revision windowStart() const { return windowStart_; }

  // Applies the next event from the backend (in revision order) and remembers it. Returns the
  // event as kept: its new value carries fresh derived forms, shared with what lists return; its
  // previous value carries those of the value it replaces, so that a watcher reading both decodes
  // neither again.
  SharedEvent apply(WatchEvent event);

  // The events with revision > after under keyPrefix, oldest first; nullopt when after is older
  // than the window (the watcher must list again: Expired).
  std::optional<std::vector<SharedEvent>> eventsAfter(Revision after, const std::string& keyPrefix);

  // A list served from memory: the current state (atRevision unset or equal to revision()) or a
  // kept snapshot, O(log n + page). nullopt when neither holds that revision.
  std::optional<ListResult> list(const ListOptions& options);
  // The current value of one key (with the derived forms lists share); nullopt when absent.
  std::optional<KeyValue> get(const std::string& key) const;

 private:
  using Item = SharedKeyValue;
  struct Snapshot {
    MonotonicTime taken;
    std::vector<Item> items;  // in key order
  };
  void forgetOld();
  void keepSnapshot();

  std::string prefix_;
  WatchCacheLimits limits_;
  TimeSource& time_;
  Revision revision_;
  Revision windowStart_;
  std::map<std::string, Item> current_;
  struct Remembered {
    SharedEvent event;
    MonotonicTime at;
  };
  std::deque<Remembered> history_;
  std::map<Revision, Snapshot> snapshots_;
};

}  // namespace fedhpa::storage
