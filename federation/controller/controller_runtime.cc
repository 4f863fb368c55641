#include "federation/controller/controller_runtime.h"

#include "federation/common/logging.h"

namespace fedhpa::controller {

ControllerRuntime::ControllerRuntime(std::string name, std::function<bool()> waitForSync, std::vector<Loop> loops,
                                     std::vector<Ticker> tickers)
    : name_(std::move(name)),
      waitForSync_(std::move(waitForSync)),
      loops_(std::move(loops)),
      tickers_(std::move(tickers)),
      soon_(tickers_.size(), false) {}

ControllerRuntime::~ControllerRuntime() { stop(); }

bool ControllerRuntime::stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void ControllerRuntime::start() { starter_ = std::thread([this] { waitThenRun(); }); }

void ControllerRuntime::waitThenRun() {
  if (!waitForSync_()) return;
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  // Set before the first worker exists, so whoever sees a key reconciled also sees this.
  workersStarted_ = true;
  int workers = 0;
  for (const Loop& loop : loops_) {
    for (int i = 0; i < loop.workers; ++i)
      threads_.emplace_back([&loop] { runWorker(*loop.queue, loop.reconcile, loop.what); });
    workers += loop.workers;
  }
  for (TickerIndex ticker = 0; ticker < tickers_.size(); ++ticker) threads_.emplace_back([this, ticker] { tickEvery(ticker); });
  FEDHPA_LOG(info) << name_ << ": caches synced; " << workers << " workers started";
}

void ControllerRuntime::tickEvery(TickerIndex index) {
  const Ticker& ticker = tickers_[index];
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, ticker.period, [&] { return stopping_ || soon_[index]; });
    if (stopping_) return;
    soon_[index] = false;
    lock.unlock();
    ticker.tick();
    lock.lock();
  }
}

void ControllerRuntime::tickSoon(TickerIndex ticker) {
  {
    std::lock_guard lock(mutex_);
    soon_.at(ticker) = true;
  }
  wake_.notify_all();
}

void ControllerRuntime::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (starter_.joinable()) starter_.join();
  for (const Loop& loop : loops_) loop.queue->shutDown();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& thread : threads) thread.join();
}

clusters::InformerHandlers enqueueing(WorkQueue& queue) {
  auto enqueue = [&queue](const clusters::json& object) { queue.add(clusters::objectKey(object)); };
  return {enqueue, [enqueue](const clusters::json&, const clusters::json& now) { enqueue(now); }, enqueue};
}

bool waitForSync(const std::vector<clusters::Informer*>& informers, const std::function<bool()>& stopping) {
  constexpr auto kStep = std::chrono::milliseconds(100);
  for (clusters::Informer* informer : informers)
    while (!informer->waitForSync(kStep))
      if (stopping()) return false;
  return !stopping();
}

}  // namespace fedhpa::controller
