// reconcile(namespace/name) for one federated Deployment, kubefed v1's way: created in the
// members, kept in sync, deleted (or orphaned) with the federated one. Without an HPA targeting it,
// spec.replicas goes to the placed members as its propagation policy's replicaScheduling says
// (replicaShares); when a federated HPA targets it, the HPA reconciler names the members holding
// the HPA in annotation federation.kubernetes.io/hpa-target-cluster-list and the Deployment goes
// exactly there, its replicas left to the local HPAs, never overwritten.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "federation/controller/hpa_reconciler.h"
#include "federation/controller/propagation_policy.h"

namespace fedhpa::controller {

inline constexpr const char* kHpaTargetClusterListAnnotation = "federation.kubernetes.io/hpa-target-cluster-list";

extern const clusters::Resource kDeployments;

// The replicas each of `placed` (name and labels, in name order) runs, as Karmada schedules a
// Deployment's replicas: Duplicated (also a policy without replicaScheduling) -> all of them on
// each; Divided with Weighted static weights -> split by Placement::weightsOf; anything else (no
// policy, Divided without Weighted, Aggregated) -> evenly. A split is the largest remainder, ties
// to the first by name: 10 over three equal members -> 4, 3, 3; 10 at 2:1 -> 7, 3.
std::vector<long long> replicaShares(long long replicas,
                                     const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& placed,
                                     const std::optional<Placement>& placement);

class DeploymentReconciler {
 public:
  explicit DeploymentReconciler(ReconcilerContext context);
  // Throws when the key should come back later: a member write failed, or a member that may hold
  // a copy of a Deployment being deleted cannot be reached.
  void reconcile(const std::string& key);

 private:
  ReconcilerContext context_;
};

}  // namespace fedhpa::controller
