// `fedhpa controller-manager`: the HPA federation controller in kubernetes/sample-controller's
// shape. Informers on federated HPAs (the federation API) and on every member's HPAs feed one
// rate-limited work queue of federated keys; workers run HpaReconciler::reconcile(key). The
// cluster registry keeps a client per member and the prober keeps their Ready conditions.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/informer.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/hpa_reconciler.h"
#include "federation/controller/work_queue.h"

namespace fedhpa::controller {

struct ControllerOptions {
  int workers = 4;
  std::chrono::milliseconds resyncPeriod{30000};
  std::chrono::milliseconds clusterProbePeriod{10000};
  std::chrono::milliseconds clusterUnhealthyGrace{40000};
  partitioner::Policy policy;
};

class ControllerManager : public MemberClusters {
 public:
  ControllerManager(clusters::KubeClient& federation, clusters::ClientFactory memberClients, ControllerOptions options);
  ~ControllerManager() override;

  void start();
  void stop();
  std::vector<Member> members() override;
  std::string renderMetrics() { return metrics_.render(queue_.length()); }

 private:
  void enqueueAll();
  void worker();
  void deploymentWorker();
  void onMemberChange(const std::string& cluster);
  void resyncLoop();

  clusters::KubeClient& federation_;
  ControllerOptions options_;
  clusters::ClusterRegistry registry_;
  clusters::ClusterHealthProber prober_;
  WorkQueue queue_;             // federated HPAs
  WorkQueue deploymentQueue_;   // federated Deployments
  ControllerMetrics metrics_;
  EventRecorder events_;
  HpaReconciler reconciler_;
  DeploymentReconciler deploymentReconciler_;
  std::unique_ptr<clusters::Informer> federatedHpas_;
  std::unique_ptr<clusters::Informer> federatedDeployments_;
  std::mutex membersMutex_;
  std::map<std::string, std::shared_ptr<clusters::KubeClient>> memberClients_;  // what the informers use
  std::map<std::string, std::unique_ptr<clusters::Informer>> memberHpas_;       // by cluster
  std::map<std::string, std::unique_ptr<clusters::Informer>> memberDeployments_;
  std::vector<std::thread> workers_;
  std::thread resync_;
  std::mutex stopMutex_;
  std::condition_variable stopped_;
  bool stopping_ = false;
};

}  // namespace fedhpa::controller
