// reconcile(namespace/name) for one federated Deployment, kubefed v1's way: created in the
// members, kept in sync, deleted (or orphaned) with the federated one. Without an HPA targeting it,
// spec.replicas is spread evenly over the eligible members (largest remainder, name order); when
// a federated HPA targets it, the HPA reconciler names the members holding the HPA in annotation
// federation.kubernetes.io/hpa-target-cluster-list and the Deployment goes exactly there, its
// replicas left to the local HPAs, never overwritten.
#pragma once

#include <string>

#include "federation/controller/hpa_reconciler.h"

namespace fedhpa::controller {

inline constexpr const char* kHpaTargetClusterListAnnotation = "federation.kubernetes.io/hpa-target-cluster-list";

extern const clusters::Resource kDeployments;

// Largest remainder over the members in name order: 10 over 3 -> 4, 3, 3.
std::vector<long long> spreadEvenly(long long replicas, std::size_t members);

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
