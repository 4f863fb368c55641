// client-go's rate-limited work queue, in the small: a key is queued at most once however often it
// is added, is never handed to two workers at once (added while in flight, it comes back after
// done()), and a key that keeps failing comes back later and later (per-key exponential backoff).
// Keys added by a periodic resync wait in a lane of their own, served only when no key an event
// added is waiting, and to at most maxResyncInFlight workers at once: a resync of thousands of
// keys never delays the reaction to a change, neither in the queue nor by keeping every worker
// (and the CPU) busy when the change comes. Backoff is measured on the injected TimeSource.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "federation/common/time_source.h"

namespace fedhpa::controller {

class WorkQueue {
 public:
  explicit WorkQueue(TimeSource& time, std::chrono::milliseconds baseDelay = std::chrono::milliseconds(100),
                     std::chrono::milliseconds maxDelay = std::chrono::seconds(30),
                     std::size_t maxResyncInFlight = std::numeric_limits<std::size_t>::max());
  ~WorkQueue();

  void add(const std::string& key);
  void addResync(const std::string& key);       // a periodic look again: after every add()ed key
  void addRateLimited(const std::string& key);  // after a failure: later, the more it failed
  void forget(const std::string& key);          // after a success: its failures no longer count
  // Every key waiting out its backoff is queued now, its failures forgotten (client-go's Forget +
  // Add): what they failed on (a member not answering) has just changed, and the backoff they
  // built up while it lasted would keep them waiting long after it ended.
  void retryNow();
  std::optional<std::string> get();             // blocks; nullopt once shut down
  bool fromResync(const std::string& key);      // whether get() handed the key out from the resync lane
  void done(const std::string& key);
  void shutDown();
  std::size_t length();

 private:
  void runDelays();

  std::mutex mutex_;
  // Workers wait on keyReady_, each notification for one key that can go (all of them on retry
  // and shutdown); the delay thread waits on delaysChanged_ alone.
  std::condition_variable keyReady_;
  std::condition_variable delaysChanged_;
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  std::deque<std::string> resyncQueue_;   // may hold keys since moved up (not in resyncQueued_)
  std::set<std::string> resyncQueued_;
  std::set<std::string> processing_;
  std::set<std::string> resyncProcessing_;  // handed out from the resync lane, not yet done
  std::size_t maxResyncInFlight_;
  std::set<std::string> dirty_;  // added while processing
  std::map<std::string, int> failures_;
  TimeSource& time_;
  std::multimap<MonotonicTime, std::string> delayed_;
  std::chrono::milliseconds baseDelay_;
  std::chrono::milliseconds maxDelay_;
  bool shuttingDown_ = false;
  std::thread delays_;
};

// sample-controller's runWorker: hands the queue's keys to `reconcile` until the queue shuts down.
// A key whose reconcile throws comes back with the queue's backoff; one that succeeds has its
// failures forgotten. `what` names the kind of key in the log line of a failure.
void runWorker(WorkQueue& queue, const std::function<void(const std::string& key)>& reconcile, const std::string& what);

}  // namespace fedhpa::controller
