// `fedhpa controller-manager`: the HPA federation controller in kubernetes/sample-controller's
// shape. Shared informers on federated HPAs and Deployments (the federation API, each watched once
// for every controller here) and on every member's managed HPAs and Deployments fill caches and
// feed rate-limited work queues of federated keys; workers run the reconcilers, which read those
// caches. Workers (ControllerRuntime) start only once the caches have synced and one probe round
// has set every member's Ready condition. The cluster registry keeps a
// client per member; MemberCalls keeps a dead or slow member from stalling the others; the token
// rotator renews each member's token before it expires.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/informer.h"
#include "clusters/client/token_rotator.h"
#include "federation/common/time_source.h"
#include "federation/controller/controller_runtime.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/hpa_reconciler.h"
#include "federation/controller/karmada_controllers.h"
#include "federation/controller/member_calls.h"
#include "federation/controller/object_propagation.h"
#include "federation/controller/policy_status.h"
#include "federation/controller/propagation_policy.h"
#include "federation/controller/work_queue.h"

namespace fedhpa::controller {

struct ControllerOptions {
  int workers = 16;
  std::chrono::milliseconds resyncPeriod{30000};
  std::chrono::milliseconds clusterProbePeriod{10000};
  std::chrono::milliseconds clusterUnhealthyGrace{40000};
  // How long start waits for members' informers to sync; one that has not is "unknown" after.
  std::chrono::milliseconds memberSyncTimeout{10000};
  MemberCallOptions memberCalls;
  clusters::TokenRotationOptions tokenRotation;
  partitioner::Policy policy;
  KarmadaOptions karmada;
};

class ControllerManager : public MemberClusters {
 public:
  ControllerManager(clusters::KubeClient& federation, clusters::ClientFactory memberClients, ControllerOptions options,
                    TimeSource& time);
  ~ControllerManager() override;

  // Returns at once; the workers start once the caches have synced (workersStarted() tells).
  void start();
  void stop();
  bool workersStarted() const { return runtime_.workersStarted(); }
  std::vector<Member> members() override;
  std::string renderMetrics() { return metrics_.render(queue_.length()); }

 private:
  // One member's informers and the client they read through, alive as long as any reconcile holds them.
  struct MemberWatch {
    std::shared_ptr<clusters::KubeClient> client;
    std::unique_ptr<clusters::Informer> hpas;
    std::unique_ptr<clusters::Informer> deployments;
    std::map<std::string, std::unique_ptr<clusters::Informer>> copies;  // by resource: ConfigMaps, Services
  };

  // One propagated kind of simple object (object_propagation.h): its queue, the federation's
  // informer on it, its reconciler.
  struct Propagation {
    Propagation(TimeSource& time, clusters::Resource resource) : resource(std::move(resource)), queue(time) {}
    clusters::Resource resource;
    WorkQueue queue;
    clusters::Informer* federated = nullptr;
    std::unique_ptr<ObjectPropagator> propagator;
  };
  std::vector<std::unique_ptr<Propagation>> makePropagations(clusters::KubeClient& federation);
  std::vector<ControllerRuntime::Loop> loops();
  // runtime_'s tickers, each at its index: everything again, tokens due, a probe round.
  enum Tickers : ControllerRuntime::TickerIndex { kResyncTicker, kTokenRotationTicker, kProbeTicker, kTickers };
  std::vector<ControllerRuntime::Ticker> tickers();
  // A federated Deployment changed: it, and the objects of its namespace it may use, which follow
  // it; and the policy index, unless nothing a policy's status reads of it changed.
  void onFederatedDeployment(const clusters::json& deployment, bool policyRelevant);
  void enqueueObjectsOf(const std::string& namespaceName);
  // Every federated HPA, Deployment, ConfigMap and Service: a propagation policy changed.
  void enqueueAllObjects();
  clusters::InformerHandlers policyHandlers();
  // Every policy's status again (a resync: members' health, which the statuses list, may have moved).
  void enqueueAllPolicies(bool resync = false);
  // A federated object of `kind` changed (not its status alone): the policy index judges it again
  // (policy_index.h).
  clusters::InformerHandlers enqueueingObjectChanges(const std::string& kind);
  // The federation's informer on objects of one of kGovernedKinds.
  const clusters::Informer* federatedInformer(const std::string& kind) const;

  // The caches synced, one probe round written, the members' caches synced (or given up on).
  bool waitForCachesAndProbe();
  void enqueueAll();
  void reconcileHpa(const std::string& key);
  void onMemberChange(const std::string& cluster);
  void onMemberReady(const std::string& cluster);
  // What the prober publishes on the member's Cluster besides its health.
  clusters::MemberReport reportOn(const std::string& cluster);
  MemberHealth healthOf(const clusters::ClusterSummary& cluster, const MemberWatch* watch);

  ControllerOptions options_;
  TimeSource& time_;
  clusters::ClusterRegistry registry_;
  clusters::ClusterHealthProber prober_;  // run by runtime_'s ticker, as is:
  clusters::TokenRotator rotator_;
  WorkQueue queue_;             // federated HPAs
  WorkQueue deploymentQueue_;   // federated Deployments
  WorkQueue policyStatusQueue_;  // both policy kinds (PolicyStatusReconciler's keys)
  ControllerMetrics metrics_;
  EventRecorder events_;
  MemberCalls calls_;
  StatusWriter statusWriter_;  // stopped by stop(), before anything its writes use goes away
  clusters::SharedInformers informers_;  // the federation's
  clusters::Informer& federatedHpas_;
  clusters::Informer& federatedDeployments_;
  // Karmada's policies: a change of one replans everything it may govern (enqueueAllObjects).
  clusters::Informer& propagationPolicies_;
  clusters::Informer& clusterPropagationPolicies_;
  PolicyCaches policies_;
  HpaReconciler reconciler_;
  DeploymentReconciler deploymentReconciler_;
  KarmadaControllers karmada_;  // FederatedHPA and CronFederatedHPA
  clusters::Informer& karmadaFederatedHpas_;  // shared with karmada_: a policy may select them
  std::vector<std::unique_ptr<Propagation>> propagations_;  // ConfigMaps and Services
  PolicyIndex policyIndex_;  // fed by policyStatusQueue_'s change keys
  PolicyStatusReconciler policyStatus_;
  std::mutex membersMutex_;
  std::map<std::string, std::shared_ptr<MemberWatch>> memberWatches_;  // by cluster
  ControllerRuntime runtime_;  // last: stopped (by its destructor too) before anything it runs goes away
};

}  // namespace fedhpa::controller
