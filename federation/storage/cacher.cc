#include "federation/storage/cacher.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <deque>
#include <thread>

#include "federation/common/logging.h"

namespace fedhpa::storage {

namespace {

// Set while this thread runs a backend watch callback: a list made there must not wait for the
// cache to apply anything, since applying needs this very thread.
thread_local bool insideBackendCallback = false;

}  // namespace

// One watcher: its own queue of shared events, drained on the delivery pool one at a time, so
// that its callbacks keep revision order and a slow one holds only its own queue.
class Cacher::Watcher : public std::enable_shared_from_this<Watcher> {
 public:
  Watcher(std::string prefix, Revision after, std::size_t limit, WatchCallback callback,
          boost::asio::thread_pool& pool)
      : prefix_(std::move(prefix)), after_(after), limit_(limit), callback_(std::move(callback)), pool_(pool) {}

  const std::string& prefix() const { return prefix_; }

  // False once the watcher is closed: cancelled, fallen behind by more than its limit now, or its
  // callback failed.
  bool enqueue(const SharedEvent& event) {
    std::lock_guard lock(mutex_);
    if (cancelled_ || closed_) return false;
    if (event->kv.modRevision <= after_) return true;  // it started after this one
    if (queue_.size() >= limit_) {
      closed_ = true;
      queue_.clear();
      FEDHPA_LOG(warning) << "watch cache: closing a watcher of " << prefix_ << " that fell " << limit_
                          << " events behind";
      return false;
    }
    queue_.push_back(event);
    if (!scheduled_) {
      scheduled_ = true;
      boost::asio::post(pool_, [self = shared_from_this()] { self->drain(); });
    }
    return true;
  }

  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    queue_.clear();
  }

  bool closed() {
    std::lock_guard lock(mutex_);
    return closed_;
  }

  // No callback runs after this returns, unless it is called from the callback itself.
  void cancel() {
    std::unique_lock lock(mutex_);
    cancelled_ = true;
    queue_.clear();
    idle_.wait(lock, [&] { return delivering_ == std::thread::id() || delivering_ == std::this_thread::get_id(); });
  }

 private:
  void drain() {
    std::unique_lock lock(mutex_);
    while (!cancelled_ && !queue_.empty()) {
      const SharedEvent event = std::move(queue_.front());
      queue_.pop_front();
      delivering_ = std::this_thread::get_id();
      lock.unlock();
      const bool delivered = deliverToWatch(callback_, *event, "watch cache: a watcher of " + prefix_);
      lock.lock();
      delivering_ = std::thread::id();
      idle_.notify_all();
      if (!delivered) {
        // Its next events would follow a gap: the watch ends, as one that fell behind.
        closed_ = true;
        queue_.clear();
      }
    }
    scheduled_ = false;
  }

  const std::string prefix_;
  const Revision after_;
  const std::size_t limit_;
  const WatchCallback callback_;
  boost::asio::thread_pool& pool_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::deque<SharedEvent> queue_;
  bool scheduled_ = false;
  bool cancelled_ = false;
  bool closed_ = false;
  std::thread::id delivering_;
};

struct Cacher::Resource {
  explicit Resource(std::string prefix) : prefix(std::move(prefix)) {}
  const std::string prefix;
  std::mutex startMutex;  // one (re)start at a time
  std::mutex mutex;       // cache, watchers, written and lists waiting
  std::optional<WatchCache> cache;
  // The newest revision a write through this cacher was acknowledged at: a list from the cache
  // waits until the cache has reached it, so that this server's clients read their own writes.
  Revision written = 0;
  // Keys written through this cacher that the cache does not show yet, with the write's revision:
  // no update starts from the cache's copy of those (cachedGuess).
  std::map<std::string, Revision> unseenWrites;
  // Lists waiting for the cache to reach a revision, each woken alone when it does (one
  // condition for all would wake every waiting list at every event).
  std::multimap<Revision, std::condition_variable*> listsWaiting;
  std::list<std::shared_ptr<Watcher>> watchers;
  std::shared_ptr<Watch> backendWatch;  // shared: ended() is asked without holding startMutex
};

class Cacher::CacheWatch final : public Watch {
 public:
  CacheWatch(Resource& resource, std::shared_ptr<Watcher> watcher, std::shared_ptr<Watch> backendWatch)
      : resource_(resource), watcher_(std::move(watcher)), backendWatch_(std::move(backendWatch)) {}
  ~CacheWatch() override {
    watcher_->cancel();
    std::lock_guard lock(resource_.mutex);
    resource_.watchers.remove(watcher_);
  }
  // Fallen behind, its callback failed, or the cache's own backend watch ended (it lists again on
  // its next use).
  bool ended() const override { return watcher_->closed() || backendWatch_->ended(); }

