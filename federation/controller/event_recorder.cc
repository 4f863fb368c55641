#include "federation/controller/event_recorder.h"

#include <chrono>

#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::json;

namespace {

const clusters::Resource kEvents{"", "v1", "events", true};

}  // namespace

EventRecorder::EventRecorder(clusters::KubeClient& federation) : federation_(federation), poster_([this] { run(); }) {}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  poster_.join();
}

void EventRecorder::record(const json& object, const std::string& type, const std::string& reason, const std::string& message) {
  const json& metadata = object["metadata"];
  const std::string now = api::formatRfc3339(std::chrono::system_clock::now());
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"generateName", metadata.value("name", "") + "."}, {"namespace", metadata.value("namespace", "")}}},
                {"involvedObject",
                 {{"kind", object.value("kind", "")},
                  {"namespace", metadata.value("namespace", "")},
                  {"name", metadata.value("name", "")},
                  {"uid", metadata.value("uid", "")},
                  {"apiVersion", object.value("apiVersion", "")}}},
                {"reason", reason},
                {"message", message},
                {"type", type},
                {"source", {{"component", "fedhpa-controller-manager"}}},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"count", 1}};
  {
    std::lock_guard lock(mutex_);
    if (queue_.size() >= kMaxQueued) {
      FEDHPA_LOG(warning) << "event queue full: dropping " << reason << " on " << metadata.value("name", "");
      return;
    }
    queue_.push_back(std::move(event));
  }
  wake_.notify_one();
}

void EventRecorder::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything posted
    json event = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    bool posted = true;
    try {
      federation_.create(kEvents, event["metadata"].value("namespace", ""), event);
    } catch (const clusters::ClientError& error) {
      posted = false;
      FEDHPA_LOG(warning) << "recording event " << event.value("reason", "") << ": " << error.what();
    }
    lock.lock();
    // Shutting down with the API gone: what is left would only wait out every retry.
    if (!posted && stopping_) return;
  }
}

}  // namespace fedhpa::controller
