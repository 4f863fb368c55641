#include "federation/controller/status_writer.h"

#include "clusters/client/kube_client.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

StatusWriter::StatusWriter(std::size_t threads, std::function<void(const std::string& key)> retry) : retry_(std::move(retry)) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) threads_.emplace_back([this] { run(); });
}

StatusWriter::~StatusWriter() { stop(); }

void StatusWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    pending_.clear();
    order_.clear();
  }
  work_.notify_all();
  idle_.notify_all();
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

void StatusWriter::submit(const std::string& key, Write write) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    const bool waiting = pending_.count(key) > 0;
    pending_[key] = std::move(write);
    // A key already waiting keeps its place; one under way goes back in line when it is done.
    if (waiting || running_.count(key)) return;
    order_.push_back(key);
  }
  work_.notify_one();
}

void StatusWriter::waitUntilIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return stopping_ || (pending_.empty() && running_.empty()); });
}

void StatusWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || !order_.empty(); });
    if (stopping_) return;
    const std::string key = std::move(order_.front());
    order_.pop_front();
    const auto it = pending_.find(key);
    if (it == pending_.end()) continue;
    Write write = std::move(it->second);
    pending_.erase(it);
    running_.insert(key);
    lock.unlock();
    bool failed = false;
    try {
      write();
    } catch (const clusters::ClientError& error) {
      if (error.kind() != clusters::ClientError::Kind::NotFound) {
        FEDHPA_LOG(warning) << "writing the status of " << key << ": " << error.what() << "; will retry";
        failed = true;
      }
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "writing the status of " << key << ": " << error.what() << "; will retry";
      failed = true;
    }
    // A newer write submitted meanwhile supersedes the retry: it was computed later. The key
    // counts as under way until the retry is handed over (waitUntilIdle covers it).
    lock.lock();
    if (failed && !pending_.count(key) && retry_) {
      lock.unlock();
      retry_(key);
      lock.lock();
    }
    running_.erase(key);
    if (pending_.count(key) && !stopping_) {
      order_.push_back(key);
      work_.notify_one();
    }
    if (pending_.empty() && running_.empty()) idle_.notify_all();
  }
}

}  // namespace fedhpa::controller
