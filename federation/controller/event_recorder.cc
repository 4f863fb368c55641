#include "federation/controller/event_recorder.h"

#include <chrono>

#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::json;

namespace {

const clusters::Resource kEvents{"", "v1", "events", true};

}  // namespace

EventRecorder::EventRecorder(clusters::KubeClient& federation, TimeSource& time)
    : federation_(federation), time_(time), poster_([this] { run(); }) {}

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
  const std::string now = api::formatRfc3339(time_.systemTime());
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
      post(std::move(event));
    } catch (const clusters::ClientError& error) {
      posted = false;
      FEDHPA_LOG(warning) << "recording event: " << error.what();
    }
    lock.lock();
    // Shutting down with the API gone: what is left would only wait out every retry.
    if (!posted && stopping_) return;
  }
}

void EventRecorder::post(json event) {
  const std::string key = event["involvedObject"].value("uid", "") + "\n" + event.value("type", "") + "\n" +
                          event.value("reason", "") + "\n" + event.value("message", "");
  const auto now = time_.monotonicTime();
  if (const auto it = posted_.find(key); it != posted_.end() && now - it->second.at < kRepeatWindow) {
    Posted& earlier = it->second;
    const json patch = {{"count", earlier.count + 1}, {"lastTimestamp", event["lastTimestamp"]}};
    try {
      federation_.mergePatch(kEvents, earlier.namespaceName, earlier.name, patch);
      ++earlier.count;
      earlier.at = now;
      postedOrder_.splice(postedOrder_.end(), postedOrder_, earlier.age);
      return;
    } catch (const clusters::ClientError& error) {
      if (error.kind() != clusters::ClientError::Kind::NotFound) throw;
      // The Event expired or was deleted: post it anew.
    }
  }
  if (const auto it = posted_.find(key); it != posted_.end()) {
    postedOrder_.erase(it->second.age);
    posted_.erase(it);
  }
  const std::string ns = event["metadata"].value("namespace", "");
  const json created = federation_.create(kEvents, ns, event);
  const std::string name = created.value("metadata", json::object()).value("name", "");
  if (name.empty()) return;
  postedOrder_.push_back(key);
  posted_[key] = Posted{name, ns, 1, now, std::prev(postedOrder_.end())};
  if (postedOrder_.size() > kMaxRemembered) {
    posted_.erase(postedOrder_.front());
    postedOrder_.pop_front();
  }
}

}  // namespace fedhpa::controller
