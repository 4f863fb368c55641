// Events on federated objects, posted off the reconcile path as client-go's EventBroadcaster
// does: a reconcile never waits on an Event, and never fails because one was lost. One thread
// posts them in the order recorded; past kMaxQueued waiting events new ones are dropped (and
// logged), as client-go's bounded queue drops them.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "clusters/client/kube_client.h"

namespace fedhpa::controller {

class EventRecorder {
 public:
  static constexpr std::size_t kMaxQueued = 1000;

  explicit EventRecorder(clusters::KubeClient& federation);
  // Posts what is still queued, then stops.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // An Event about `object` (a federated HPA or Deployment, as read from the API).
  void record(const clusters::json& object, const std::string& type, const std::string& reason, const std::string& message);

 private:
  void run();

  clusters::KubeClient& federation_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<clusters::json> queue_;
  bool stopping_ = false;
  std::thread poster_;
};

}  // namespace fedhpa::controller
