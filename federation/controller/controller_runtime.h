// How every controller of this process runs, as kubernetes/sample-controller's Run does: wait until
// the caches it reads have synced, then start workers that hand their queue's keys to reconcile
// (runWorker), and tickers that run a periodic task (look at everything again, probe the members)
// every period, or sooner when asked (tickSoon); stop() ends them all. The
// informers belong to whoever made them (usually SharedInformers): the runtime only waits for them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clusters/client/informer.h"
#include "federation/controller/work_queue.h"

namespace fedhpa::controller {

class ControllerRuntime {
 public:
  struct Loop {
    std::string what;  // names the kind of key in log lines
    WorkQueue* queue;
    std::function<void(const std::string& key)> reconcile;
    int workers = 1;
  };
  struct Ticker {
    std::chrono::milliseconds period;
    std::function<void()> tick;  // usually: every key again, on the queue's resync lane
  };
  using TickerIndex = std::size_t;  // a ticker's place among those the constructor was given

  // `waitForSync` runs on a thread of the runtime's own before any worker starts; it returns false
  // to give up, and must look at stopping() at least every few hundred milliseconds.
  ControllerRuntime(std::string name, std::function<bool()> waitForSync, std::vector<Loop> loops, std::vector<Ticker> tickers);
  ~ControllerRuntime();
  ControllerRuntime(const ControllerRuntime&) = delete;
  ControllerRuntime& operator=(const ControllerRuntime&) = delete;

  void start();  // returns at once
  // Stops the tickers, shuts the queues down and joins every thread; idempotent.
  void stop();
  bool stopping();
  bool workersStarted() const { return workersStarted_; }
  // The ticker ticks now rather than at the end of its period, and its next period counts from
  // then; asked before the tickers started, it ticks as soon as they do. Asks while a tick runs
  // make one more tick after it, however many there were.
  void tickSoon(TickerIndex ticker);

 private:
  void waitThenRun();
  void tickEvery(TickerIndex ticker);

  std::string name_;
  std::function<bool()> waitForSync_;
  std::vector<Loop> loops_;
  std::vector<Ticker> tickers_;
  std::atomic<bool> workersStarted_{false};
  std::mutex mutex_;
  std::condition_variable wake_;  // stopping, or a ticker asked to tick soon
  bool stopping_ = false;
  std::vector<bool> soon_;  // by ticker, under mutex_
  std::thread starter_;
  std::vector<std::thread> threads_;  // workers and tickers, under mutex_
};

// Informer handlers that put the object's key on `queue` on every add, update and delete.
clusters::InformerHandlers enqueueing(WorkQueue& queue);

// client-go's WaitForCacheSync: true once every informer has synced, false once stopping().
bool waitForSync(const std::vector<clusters::Informer*>& informers, const std::function<bool()>& stopping);

}  // namespace fedhpa::controller
