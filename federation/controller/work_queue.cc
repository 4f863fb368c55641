#include "federation/controller/work_queue.h"

#include <algorithm>

#include "federation/common/logging.h"

namespace fedhpa::controller {

WorkQueue::WorkQueue(TimeSource& time, std::chrono::milliseconds baseDelay, std::chrono::milliseconds maxDelay,
                     std::size_t maxResyncInFlight)
    : maxResyncInFlight_(std::max<std::size_t>(1, maxResyncInFlight)),
      time_(time),
      baseDelay_(baseDelay),
      maxDelay_(maxDelay),
      delays_([this] { runDelays(); }) {}

WorkQueue::~WorkQueue() {
  shutDown();
  delays_.join();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (shuttingDown_) return;
  if (processing_.count(key)) {
    dirty_.insert(key);
    return;
  }
  // Queued for a resync only: an event is more urgent, so the key moves up (the stale entry in
  // the resync lane is skipped when it comes up).
  resyncQueued_.erase(key);
  if (queued_.insert(key).second) {
    queue_.push_back(key);
    keyReady_.notify_one();
  }
}

void WorkQueue::addResync(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (shuttingDown_ || processing_.count(key) || queued_.count(key) || resyncQueued_.count(key)) return;
  resyncQueued_.insert(key);
  resyncQueue_.push_back(key);
  keyReady_.notify_one();
}

void WorkQueue::addRateLimited(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (shuttingDown_) return;
  const int failures = failures_[key]++;
  auto delay = baseDelay_ * (1LL << std::min(failures, 20));
  if (delay > maxDelay_) delay = maxDelay_;
  delayed_.emplace(time_.monotonicTime() + delay, key);
  delaysChanged_.notify_one();
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  failures_.erase(key);
}

void WorkQueue::retryNow() {
  std::lock_guard lock(mutex_);
  if (shuttingDown_) return;
  for (const auto& [due, key] : delayed_) {
    failures_.erase(key);
    if (processing_.count(key)) {
      dirty_.insert(key);
      continue;
    }
    resyncQueued_.erase(key);
    if (queued_.insert(key).second) queue_.push_back(key);
  }
  delayed_.clear();
  keyReady_.notify_all();
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mutex_);
  keyReady_.wait(lock, [&] {
    return shuttingDown_ || !queue_.empty() || (!resyncQueued_.empty() && resyncProcessing_.size() < maxResyncInFlight_);
  });
  if (shuttingDown_) return std::nullopt;
  std::string key;
  if (!queue_.empty()) {
    key = queue_.front();
    queue_.pop_front();
    queued_.erase(key);
  } else {
    do {
      key = resyncQueue_.front();
      resyncQueue_.pop_front();
    } while (!resyncQueued_.erase(key));
    resyncProcessing_.insert(key);
  }
  processing_.insert(key);
  return key;
}

bool WorkQueue::fromResync(const std::string& key) {
  std::lock_guard lock(mutex_);
  return resyncProcessing_.count(key) > 0;
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mutex_);
  processing_.erase(key);
  if (resyncProcessing_.erase(key)) keyReady_.notify_one();  // the next resync key may go
  if (dirty_.erase(key) && !shuttingDown_ && queued_.insert(key).second) {
    queue_.push_back(key);
    keyReady_.notify_one();
  }
}

void WorkQueue::shutDown() {
  std::lock_guard lock(mutex_);
  shuttingDown_ = true;
  keyReady_.notify_all();
  delaysChanged_.notify_all();
}

std::size_t WorkQueue::length() {
  std::lock_guard lock(mutex_);
  return queue_.size() + resyncQueued_.size();
}

void WorkQueue::runDelays() {
  std::unique_lock lock(mutex_);
  while (!shuttingDown_) {
    if (delayed_.empty()) {
      delaysChanged_.wait(lock);
      continue;
    }
    // The TimeSource cannot wake a sleeper, so a wait lasts at most a slice and then asks it
    // again: a test's fake clock moved past the due time is seen within the slice.
    constexpr std::chrono::milliseconds kSlice(50);
    const auto left = delayed_.begin()->first - time_.monotonicTime();
    if (left > MonotonicTime::duration::zero()) {
      delaysChanged_.wait_for(lock, std::min<MonotonicTime::duration>(left, kSlice));
      continue;
    }
    const std::string key = delayed_.begin()->second;
    delayed_.erase(delayed_.begin());
    lock.unlock();
    add(key);
    lock.lock();
  }
}

void runWorker(WorkQueue& queue, const std::function<void(const std::string& key)>& reconcile, const std::string& what) {
  while (auto key = queue.get()) {
    try {
      reconcile(*key);
      queue.forget(*key);
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "reconcile " << what << " " << *key << ": " << error.what() << "; will retry";
      queue.addRateLimited(*key);
    }
    queue.done(*key);
  }
}

}  // namespace fedhpa::controller
