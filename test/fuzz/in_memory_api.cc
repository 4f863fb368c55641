#include "test/fuzz/in_memory_api.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>

#include "federation/api/resource.h"
#include "federation/common/logging.h"
#include "federation/storage/sqlite_storage.h"
#include "test/fuzz/fuzz_checks.h"

namespace fedhpa::fuzz {

namespace {

using nlohmann::json;

// A watch stream that the peer left at once: the first write fails, as on a closed connection,
// so a watch costs one request and leaves nothing behind. Writes may come from the watch cache's
// delivery threads while the harness reads what was received.
class ClosedStream : public http::ResponseStream {
 public:
  bool write(std::string chunk) override {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return false;
      received_ += chunk;
    }
    close();
    return false;
  }
  bool write(http::SharedChunk chunk) override { return write(chunk.flat()); }
  std::string received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  void close() override {
    std::function<void()> callback;
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
      closed_ = true;
      callback = std::move(onClosed_);
    }
    if (callback) callback();
  }
  bool closed() const override {
    std::lock_guard lock(mutex_);
    return closed_;
  }
  void onClosed(std::function<void()> callback) override {
    {
      std::lock_guard lock(mutex_);
      if (!closed_) {
        onClosed_ = std::move(callback);
        return;
      }
    }
    callback();
  }

 private:
  std::string received_;
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::function<void()> onClosed_;
};

// What the handler answered. LIST and deletecollection are answered from the API server's worker
// pool, after handle() has returned, so take() waits for the answer (as a connection would).
class CapturingResponder : public http::Responder {
 public:
  void respond(http::Response response) override {
    std::lock_guard lock(mutex_);
    if (answered_) finding("the handler answered twice");
    response.body = response.flatBody();  // a list's items come as pieces: checked as one body
    response.bodyPieces.clear();
    response_ = std::move(response);
    answered_ = true;
    answeredChanged_.notify_all();
  }
  std::shared_ptr<http::ResponseStream> stream(int status, http::Headers headers) override {
    std::lock_guard lock(mutex_);
    if (answered_) finding("the handler answered twice");
    response_.status = status;
    response_.headers = std::move(headers);
    stream_ = std::make_shared<ClosedStream>();
    answered_ = true;
    answeredChanged_.notify_all();
    return stream_;
  }
  // Waits for the answer: an unanswered request is a finding after kAnswerWait (libFuzzer's own
  // -timeout calls a hang one later still).
  http::Response take(bool& streamed) {
    std::unique_lock lock(mutex_);
    if (!answeredChanged_.wait_for(lock, kAnswerWait, [&] { return answered_; }))
      finding("the handler returned without an answer");
    streamed = stream_ != nullptr;
    if (stream_) {
      stream_->close();
      response_.body = stream_->received();
    }
    return std::move(response_);
  }

 private:
  static constexpr std::chrono::seconds kAnswerWait{5};
  std::mutex mutex_;
  std::condition_variable answeredChanged_;
  bool answered_ = false;
  http::Response response_;
  std::shared_ptr<ClosedStream> stream_;
};

bool isJson(const http::Response& response) {
  const auto type = response.headers.find("Content-Type");
  return type != response.headers.end() && type->second.find("json") != std::string::npos;
}

}  // namespace

InMemoryApi::InMemoryApi() {
  // The server logs every internal error; a fuzzer provokes thousands of client errors a second.
  logging::setSilenced(true);
  auto resources = api::federationResources();
  apiserver::ApiServerOptions options;
  server_ = std::make_unique<apiserver::ApiServer>(storage::SqliteStorage::openInMemory({}), std::move(resources),
                                                   std::move(options));
  handler_ = server_->handler();
  failOn500_ = std::getenv("FEDHPA_FUZZ_FAIL_ON_500") != nullptr;
  // Objects to list, page through (continue tokens) and patch.
  for (int i = 0; i < 5; ++i) {
    http::Request create;
    create.method = "POST";
    create.path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    create.headers.emplace("Content-Type", "application/json");
    create.body = json{{"apiVersion", "autoscaling/v2"},
                       {"kind", "HorizontalPodAutoscaler"},
                       {"metadata", {{"name", "web-" + std::to_string(i)}, {"labels", {{"app", "web"}}}}},
                       {"spec",
                        {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
                         {"minReplicas", 1},
                         {"maxReplicas", 10}}}}
                      .dump();
    const auto response = serve(create);
    if (response.status != 201) finding("the fixture could not create its HPAs: " + response.body);
  }
}

InMemoryApi::~InMemoryApi() = default;

http::Response InMemoryApi::serve(http::Request request) {
  auto responder = std::make_shared<CapturingResponder>();
  handler_->handle(std::move(request), responder);
  bool streamed = false;
  http::Response response = responder->take(streamed);
  if (response.status < 100 || response.status > 599) finding("status " + std::to_string(response.status));
  if (failOn500_ && response.status >= 500) finding("a 500: " + response.body.substr(0, 300));
  if (isJson(response) && !streamed && !response.body.empty() && !json::accept(response.body))
    finding("a response body is not JSON: " + response.body.substr(0, 300));
  if (isJson(response) && streamed) {
    // A watch stream is JSON lines.
    std::size_t start = 0;
    while (start < response.body.size()) {
      auto end = response.body.find('\n', start);
      if (end == std::string::npos) end = response.body.size();
      const std::string_view line(response.body.data() + start, end - start);
      if (!line.empty() && !json::accept(line)) finding("a response body is not JSON: " + std::string(line.substr(0, 300)));
      start = end + 1;
    }
  }
  return response;
}

InMemoryApi& sharedApi() {
  static InMemoryApi api;
  return api;
}

}  // namespace fedhpa::fuzz
