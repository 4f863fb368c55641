#include "clusters/sim/network_faults.h"

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include "federation/api/status.h"

namespace fedhpa::sim {

namespace net = boost::asio;
namespace http = apiserver::http;

namespace {

// A watch (or any chunked response) whose every step goes through the gate: opening it (status
// and headers), each chunk, its end. Until the gate lets the opening through there is no inner
// stream yet; the steps queued behind it find it there, since the gate keeps their order.
class GatedStream : public http::ResponseStream, public std::enable_shared_from_this<GatedStream> {
 public:
  explicit GatedStream(std::shared_ptr<NetworkFaults> faults) : faults_(std::move(faults)) {}

  ~GatedStream() override {
    // Ending the inner stream sends its terminating chunk: that too waits for the gate.
    if (inner_) faults_->emit([inner = inner_] { inner->close(); });
  }

  // Under the gate: the opening went through.
  void attach(std::shared_ptr<http::ResponseStream> inner) {
    {
      std::lock_guard lock(mutex_);
      inner_ = inner;
    }
    std::weak_ptr<GatedStream> weak = shared_from_this();
    inner->onClosed([weak] {
      if (auto self = weak.lock()) self->fireClosed();
    });
  }

  bool write(std::string chunk) override {
    if (closed()) return false;
    faults_->emit([self = shared_from_this(), chunk = std::move(chunk)] {
      if (auto inner = self->inner()) inner->write(chunk);
    });
    return true;
  }

  bool write(http::SharedChunk chunk) override {
    if (closed()) return false;
    faults_->emit([self = shared_from_this(), chunk = std::move(chunk)] {
      if (auto inner = self->inner()) inner->write(chunk);
    });
    return true;
  }

  void close() override {
    {
      std::lock_guard lock(mutex_);
      if (closeRequested_) return;
      closeRequested_ = true;
    }
    faults_->emit([self = shared_from_this()] {
      if (auto inner = self->inner()) inner->close();
    });
    fireClosed();
  }

  bool closed() const override {
    std::lock_guard lock(mutex_);
    return closeRequested_ || (inner_ && inner_->closed());
  }

  void onClosed(std::function<void()> callback) override {
    {
      std::lock_guard lock(mutex_);
      if (!fired_) {
        callbacks_.push_back(std::move(callback));
        return;
      }
    }
    faults_->post(std::move(callback));
  }

 private:
  std::shared_ptr<http::ResponseStream> inner() const {
    std::lock_guard lock(mutex_);
    return inner_;
  }

  // The callbacks run on the delay threads: the inner stream may report its end from under the
  // gate's lock, and a callback (a watch's) takes locks of its own.
  void fireClosed() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mutex_);
      if (fired_) return;
      fired_ = true;
      callbacks.swap(callbacks_);
    }
    for (auto& callback : callbacks) faults_->post(std::move(callback));
  }

  std::shared_ptr<NetworkFaults> faults_;
  mutable std::mutex mutex_;
  std::shared_ptr<http::ResponseStream> inner_;
  bool closeRequested_ = false;
  bool fired_ = false;
  std::vector<std::function<void()>> callbacks_;
};

class GatedResponder : public http::Responder {
 public:
  GatedResponder(std::shared_ptr<NetworkFaults> faults, std::shared_ptr<http::Responder> inner)
      : faults_(std::move(faults)), inner_(std::move(inner)) {}

  ~GatedResponder() override {
    // Unanswered: the inner responder answers 500 when it goes, which must wait for the gate too.
    if (!answered_) faults_->emit([inner = std::move(inner_)] {});
  }

  void respond(http::Response response) override {
    if (answered_.exchange(true)) return;
    faults_->emit([inner = inner_, response = std::move(response)] { inner->respond(response); });
  }

  std::shared_ptr<http::ResponseStream> stream(int status, http::Headers headers) override {
    answered_ = true;
    auto gated = std::make_shared<GatedStream>(faults_);
    faults_->emit([gated, inner = inner_, status, headers = std::move(headers)] {
      gated->attach(inner->stream(status, headers));
    });
    return gated;
  }

 private:
  std::shared_ptr<NetworkFaults> faults_;
  std::shared_ptr<http::Responder> inner_;
  std::atomic<bool> answered_{false};
};

http::Response jsonResponse(int status, const nlohmann::json& body) {
  http::Response response{status, {}, body.dump()};
  response.headers.emplace("Content-Type", "application/json");
  return response;
}

}  // namespace

