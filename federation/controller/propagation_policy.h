// Karmada's PropagationPolicy and ClusterPropagationPolicy as the controller reads them: which
// policy governs an object (Karmada's rules) and where that policy places it. Pure apart from
// PolicyCaches, which reads the federation's informer caches of both kinds.
//
// Which policy wins (docs/karmada.md#propagationpolicy): a PropagationPolicy of the object's
// namespace before any ClusterPropagationPolicy; among policies of one kind the higher
// spec.priority, then the more specific selector (name > labelSelector > apiVersion and kind
// only), then the policy's name (namespace/name), alphabetically first. A policy being deleted
// governs nothing.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "clusters/client/informer.h"
#include "federation/api/machinery/selectors.h"
#include "partitioner/types.h"

namespace fedhpa::controller {

// What the governing policy's placement was, kept on each object it governs (JSON: the policy's
// name and its spec.placement), so that the object stays where it is once the policy is gone:
// Karmada keeps what a deleted policy propagated.
inline constexpr const char* kRetainedPlacementAnnotation = "federation.kubernetes.io/propagation-placement";

extern const clusters::Resource kPropagationPolicies;
extern const clusters::Resource kClusterPropagationPolicies;

// What a resourceSelector is matched against.
struct ObjectRef {
  std::string apiVersion;  // "apps/v1"
  std::string kind;        // "Deployment"
  std::string namespaceName;
  std::string name;
  std::map<std::string, std::string> labels;
};
// An object's reference under the served apiVersion and kind given (cached objects may lack them).
ObjectRef refOf(const nlohmann::json& object, std::string apiVersion, std::string kind);

// Karmada's ClusterAffinity: clusterNames (when given), minus exclude, and labelSelector; AND-ed.
struct ClusterAffinity {
  std::optional<std::vector<std::string>> names;
  std::vector<std::string> exclude;
  std::optional<api::machinery::LabelSelector> labels;
  bool matches(const std::string& cluster, const std::map<std::string, std::string>& clusterLabels) const;
};

struct Placement {
  std::string policy;           // "PropagationPolicy default/nginx-propagation", for Events and logs
  nlohmann::json source;        // the policy's spec.placement, as kept in kRetainedPlacementAnnotation
  bool retained = false;        // read from that annotation: the policy that placed the object is gone
  std::string resourceVersion;  // of that policy: a change of it replans what it governs
  ClusterAffinity affinity;
  // Duplicated (Karmada's reading of a placement without replicaScheduling too): a Deployment no
  // HPA targets runs all its replicas on every placed member.
  bool duplicated = false;
  // Divided with Weighted and static weights (or no weightPreference, which weighs every placed
  // cluster equally): the federated HPA's max is split by these, not by load.
  bool staticWeights = false;
  std::vector<std::pair<ClusterAffinity, partitioner::Replicas>> weights;

