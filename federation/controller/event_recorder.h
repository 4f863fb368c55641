// Events on federated objects, posted off the reconcile path as client-go's EventBroadcaster
// does: a reconcile never waits on an Event, and never fails because one was lost. One thread
// posts them in the order recorded; past kMaxQueued waiting events new ones are dropped (and
// logged), as client-go's bounded queue drops them. Like client-go's event correlator, an Event
// that repeats one posted within kRepeatWindow (same object, type, reason and message) is not
// posted again: the posted one's count goes up and its lastTimestamp moves (one PATCH).
#pragma once

#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "clusters/client/kube_client.h"
#include "federation/common/time_source.h"

namespace fedhpa::controller {

class EventRecorder {
 public:
  static constexpr std::size_t kMaxQueued = 1000;
  static constexpr std::chrono::minutes kRepeatWindow{10};
  static constexpr std::size_t kMaxRemembered = 4096;  // posted Events kept for correlation

  EventRecorder(clusters::KubeClient& federation, TimeSource& time);
  // Posts what is still queued, then stops.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // An Event about `object` (a federated HPA or Deployment, as read from the API).
  void record(const clusters::json& object, const std::string& type, const std::string& reason, const std::string& message);

 private:
  struct Posted {
    std::string name;
    std::string namespaceName;
    long long count = 1;
    MonotonicTime at;
    std::list<std::string>::iterator age;  // position in postedOrder_
  };
  void run();
  void post(clusters::json event);

  clusters::KubeClient& federation_;
  TimeSource& time_;
  std::map<std::string, Posted> posted_;  // by correlation key; only the poster thread touches it
  std::list<std::string> postedOrder_;    // oldest first
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<clusters::json> queue_;
  bool stopping_ = false;
  std::thread poster_;
};

}  // namespace fedhpa::controller