 private:
  Resource& resource_;
  std::shared_ptr<Watcher> watcher_;
  std::shared_ptr<Watch> backendWatch_;
};

Cacher::Cacher(std::unique_ptr<Storage> backend, CacherOptions options, TimeSource& time)
    : backend_(std::move(backend)),
      options_(std::move(options)),
      time_(time),
      delivery_(std::make_unique<boost::asio::thread_pool>(
          static_cast<std::size_t>(std::max(1, options_.deliveryThreads)))) {
  for (const auto& prefix : options_.resourcePrefixes) {
    resources_.push_back(std::make_unique<Resource>(prefix));
    start(*resources_.back());
  }
}

Cacher::~Cacher() {
  for (auto& resource : resources_) {
    std::shared_ptr<Watch> backendWatch;
    {
      std::lock_guard lock(resource->mutex);
      backendWatch = std::move(resource->backendWatch);
    }
    backendWatch.reset();  // outside the lock: its destructor waits for a callback that takes it
  }
  delivery_->join();
}

Cacher::Resource* Cacher::resourceOf(const std::string& keyOrPrefix) {
  for (auto& resource : resources_)
    if (keyOrPrefix.starts_with(resource->prefix)) return resource.get();
  return nullptr;
}

void Cacher::start(Resource& resource) {
  const ListResult listed = backend_->list({resource.prefix, {}, {}, ""});
  {
    std::lock_guard lock(resource.mutex);
    resource.cache.emplace(resource.prefix, listed, options_.limits, time_);
    std::erase_if(resource.unseenWrites, [&](const auto& entry) { return entry.second <= listed.revision; });
    wakeListsSeen(resource);
    // Watchers of the cache before this list would miss what happened in between: they list again.
    for (auto& watcher : resource.watchers) watcher->close();
    resource.watchers.clear();
  }
  std::shared_ptr<Watch> backendWatch =
      backend_->watch(resource.prefix, listed.revision, [this, &resource](const WatchEvent& event) {
        onBackendEvent(resource, event);
      });
  std::lock_guard lock(resource.mutex);
  resource.backendWatch = std::move(backendWatch);
}

void Cacher::restartIfEnded(Resource& resource) {
  std::lock_guard startLock(resource.startMutex);
  std::shared_ptr<Watch> ended;
  {
    std::lock_guard lock(resource.mutex);
    if (resource.backendWatch && !resource.backendWatch->ended()) return;
    ended = std::move(resource.backendWatch);
  }
  ended.reset();
  FEDHPA_LOG(info) << "watch cache: the storage watch of " << resource.prefix << " ended; listing again";
  start(resource);
}

void Cacher::onBackendEvent(Resource& resource, const WatchEvent& event) {
  insideBackendCallback = true;
  {
    std::lock_guard lock(resource.mutex);
    const SharedEvent shared = resource.cache->apply(event);
    if (const auto it = resource.unseenWrites.find(event.kv.key);
        it != resource.unseenWrites.end() && it->second <= event.kv.modRevision)
      resource.unseenWrites.erase(it);
    std::erase_if(resource.watchers, [&](const std::shared_ptr<Watcher>& watcher) {
      return event.kv.key.starts_with(watcher->prefix()) && !watcher->enqueue(shared);
    });
    wakeListsSeen(resource);
  }
  insideBackendCallback = false;
}

// Called with resource.mutex held: a waiting list removes its own entry only while still waiting.
void Cacher::wakeListsSeen(Resource& resource) {
  auto& waiting = resource.listsWaiting;
  const auto seen = waiting.upper_bound(resource.cache->revision());
  for (auto it = waiting.begin(); it != seen; ++it) it->second->notify_one();
  waiting.erase(waiting.begin(), seen);
}

KeyValue Cacher::acknowledged(KeyValue written) {
  if (Resource* resource = resourceOf(written.key)) {
    std::lock_guard lock(resource->mutex);
    resource->written = std::max(resource->written, written.modRevision);
    if (resource->cache && resource->cache->revision() < written.modRevision) {
      Revision& unseen = resource->unseenWrites[written.key];
      unseen = std::max(unseen, written.modRevision);
    }
  }
  return written;
}

