// Writes to a federated object that report on it (its status, the per-cluster annotation) off the
// reconcile path, so that a worker is free once the members are written: a reconcile hands its
// write over and goes on with the next key. Writes coalesce per key: while one waits, a newer one
// for the same key replaces it (each carries everything it writes, so the newest is enough); the
// writes of one key never run at once, and a key submitted while its write is under way is written
// again afterwards. A write that fails sends its key back through `retry` (the work queue, with
// its backoff), so that a reconcile computes it again from fresh caches; NotFound means the
// object is gone and nothing is left to report.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fedhpa::controller {

class StatusWriter {
 public:
  using Write = std::function<void()>;  // throws clusters::ClientError when the write failed

  StatusWriter(std::size_t threads, std::function<void(const std::string& key)> retry);
  // Drops what waits; waits for the writes under way.
  ~StatusWriter();
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  void submit(const std::string& key, Write write);
  // Blocks until nothing waits and nothing is under way (tests, and a deliberate flush).
  void waitUntilIdle();
  void stop();  // drops what waits, returns once the writes under way are done

 private:
  void run();

  std::function<void(const std::string& key)> retry_;
  std::mutex mutex_;
  std::condition_variable work_;  // a key to write (one writer per key), or stopping
  std::condition_variable idle_;  // nothing waits and nothing is under way, or stopping
  std::deque<std::string> order_;          // keys waiting, oldest first
  std::map<std::string, Write> pending_;   // the newest write of each key not yet taken
  std::set<std::string> running_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace fedhpa::controller
