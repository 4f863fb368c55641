// What `kubectl get propagationpolicy` shows: each policy's status lists the federated objects it
// governs (by the same rule that places them, propagation_policy.h) and the Ready members each is
// placed on. Karmada shows this through ResourceBindings; fedhpa serves none, so the policy's own
// status carries it (docs/karmada.md#what-each-policy-placed).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "clusters/client/kube_client.h"
#include "federation/controller/hpa_reconciler.h"
#include "federation/controller/member_hpa.h"
#include "federation/controller/policy_index.h"

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
// kind, namespace, name, clusters}]}, from the objects it governs (kind and object, as
// PolicyIndex::governedBy gives them).
nlohmann::json statusOf(const nlohmann::json& policy, const std::vector<std::pair<std::string, nlohmann::json>>& governed,
                        const std::vector<Member>& members, std::size_t limit = kMaxPlacementsListed);

// The same, judging every object against every policy of both kinds (a policy that loses an
// object to another governs nothing of it): what the index keeps, computed from scratch.
nlohmann::json policyStatus(const nlohmann::json& policy, const FederatedObjects& objects,
                            const std::vector<nlohmann::json>& propagationPolicies,
                            const std::vector<nlohmann::json>& clusterPropagationPolicies, const std::vector<Member>& members,
                            std::size_t limit = kMaxPlacementsListed);

// The policy-status loop's keys besides a policy's own ("namespace/name" for a PropagationPolicy,
// "name" for a ClusterPropagationPolicy: its status is written): an object that changed
// ("object:Deployment:default/nginx") and a policy whose spec changed ("policy:default/nginx").
std::string objectChangeKey(const std::string& kind, const std::string& objectKey);
std::string policyChangeKey(const std::string& policyKey);

// The policy-status loop, on one queue. A change key updates the index and enqueues the keys of
// the policies whose status it may change; a policy's key writes its status, from the objects the
// index says it governs. Writes only what differs, as a merge patch of the status subresource
// carrying the resourceVersion read: a policy changed meanwhile gets a 409 and is reconciled again.
class PolicyStatusReconciler {
 public:
  struct Inputs {
    clusters::KubeClient& federation;
    std::function<std::vector<nlohmann::json>()> propagationPolicies;  // the caches' lists
    std::function<std::vector<nlohmann::json>()> clusterPropagationPolicies;
    PolicyIndex& index;
    MemberClusters& members;
    std::function<void(const std::string& key)> enqueue;  // onto this loop's queue
  };
  explicit PolicyStatusReconciler(Inputs inputs) : inputs_(std::move(inputs)) {}
  void reconcile(const std::string& key);

 private:
  void writeStatus(const std::string& key);
  Inputs inputs_;
};

}  // namespace fedhpa::controller