bool Cacher::readsOwnWrites(Resource& resource) {
  // An ended storage watch shows nothing more: the cache lists again, which shows every write. It
  // can end while this list waits (its history compacted during a long reconnect), and the
  // TimeSource cannot wake a sleeper, hence slices.
  constexpr auto kSlice = std::chrono::milliseconds(250);
  const auto deadline = time_.monotonicTime() + options_.applyWait;
  Revision wanted = 0;
  for (;;) {
    restartIfEnded(resource);
    std::unique_lock lock(resource.mutex);
    wanted = resource.written;
    if (resource.cache->revision() >= wanted) return true;
    const auto now = time_.monotonicTime();
    if (now >= deadline || insideBackendCallback) break;
    std::condition_variable seen;
    const auto entry = resource.listsWaiting.emplace(wanted, &seen);
    if (seen.wait_for(lock, std::min<MonotonicTime::duration>(kSlice, deadline - now),
                      [&] { return resource.cache->revision() >= wanted; }))
      return true;  // wakeListsSeen took the entry out
    resource.listsWaiting.erase(entry);
  }
  FEDHPA_LOG(warning) << "watch cache: " << resource.prefix << " has not reached revision " << wanted
                      << " written through it; listing from storage";
  return false;
}

std::optional<KeyValue> Cacher::get(const std::string& key) { return backend_->get(key); }

std::optional<KeyValue> Cacher::cachedGuess(const std::string& key) {
  Resource* resource = resourceOf(key);
  if (!resource) return std::nullopt;
  std::lock_guard lock(resource->mutex);
  // Behind a write of this key acknowledged here: the copy is stale, and would cost a retry.
  if (!resource->cache || resource->unseenWrites.count(key)) return std::nullopt;
  return resource->cache->get(key);
}

ListResult Cacher::list(const ListOptions& options) {
  Resource* resource = resourceOf(options.prefix);
  if (!resource) return backend_->list(options);
  if (readsOwnWrites(*resource)) {
    std::lock_guard lock(resource->mutex);
    if (auto result = resource->cache->list(options)) return std::move(*result);
  }
  return backend_->list(options);  // a revision the cache holds no snapshot of, or one it lags
}

std::optional<ListResult> Cacher::listFromMemory(const ListOptions& options) {
  Resource* resource = resourceOf(options.prefix);
  if (!resource) return std::nullopt;
  std::lock_guard lock(resource->mutex);
  // An ended storage watch means listing the backend again, and a cache behind a write
  // acknowledged here means waiting for it (readsOwnWrites): both are list()'s to do.
  if (!resource->backendWatch || resource->backendWatch->ended() || resource->cache->revision() < resource->written)
    return std::nullopt;
  return resource->cache->list(options);
}

KeyValue Cacher::create(const std::string& key, const std::string& value) {
  return acknowledged(backend_->create(key, value));
}

KeyValue Cacher::update(const std::string& key, const std::string& value, Revision expectedModRevision) {
  return acknowledged(backend_->update(key, value, expectedModRevision));
}

KeyValue Cacher::remove(const std::string& key, Revision expectedModRevision) {
  return acknowledged(backend_->remove(key, expectedModRevision));
}

std::unique_ptr<Watch> Cacher::watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) {
  Resource* resource = resourceOf(prefix);
  if (!resource) return backend_->watch(prefix, afterRevision, std::move(onEvent));
  const Revision current = backend_->currentRevision();
  if (afterRevision > current)
    throw StorageError(StorageError::Code::Expired, "revision " + std::to_string(afterRevision) +
                                                        " is newer than the storage's " + std::to_string(current));
  restartIfEnded(*resource);
  std::lock_guard lock(resource->mutex);
  // The storage watch may have ended since restartIfEnded looked, and another caller be listing
  // again now (or have failed to): a watch made now would follow no storage watch. The client
  // watches again, as after any watch that ends.
  if (!resource->backendWatch)
    throw StorageError(StorageError::Code::Unavailable, "the watch cache of " + resource->prefix + " is being rebuilt");
  auto backlog = resource->cache->eventsAfter(afterRevision, prefix);
  if (!backlog)
    throw StorageError(StorageError::Code::Expired,
                       "revision " + std::to_string(afterRevision) + " is older than the watch cache's window (from " +
                           std::to_string(resource->cache->windowStart()) + ")");
  auto watcher = std::make_shared<Watcher>(prefix, afterRevision, options_.watcherQueueLimit + backlog->size(),
                                           std::move(onEvent), *delivery_);
  for (const auto& event : *backlog) watcher->enqueue(event);
  resource->watchers.push_back(watcher);
  return std::make_unique<CacheWatch>(*resource, std::move(watcher), resource->backendWatch);
}

Revision Cacher::currentRevision() { return backend_->currentRevision(); }

Revision Cacher::oldestRevision() {
  Revision oldest = backend_->oldestRevision();
  for (auto& resource : resources_) {
    std::lock_guard lock(resource->mutex);
    oldest = std::max(oldest, resource->cache->windowStart());
  }
  return oldest;
}

}  // namespace fedhpa::storage
