// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so
// that several controller-managers can run and only one acts:
// - a candidate judges the holder by the time *it* saw the Lease record last change (its own
//   monotonic clock), never by the renewTime written there: the two machines' clocks may differ;
// - the leader renews every retry period, and stops leading once it has not renewed for the renew
//   deadline, which is shorter than the lease duration, so it stops before anyone may take over;
// - each call is bounded by the client's request timeout, which the caller keeps well under the
//   renew deadline (callTimeout below says how much), so no call can carry it past the deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "clusters/client/kube_client.h"
#include "federation/common/time_source.h"

namespace fedhpa::controller {

struct LeaseTimes {
  std::chrono::milliseconds leaseDuration{15000};
  std::chrono::milliseconds renewDeadline{10000};
  std::chrono::milliseconds retryPeriod{2000};
  // What the election's client may spend on one call: one retry period, so that the renew
  // deadline still has room for a second attempt.
  std::chrono::milliseconds callTimeout() const { return retryPeriod; }
};

class LeaderElector {
 public:
  LeaderElector(clusters::KubeClient& client, std::string namespaceName, std::string leaseName, std::string identity,
                TimeSource& time, LeaseTimes times = {});
  ~LeaderElector();

  // Runs the election on its own thread: onStarted when this process becomes the leader,
  // onStopped when it loses the Lease (it does not campaign again, like kube-controller-manager).
  void start(std::function<void()> onStarted, std::function<void()> onStopped);
  void stop();
  bool leading() const { return leading_; }

  // One attempt to acquire or renew; true when this process holds the Lease afterwards.
  // (public for tests, which drive it with a fake clock)
  bool tryAcquireOrRenew();

 private:
  void run();

  clusters::KubeClient& client_;
  std::string namespace_;
  std::string name_;
  std::string identity_;
  TimeSource& time_;
  LeaseTimes times_;
  std::function<void()> onStarted_;
  std::function<void()> onStopped_;
  std::atomic<bool> leading_{false};
  // The holder's record as last seen, and when (on this process's clock) it last changed.
  std::string observedRecord_;
  MonotonicTime observedAt_{};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fedhpa::controller