// The delays are timers on an io_context of their own: a waiting request holds no thread, so any
// number of them wait at once, and the server's threads never wait at all.
class NetworkFaults::Impl {
 public:
  explicit Impl(int threads) {
    for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { io.run(); });
  }
  ~Impl() { stop(); }
  void stop() {
    work_.reset();
    io.stop();
    for (auto& thread : threads_)
      if (thread.joinable()) thread.join();
  }

  net::io_context io;

 private:
  net::executor_work_guard<net::io_context::executor_type> work_ = net::make_work_guard(io);
  std::vector<std::thread> threads_;
};

NetworkFaults::NetworkFaults(NetworkFaultOptions options)
    : options_(options), impl_(std::make_unique<Impl>(options.threads)) {}

NetworkFaults::~NetworkFaults() { shutdown(); }

void NetworkFaults::setInner(std::shared_ptr<http::Handler> inner) { inner_ = std::move(inner); }

void NetworkFaults::handle(http::Request request, std::shared_ptr<http::Responder> responder) {
  if (request.path == kFreezePath || request.path == kUnfreezePath) return handleDebug(request, *responder);
  auto gated = std::make_shared<GatedResponder>(shared_from_this(), std::move(responder));
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(mutex_);
    delay = nextDelayLocked();
  }
  if (delay.count() > 0) {
    std::lock_guard lock(ioMutex_);
    if (impl_) {
      auto timer = std::make_shared<net::steady_timer>(impl_->io, delay);
      timer->async_wait([self = shared_from_this(), timer, request = std::move(request),
                         gated = std::move(gated)](const boost::system::error_code&) mutable {
        self->admit(std::move(request), std::move(gated));
      });
      return;
    }
  }
  admit(std::move(request), std::move(gated));
}

std::chrono::milliseconds NetworkFaults::nextDelayLocked() {
  if (options_.jitter.count() <= 0) return options_.latency;
  std::uniform_int_distribution<std::chrono::milliseconds::rep> extra(0, options_.jitter.count());
  return options_.latency + std::chrono::milliseconds(extra(random_));
}

void NetworkFaults::admit(http::Request request, std::shared_ptr<http::Responder> responder) {
  {
    std::lock_guard lock(mutex_);
    if (frozen_ && !shutDown_) {
      heldRequests_.push_back({std::move(request), std::move(responder)});
      return;
    }
  }
  serve(std::move(request), std::move(responder));
}

void NetworkFaults::serve(http::Request request, std::shared_ptr<http::Responder> responder) {
  inner_->handle(std::move(request), std::move(responder));
}

void NetworkFaults::emit(std::function<void()> action) {
  std::lock_guard lock(mutex_);
  if (frozen_ && !shutDown_) {
    heldActions_.push_back(std::move(action));
    return;
  }
  action();
}

void NetworkFaults::post(std::function<void()> action) {
  {
    std::lock_guard lock(ioMutex_);
    if (impl_) {
      net::post(impl_->io, std::move(action));
      return;
    }
  }
  action();
}

void NetworkFaults::freeze() {
  std::lock_guard lock(mutex_);
  frozen_ = true;
}

void NetworkFaults::unfreeze() {
  std::vector<Held> requests;
  {
    std::lock_guard lock(mutex_);
    if (!frozen_) return;
    frozen_ = false;
    for (auto& action : heldActions_) action();
    heldActions_.clear();
    requests.swap(heldRequests_);
  }
  // Served on the delay threads, so that the unfreeze request's own answer does not wait for them.
  for (auto& held : requests)
    post([self = shared_from_this(), request = std::make_shared<http::Request>(std::move(held.request)),
          responder = std::move(held.responder)] { self->serve(std::move(*request), responder); });
}

bool NetworkFaults::frozen() const {
  std::lock_guard lock(mutex_);
  return frozen_;
}

void NetworkFaults::shutdown() {
  std::vector<Held> requests;
  std::deque<std::function<void()>> actions;
  {
    std::lock_guard lock(mutex_);
    if (shutDown_) return;
    shutDown_ = true;
    requests.swap(heldRequests_);
    actions.swap(heldActions_);
  }
  // Dropped outside the lock: a dropped responder answers through emit(), which takes it.
  requests.clear();
  actions.clear();
  std::unique_ptr<Impl> impl;
  {
    std::lock_guard lock(ioMutex_);
    impl = std::move(impl_);
  }
  impl->stop();
  // The timers still pending hold requests and responders (and this object): let them go now.
  impl.reset();
}

void NetworkFaults::handleDebug(const http::Request& request, http::Responder& responder) {
  if (request.method != "POST") {
    const auto error = api::ApiError::methodNotAllowed("only POST to " + request.path);
    responder.respond(jsonResponse(error.code(), error.toStatus()));
    return;
  }
  if (request.path == kFreezePath) freeze();
  else unfreeze();
  responder.respond(jsonResponse(200, {{"frozen", frozen()}}));
}

}  // namespace fedhpa::sim
