#include "federation/apiserver/request_execution.h"

#include "federation/common/logging.h"

namespace fedhpa::apiserver {

InflightLimits::InflightLimits(std::size_t maxReadOnly, std::size_t maxMutating)
    : maxReadOnly_(maxReadOnly), maxMutating_(maxMutating) {}

std::unique_ptr<InflightLimits::Ticket> InflightLimits::tryAcquire(bool mutating) {
  std::atomic<std::size_t>& count = mutating ? mutating_ : readOnly_;
  const std::size_t limit = mutating ? maxMutating_ : maxReadOnly_;
  if (++count > limit && limit > 0) {
    --count;
    return nullptr;
  }
  return std::make_unique<Ticket>(count);
}

WorkerPool::WorkerPool(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void WorkerPool::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void WorkerPool::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    try {
      job();
    } catch (const std::exception& error) {
      // A job answers its own errors; this only keeps the thread alive.
      FEDHPA_LOG(error) << "uncaught exception in a request worker: " << error.what();
    }
    lock.lock();
  }
}

}  // namespace fedhpa::apiserver
