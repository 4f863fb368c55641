#include "federation/storage/watch_cache.h"

#include <algorithm>

namespace fedhpa::storage {

namespace {

// The first key a list may return: under prefix and after startAfterKey.
std::string firstKey(const ListOptions& options) {
  if (options.startAfterKey.empty()) return options.prefix;
  return std::max(options.prefix, options.startAfterKey + '\0');  // the smallest key > startAfterKey
}

// Takes up to limit items from [it, end) while their keys are under prefix: the page (the values
// themselves, shared, not copies) and whether more remain. Only the page is touched, whatever the
// size of the range.
template <typename Iterator, typename ItemOf>
ListResult readPage(Iterator it, Iterator end, const ListOptions& options, Revision revision, ItemOf itemOf) {
  ListResult result;
  result.revision = revision;
  for (; it != end && itemOf(*it)->key.starts_with(options.prefix); ++it) {
    if (options.limit && result.items.size() >= *options.limit) {
      result.more = true;
      break;
    }
    result.items.push_back(itemOf(*it));
  }
  return result;
}

}  // namespace

WatchCache::WatchCache(std::string prefix, const ListResult& listed, WatchCacheLimits limits, TimeSource& time)
    : prefix_(std::move(prefix)),
      limits_(limits),
      time_(time),
      revision_(listed.revision),
      windowStart_(listed.revision) {
  for (const auto& kv : listed.items) {
    auto item = std::make_shared<KeyValue>(*kv);
    item->derived = std::make_shared<DerivedForms>();
    current_.emplace(kv->key, std::move(item));
  }
}

SharedEvent WatchCache::apply(WatchEvent event) {
  // A Delete's value carries the delete's revision: another value than the one it removes.
  event.kv.derived = std::make_shared<DerivedForms>();
  const auto replaced = current_.find(event.kv.key);
  if (event.previous && replaced != current_.end() && replaced->second->modRevision == event.previous->modRevision)
    event.previous->derived = replaced->second->derived;
  auto shared = std::make_shared<const WatchEvent>(std::move(event));
  if (shared->type == WatchEvent::Type::Put)
    current_.insert_or_assign(shared->kv.key, std::make_shared<const KeyValue>(shared->kv));
  else if (replaced != current_.end())
    current_.erase(replaced);
  revision_ = shared->kv.modRevision;
  history_.push_back({shared, time_.monotonicTime()});
  forgetOld();
  return shared;
}

void WatchCache::forgetOld() {
  const MonotonicTime oldestKept = time_.monotonicTime() - limits_.historyAge;
  while (!history_.empty() && (history_.size() > limits_.historySize || history_.front().at < oldestKept)) {
    windowStart_ = history_.front().event->kv.modRevision;
    history_.pop_front();
  }
  while (!snapshots_.empty() &&
         (snapshots_.size() > limits_.snapshotsKept || snapshots_.begin()->second.taken < oldestKept))
    snapshots_.erase(snapshots_.begin());
}

std::optional<std::vector<SharedEvent>> WatchCache::eventsAfter(Revision after, const std::string& keyPrefix) {
  forgetOld();
  if (after < windowStart_) return std::nullopt;
  const auto first = std::upper_bound(history_.begin(), history_.end(), after,
                                      [](Revision r, const Remembered& e) { return r < e.event->kv.modRevision; });
  std::vector<SharedEvent> events;
  for (auto it = first; it != history_.end(); ++it)
    if (it->event->kv.key.starts_with(keyPrefix)) events.push_back(it->event);
  return events;
}

void WatchCache::keepSnapshot() {
  // A new first page at the same revision: its continue pages get the whole age too. The latest
  // revision's snapshot is the last kept, so they stay in the order they are forgotten in.
  if (const auto kept = snapshots_.find(revision_); kept != snapshots_.end()) {
    kept->second.taken = time_.monotonicTime();
    return;
  }
  Snapshot snapshot{time_.monotonicTime(), {}};
  snapshot.items.reserve(current_.size());
  for (const auto& [key, item] : current_) snapshot.items.push_back(item);
  snapshots_.emplace(revision_, std::move(snapshot));
  forgetOld();
}

std::optional<KeyValue> WatchCache::get(const std::string& key) const {
  const auto it = current_.find(key);
  if (it == current_.end()) return std::nullopt;
  return *it->second;
}

std::optional<ListResult> WatchCache::list(const ListOptions& options) {
  const std::string first = firstKey(options);
  if (!options.atRevision || *options.atRevision == revision_) {
    ListResult result = readPage(current_.lower_bound(first), current_.end(), options, revision_,
                                 [](const auto& entry) -> const Item& { return entry.second; });
    // A first page with more to come: its continue pages read this moment, whatever is written
    // meanwhile, without re-reading the backend (kube-apiserver lists them from etcd at that revision).
    if (result.more && !options.atRevision) keepSnapshot();
    return result;
  }
  forgetOld();
  const auto snapshot = snapshots_.find(*options.atRevision);
  if (snapshot == snapshots_.end()) return std::nullopt;
  const auto& items = snapshot->second.items;
  const auto start = std::lower_bound(items.begin(), items.end(), first,
                                      [](const Item& item, const std::string& key) { return item->key < key; });
  return readPage(start, items.end(), options, *options.atRevision,
                  [](const Item& item) -> const Item& { return item; });
}

}  // namespace fedhpa::storage
