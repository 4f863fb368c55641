// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so
// that several controller-managers can run and only one acts. The leader renews the Lease every
// retry period; a candidate takes it over once it has not been renewed for the lease duration;
// a leader that cannot renew within the renew deadline stops leading.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "clusters/client/kube_client.h"

namespace fedhpa::controller {

struct LeaseTimes {
  std::chrono::milliseconds leaseDuration{15000};
  std::chrono::milliseconds renewDeadline{10000};
  std::chrono::milliseconds retryPeriod{2000};
};

class LeaderElector {
 public:
  LeaderElector(clusters::KubeClient& client, std::string namespaceName, std::string leaseName, std::string identity,
                LeaseTimes times = {});
  ~LeaderElector();

  // Runs the election on its own thread: onStarted when this process becomes the leader,
  // onStopped when it loses the Lease (it does not campaign again, like kube-controller-manager).
  void start(std::function<void()> onStarted, std::function<void()> onStopped);
  void stop();
  bool leading() const { return leading_; }

 private:
  void run();
  // One attempt to acquire or renew; true when this process holds the Lease afterwards.
  bool tryAcquireOrRenew();

  clusters::KubeClient& client_;
  std::string namespace_;
  std::string name_;
  std::string identity_;
  LeaseTimes times_;
  std::function<void()> onStarted_;
  std::function<void()> onStopped_;
  std::atomic<bool> leading_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fedhpa::controller
