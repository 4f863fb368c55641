// Where a request runs and whether it may run now: kube-apiserver's max-in-flight filter (a
// bounded number of read-only and of mutating requests at once; watches are not counted) and a
// bounded pool of threads for heavy requests (LIST, deletecollection), so that they never occupy
// the HTTP threads that answer everything else (/healthz included).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fedhpa::apiserver {

class InflightLimits {
 public:
  // 0 disables a limit, as kube's flags do.
  InflightLimits(std::size_t maxReadOnly, std::size_t maxMutating);

  // Holds one in-flight place until destroyed.
  class Ticket {
   public:
    explicit Ticket(std::atomic<std::size_t>& count) : count_(count) {}
    ~Ticket() { --count_; }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

   private:
    std::atomic<std::size_t>& count_;
  };

  // nullptr when the limit for this kind of request is reached (the caller answers 429).
  std::unique_ptr<Ticket> tryAcquire(bool mutating);

 private:
  std::size_t maxReadOnly_;
  std::size_t maxMutating_;
  std::atomic<std::size_t> readOnly_{0};
  std::atomic<std::size_t> mutating_{0};
};

// A fixed set of threads taking jobs in arrival order. The queue needs no bound of its own: only
// requests holding an in-flight ticket are submitted.
class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();  // runs what was queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::function<void()> job);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace fedhpa::apiserver
