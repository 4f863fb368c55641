// What `kubectl get propagationpolicy` shows: each policy's status lists the federated objects it
// governs (by the same rule that places them, propagation_policy.h) and the Ready members each is
// placed on. Karmada shows this through ResourceBindings; fedhpa serves none, so the policy's own
// status carries it (docs/karmada.md#what-each-policy-placed).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clusters/client/kube_client.h"
#include "federation/controller/hpa_reconciler.h"
#include "federation/controller/member_hpa.h"

namespace fedhpa::controller {

// A policy selecting 10k objects must not write a 10k-entry status: the first this many (sorted by
// kind, namespace, name) are listed, status.placedCount counts them all.
inline constexpr std::size_t kMaxPlacementsListed = 100;

// The federation's objects a policy can govern, as the caches hold them.
struct FederatedObjects {
  std::vector<nlohmann::json> deployments;
  std::vector<nlohmann::json> services;
  std::vector<nlohmann::json> configMaps;
  std::vector<nlohmann::json> hpas;
  std::vector<nlohmann::json> federatedHpas;
};

// The status `policy` should have: {observedGeneration, placedCount, placements: [{apiVersion,
// kind, namespace, name, clusters}]}, over every policy of both kinds (a policy that loses an
// object to another governs nothing of it).
nlohmann::json policyStatus(const nlohmann::json& policy, const FederatedObjects& objects,
                            const std::vector<nlohmann::json>& propagationPolicies,
                            const std::vector<nlohmann::json>& clusterPropagationPolicies, const std::vector<Member>& members,
                            std::size_t limit = kMaxPlacementsListed);

// Writes each policy's status (one key per policy: "namespace/name" for a PropagationPolicy, "name"
// for a ClusterPropagationPolicy, so one queue carries both). Writes only what differs, as a merge
// patch of the status subresource carrying the resourceVersion read: a policy changed meanwhile
// gets a 409 and is reconciled again.
class PolicyStatusReconciler {
 public:
  struct Inputs {
    clusters::KubeClient& federation;
    std::function<std::vector<nlohmann::json>()> propagationPolicies;  // the caches' lists
    std::function<std::vector<nlohmann::json>()> clusterPropagationPolicies;
    std::function<FederatedObjects()> objects;
    MemberClusters& members;
  };
  explicit PolicyStatusReconciler(Inputs inputs) : inputs_(std::move(inputs)) {}
  void reconcile(const std::string& key);

 private:
  Inputs inputs_;
};

}  // namespace fedhpa::controller
