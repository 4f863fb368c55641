// reconcile(namespace/name) for one federated HPA, DESIGN.md section 4 steps 1-6: read the
// federated HPA and the members' local HPAs, ask the partitioner for the plan, write the
// difference decreases first, aggregate the status back, record an Event per move.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "clusters/client/kube_client.h"
#include "federation/controller/controller_metrics.h"
#include "federation/controller/event_recorder.h"
#include "partitioner/types.h"

namespace fedhpa::controller {

using nlohmann::json;

inline constexpr const char* kFederationFinalizer = "federation.kubernetes.io/delete-from-underlying-clusters";
inline constexpr const char* kManagedByLabel = "federation.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "fedhpa";
inline constexpr const char* kClusterStatusAnnotation = "federation.kubernetes.io/hpa-cluster-status";

extern const clusters::Resource kHpas;

struct Member {
  std::string name;
  std::map<std::string, std::string> labels;
  bool ready = false;  // Ready, or NotReady for less than the unhealthy grace
  std::shared_ptr<clusters::KubeClient> client;
};

// The seam between reconcile and where members come from (the cluster registry in production).
class MemberClusters {
 public:
  virtual ~MemberClusters() = default;
  virtual std::vector<Member> members() = 0;
};

class HpaReconciler {
 public:
  HpaReconciler(clusters::KubeClient& federation, MemberClusters& members, partitioner::Policy policy,
                ControllerMetrics& metrics, EventRecorder& events);

  // Throws when a step failed and the key should come back later; an unreachable member is
  // skipped (its HPA is left as it is), never an error for the others.
  void reconcile(const std::string& key);

  // What reconcile read of one member (public: the status aggregation helpers take it too).
  struct MemberHpa {
    Member member;
    std::optional<json> hpa;   // the local HPA, when there is one fedhpa manages
    bool foreign = false;      // an HPA of that name fedhpa did not create
    bool reachable = true;
  };

 private:
  std::vector<MemberHpa> readMembers(const std::string& ns, const std::string& name);
  void finalize(const json& federated, const std::vector<MemberHpa>& locals);
  void ensureFinalizer(const json& federated);
  // Both return whether anything was written to a member.
  bool applyPlan(const json& federated, const partitioner::Plan& plan, const std::vector<MemberHpa>& locals);
  bool writeLocal(const json& federated, const MemberHpa& local, const std::optional<partitioner::Limits>& limits);
  void aggregateStatus(const json& federated, const std::vector<MemberHpa>& locals);
  // Names the members holding the HPA on its federated target Deployment (none: removes it).
  void markTargetDeployment(const json& federated, const std::vector<std::string>& clusters);

  clusters::KubeClient& federation_;
  MemberClusters& members_;
  partitioner::Policy policy_;
  ControllerMetrics& metrics_;
  EventRecorder& events_;
};

}  // namespace fedhpa::controller