  bool placesOn(const std::string& cluster, const std::map<std::string, std::string>& clusterLabels) const {
    return affinity.matches(cluster, clusterLabels);
  }
  // Karmada's static weight of each of `clusters` (the placed ones): the largest weight of the
  // entries whose targetCluster matches it, 0 when none does; 1 each when none matches any.
  std::map<std::string, partitioner::Replicas> weightsOf(
      const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& clusters) const;
};

// How Events, logs and Placement::policy name a policy: "PropagationPolicy default/nginx-propagation"
// or "ClusterPropagationPolicy everywhere".
std::string policyDisplayName(const nlohmann::json& policy);

// Throws api::machinery::SelectorError on a selector that does not parse (validation refuses them).
Placement placementOf(const nlohmann::json& policy);

// How the policy-status queue and the index name a policy: "namespace/name" for a
// PropagationPolicy, "name" for a ClusterPropagationPolicy.
std::string policyKey(const nlohmann::json& policy);
// Whether `policy` selects `object` at all (one of its resourceSelectors matches, in its scope),
// whether or not it wins it.
bool policySelects(const nlohmann::json& policy, const ObjectRef& object);

// The policy that governs `object` among these (each a PropagationPolicy or a
// ClusterPropagationPolicy, told apart by metadata.namespace); nullptr when none selects it.
const nlohmann::json* governingPolicy(const ObjectRef& object, const std::vector<nlohmann::json>& propagationPolicies,
                                      const std::vector<nlohmann::json>& clusterPropagationPolicies);

// The placement of the policy that governs `object` among these (each a PropagationPolicy or a
// ClusterPropagationPolicy, told apart by metadata.namespace); nullopt when none selects it.
std::optional<Placement> governingPlacement(const ObjectRef& object, const std::vector<nlohmann::json>& propagationPolicies,
                                            const std::vector<nlohmann::json>& clusterPropagationPolicies);

// The name of the FederatedHPA that owns a federated HPA (its ownerReferences); "" when none does.
std::string owningFederatedHpa(const nlohmann::json& hpa);
// The name of the Deployment a federated HPA scales (its scaleTargetRef); "" for any other kind.
std::string targetDeploymentOf(const nlohmann::json& hpa);

// What a policy may select a federated HPA by, in the order they count: the HPA itself, the
// FederatedHPA that owns it (`owner`: that FederatedHPA, for its labels), its scale target
// (`target`: the federated Deployment, for its labels).
std::vector<ObjectRef> hpaRefs(const nlohmann::json& hpa, const std::optional<nlohmann::json>& target,
                               const std::optional<nlohmann::json>& owner);
// The policy that governs a federated HPA: the first of hpaRefs that some policy selects decides,
// so that Karmada's guide, whose policy selects the Deployment, places its HPA.
const nlohmann::json* governingHpaPolicy(const nlohmann::json& hpa, const std::optional<nlohmann::json>& target,
                                         const std::optional<nlohmann::json>& owner,
                                         const std::vector<nlohmann::json>& propagationPolicies,
                                         const std::vector<nlohmann::json>& clusterPropagationPolicies);
// governingHpaPolicy's placement.
std::optional<Placement> governingHpaPlacement(const nlohmann::json& hpa, const std::optional<nlohmann::json>& target,
                                               const std::optional<nlohmann::json>& owner,
                                               const std::vector<nlohmann::json>& propagationPolicies,
                                               const std::vector<nlohmann::json>& clusterPropagationPolicies);

// The placement an object keeps when no policy governs it any more (kRetainedPlacementAnnotation);
// nullopt when it has none (or it does not parse).
std::optional<Placement> retainedPlacement(const nlohmann::json& object);
// `governing`, else what the object retained from the policy that last governed it.
std::optional<Placement> effectivePlacement(std::optional<Placement> governing, const nlohmann::json& object);
// The merge patch that records `governing` on the object; nullopt when there is nothing to record
// (no governing policy, or the object records this placement already).
std::optional<nlohmann::json> retainPlacementPatch(const nlohmann::json& object, const std::optional<Placement>& governing);

// The federation's caches of both policy kinds. Either may be absent (a test without policies).
class PolicyCaches {
 public:
  using NamespaceList = std::function<std::vector<nlohmann::json>(const std::string& namespaceName)>;
  using List = std::function<std::vector<nlohmann::json>()>;
  // One object by namespace and name (nullopt: not there).
  using Get = std::function<std::optional<nlohmann::json>(const std::string& namespaceName, const std::string& name)>;
  // `federatedHpas` finds the FederatedHPAs that own HPAs, whose labels a policy's labelSelector
  // reads (empty: such a selector sees none).
  PolicyCaches(const clusters::Informer* propagationPolicies, const clusters::Informer* clusterPropagationPolicies,
               Get federatedHpas = {});
  // The lists read through functions (a unit test's own lists); an empty function: no policies.
  PolicyCaches(NamespaceList propagationPolicies, List clusterPropagationPolicies, Get federatedHpas = {})
      : namespaced_(std::move(propagationPolicies)),
        clusterScoped_(std::move(clusterPropagationPolicies)),
        federatedHpas_(std::move(federatedHpas)) {}
  std::optional<Placement> placementFor(const ObjectRef& object) const;
  // governingHpaPlacement, its target read from `deployments`, its owner from the FederatedHPAs.
  std::optional<Placement> hpaPlacement(const nlohmann::json& hpa, const clusters::Lister& deployments) const;

 private:
  NamespaceList namespaced_;
  List clusterScoped_;
  Get federatedHpas_;
};

}  // namespace fedhpa::controller
