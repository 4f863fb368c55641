// What the member-cluster simulator can do to its own network, to test the controller against a
// member that is slow or hangs: a latency added before every request is served, and a freeze
// during which nothing leaves the simulator (no response, no watch event, connections open) until
// it is unfrozen. It sits in front of the API's HTTP handler.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "federation/apiserver/http/http_types.h"

namespace fedhpa::sim {

// The two paths that are never delayed nor held: the way into a freeze and the way out of it.
inline constexpr const char* kFreezePath = "/debug/freeze";
inline constexpr const char* kUnfreezePath = "/debug/unfreeze";

struct NetworkFaultOptions {
  std::chrono::milliseconds latency{0};  // every request waits this long before it is served
  std::chrono::milliseconds jitter{0};   // plus a uniformly random extra in [0, jitter]
  int threads = 1;                       // serve the requests whose delay is over, and held ones
};

class NetworkFaults : public apiserver::http::Handler, public std::enable_shared_from_this<NetworkFaults> {
 public:
  explicit NetworkFaults(NetworkFaultOptions options);
  ~NetworkFaults() override;
  NetworkFaults(const NetworkFaults&) = delete;
  NetworkFaults& operator=(const NetworkFaults&) = delete;

  // The API's handler; set once, before the server serves.
  void setInner(std::shared_ptr<apiserver::http::Handler> inner);

  void handle(apiserver::http::Request request, std::shared_ptr<apiserver::http::Responder> responder) override;

  // From now on, requests that arrive (or whose delay ends) are held, and so is everything a
  // handler sends: responses, a watch's headers, events and end.
  void freeze();
  // Sends what was held, in order, then serves the held requests.
  void unfreeze();
  bool frozen() const;

  // Stops the delay threads and drops what is held; the server answers the dropped requests'
  // clients with a 500 when it still runs. Requests that come after are served at once.
  void shutdown();

  // Sends `action` (a response, a chunk) now, or when unfrozen; in the order they came either way.
  void emit(std::function<void()> action);
  // Runs `action` soon on one of the delay threads (at once after shutdown), holding no lock.
  void post(std::function<void()> action);

 private:
  struct Held {
    apiserver::http::Request request;
    std::shared_ptr<apiserver::http::Responder> responder;
  };
  class Impl;

  std::chrono::milliseconds nextDelayLocked();
  void admit(apiserver::http::Request request, std::shared_ptr<apiserver::http::Responder> responder);
  void serve(apiserver::http::Request request, std::shared_ptr<apiserver::http::Responder> responder);
  void handleDebug(const apiserver::http::Request& request, apiserver::http::Responder& responder);

  NetworkFaultOptions options_;
  std::shared_ptr<apiserver::http::Handler> inner_;
  // The timers' io_context and its threads; null once shut down. Its own lock, taken after
  // mutex_ and never before it: an outgoing action run under mutex_ may post().
  std::mutex ioMutex_;
  std::unique_ptr<Impl> impl_;
  // Outgoing actions run under this lock so that a flush and a new action cannot reorder; they
  // only queue work on the server's threads (or, through post(), on the delay threads), so no
  // lock of the API's is ever taken while it is held.
  mutable std::mutex mutex_;
  bool frozen_ = false;
  bool shutDown_ = false;
  std::vector<Held> heldRequests_;
  std::deque<std::function<void()>> heldActions_;
  std::mt19937 random_{std::random_device{}()};
};

}  // namespace fedhpa::sim
