#include "federation/controller/propagation_policy.h"

#include <algorithm>

#include "federation/common/logging.h"
#include "federation/controller/object_fields.h"

namespace fedhpa::controller {

using nlohmann::json;

const clusters::Resource kPropagationPolicies{"policy.karmada.io", "v1alpha1", "propagationpolicies", true};
const clusters::Resource kClusterPropagationPolicies{"policy.karmada.io", "v1alpha1", "clusterpropagationpolicies", false};

namespace {

std::vector<std::string> strings(const json& list) {
  std::vector<std::string> out;
  for (const auto& item : list.is_array() ? list : json::array())
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

ClusterAffinity affinityOf(const json& affinity) {
  ClusterAffinity out;
  if (!affinity.is_object()) return out;
  if (affinity.contains("clusterNames") && affinity["clusterNames"].is_array()) out.names = strings(affinity["clusterNames"]);
  out.exclude = strings(affinity.value("exclude", json::array()));
  if (const json selector = affinity.value("labelSelector", json()); selector.is_object())
    out.labels = api::machinery::LabelSelector::fromJson(selector);
  return out;
}

std::string groupOf(const std::string& apiVersion) {
  const auto slash = apiVersion.find('/');
  return slash == std::string::npos ? "" : apiVersion.substr(0, slash);
}

// autoscaling/v1 and v2 serve one HPA object: a selector in either version selects it.
bool sameApiVersion(const std::string& selected, const ObjectRef& object) {
  if (selected == object.apiVersion) return true;
  return object.kind == "HorizontalPodAutoscaler" && groupOf(selected) == "autoscaling" && groupOf(object.apiVersion) == "autoscaling";
}

// How specifically one policy selects the object (Karmada's implicit priority): 0 not at all.
enum Specificity { kNone = 0, kKindOnly = 1, kLabels = 2, kName = 3 };

Specificity specificity(const json& policy, const ObjectRef& object, bool clusterScoped) {
  const std::string policyNamespace = metaField(policy, "namespace");
  if (!clusterScoped && policyNamespace != object.namespaceName) return kNone;
  Specificity best = kNone;
  const json spec = policy.value("spec", json::object());
  for (const auto& selector : spec.value("resourceSelectors", json::array())) {
    if (!selector.is_object()) continue;
    if (selector.value("kind", "") != object.kind || !sameApiVersion(selector.value("apiVersion", ""), object)) continue;
    if (const std::string ns = selector.value("namespace", ""); !ns.empty() && ns != object.namespaceName) continue;
    Specificity level = kKindOnly;
    if (const std::string name = selector.value("name", ""); !name.empty()) {
      if (name != object.name) continue;
      level = kName;
    } else if (const json labels = selector.value("labelSelector", json()); labels.is_object()) {
      try {
        if (!api::machinery::LabelSelector::fromJson(labels).matches(object.labels)) continue;
      } catch (const api::machinery::SelectorError&) {
        continue;  // validation refuses these; one stored before that selects nothing
      }
      level = kLabels;
    }
    best = std::max(best, level);
  }
  return best;
}

// The winner among policies of one kind: the higher priority, then the more specific selector,
// then the name that sorts first.
const json* winner(const std::vector<json>& policies, const ObjectRef& object, bool clusterScoped) {
  struct Rank {
    long long priority;
    int specificity;
    std::string name;
    bool beats(const Rank& other) const {
      if (priority != other.priority) return priority > other.priority;
      if (specificity != other.specificity) return specificity > other.specificity;
      return name < other.name;
    }
  };
  const json* best = nullptr;
  Rank bestRank{0, 0, ""};
  for (const auto& policy : policies) {
    if (!metaField(policy, "deletionTimestamp").empty()) continue;
    const Specificity level = specificity(policy, object, clusterScoped);
    if (level == kNone) continue;
    const json priority = policy.value("spec", json::object()).value("priority", json(0));
    Rank rank{priority.is_number_integer() ? priority.get<long long>() : 0, static_cast<int>(level),
              metaField(policy, "namespace") + "/" + metaField(policy, "name")};
    if (!best || rank.beats(bestRank)) {
      best = &policy;
      bestRank = std::move(rank);
    }
  }
  return best;
}

std::optional<Placement> placementOrNothing(const json& policy) {
  try {
    return placementOf(policy);
  } catch (const api::machinery::SelectorError& error) {
    FEDHPA_LOG(warning) << "policy " << metaField(policy, "name") << ": " << error.what();
    return std::nullopt;
  }
}

}  // namespace

ObjectRef refOf(const json& object, std::string apiVersion, std::string kind) {
  ObjectRef ref{std::move(apiVersion), std::move(kind), metaField(object, "namespace"), metaField(object, "name"), {}};
  const json labels = object["metadata"].value("labels", json::object());
  if (!labels.is_object()) return ref;
  for (const auto& [key, value] : labels.items())
    if (value.is_string()) ref.labels[key] = value.get<std::string>();
  return ref;
}

bool ClusterAffinity::matches(const std::string& cluster, const std::map<std::string, std::string>& clusterLabels) const {
  if (names && std::find(names->begin(), names->end(), cluster) == names->end()) return false;
  if (std::find(exclude.begin(), exclude.end(), cluster) != exclude.end()) return false;
  return !labels || labels->matches(clusterLabels);
}

std::map<std::string, partitioner::Replicas> Placement::weightsOf(
    const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& clusters) const {
  std::map<std::string, partitioner::Replicas> out;
  partitioner::Replicas total = 0;
  for (const auto& [cluster, clusterLabels] : clusters) {
    partitioner::Replicas weight = 0;
    for (const auto& [target, entryWeight] : weights)
      if (target.matches(cluster, clusterLabels)) weight = std::max(weight, entryWeight);
    out[cluster] = weight;
    total += weight;
  }
  if (total == 0)
    for (auto& [cluster, weight] : out) weight = 1;
  return out;
}

std::string policyDisplayName(const json& policy) {
  const std::string ns = metaField(policy, "namespace");
  return (ns.empty() ? "ClusterPropagationPolicy " : "PropagationPolicy " + ns + "/") + metaField(policy, "name");
}

Placement placementOf(const json& policy) {
  Placement out;
  out.policy = policyDisplayName(policy);
  out.resourceVersion = metaField(policy, "resourceVersion");
  const json placement = policy.value("spec", json::object()).value("placement", json::object());
  if (!placement.is_object()) return out;
  out.source = placement;
  out.affinity = affinityOf(placement.value("clusterAffinity", json()));
  const json scheduling = placement.value("replicaScheduling", json());
  if (!scheduling.is_object()) {
    out.duplicated = true;  // Karmada: no replicaScheduling duplicates
    return out;
  }
  out.duplicated = scheduling.value("replicaSchedulingType", "Divided") == "Duplicated";
  out.staticWeights = scheduling.value("replicaSchedulingType", "Divided") == "Divided" &&
                      scheduling.value("replicaDivisionPreference", "") == "Weighted";
  const json preference = scheduling.value("weightPreference", json::object());
  for (const auto& entry : preference.is_object() ? preference.value("staticWeightList", json::array()) : json::array()) {
    if (!entry.is_object()) continue;
    const json weight = entry.value("weight", json(0));
    out.weights.emplace_back(affinityOf(entry.value("targetCluster", json())),
                             weight.is_number_integer() ? weight.get<partitioner::Replicas>() : 0);
  }
  return out;
}

std::string policyKey(const json& policy) {
  const std::string ns = metaField(policy, "namespace");
  return (ns.empty() ? "" : ns + "/") + metaField(policy, "name");
}

bool policySelects(const json& policy, const ObjectRef& object) {
  return specificity(policy, object, metaField(policy, "namespace").empty()) != kNone;
}

const json* governingPolicy(const ObjectRef& object, const std::vector<json>& propagationPolicies,
                            const std::vector<json>& clusterPropagationPolicies) {
  if (const json* policy = winner(propagationPolicies, object, false)) return policy;
  return winner(clusterPropagationPolicies, object, true);
}

std::optional<Placement> governingPlacement(const ObjectRef& object, const std::vector<json>& propagationPolicies,
                                            const std::vector<json>& clusterPropagationPolicies) {
  const json* policy = governingPolicy(object, propagationPolicies, clusterPropagationPolicies);
  return policy ? placementOrNothing(*policy) : std::nullopt;
}

std::optional<Placement> retainedPlacement(const json& object) {
  const std::string text = annotationOf(object, kRetainedPlacementAnnotation);
  const json recorded = text.empty() ? json() : json::parse(text, nullptr, false);
  if (!recorded.is_object()) return std::nullopt;
  try {
    Placement out = placementOf({{"metadata", json::object()}, {"spec", {{"placement", recorded.value("placement", json::object())}}}});
    out.policy = recorded.value("policy", "") + " (deleted: placement retained)";
    out.retained = true;
    return out;
  } catch (const api::machinery::SelectorError&) {
    return std::nullopt;
  }
}

std::optional<Placement> effectivePlacement(std::optional<Placement> governing, const json& object) {
  if (governing) return governing;
  return retainedPlacement(object);
}

std::optional<json> retainPlacementPatch(const json& object, const std::optional<Placement>& governing) {
  if (!governing || governing->retained) return std::nullopt;
  const std::string value = json{{"policy", governing->policy}, {"placement", governing->source}}.dump();
  if (annotationOf(object, kRetainedPlacementAnnotation) == value) return std::nullopt;
  return json{{"metadata", {{"annotations", {{kRetainedPlacementAnnotation, value}}}}}};
}

PolicyCaches::PolicyCaches(const clusters::Informer* propagationPolicies, const clusters::Informer* clusterPropagationPolicies,
                           Get federatedHpas)
    : federatedHpas_(std::move(federatedHpas)) {
  if (propagationPolicies)
    namespaced_ = [propagationPolicies](const std::string& ns) { return propagationPolicies->listNamespace(ns); };
  if (clusterPropagationPolicies) clusterScoped_ = [clusterPropagationPolicies] { return clusterPropagationPolicies->list(); };
}

std::optional<Placement> PolicyCaches::placementFor(const ObjectRef& object) const {
  if (!namespaced_ && !clusterScoped_) return std::nullopt;
  return governingPlacement(object, namespaced_ ? namespaced_(object.namespaceName) : std::vector<json>{},
                            clusterScoped_ ? clusterScoped_() : std::vector<json>{});
}

std::string owningFederatedHpa(const json& hpa) {
  const json owners = hpa.value("metadata", json::object()).value("ownerReferences", json::array());
  for (const auto& owner : owners.is_array() ? owners : json::array())
    if (owner.is_object() && owner.value("kind", "") == "FederatedHPA") return owner.value("name", "");
  return "";
}

std::string targetDeploymentOf(const json& hpa) {
  const json targetRef = hpa.value("spec", json::object()).value("scaleTargetRef", json::object());
  return targetRef.is_object() && targetRef.value("kind", "") == "Deployment" ? targetRef.value("name", "") : "";
}

std::vector<ObjectRef> hpaRefs(const json& hpa, const std::optional<json>& target, const std::optional<json>& owner) {
  std::vector<ObjectRef> out = {refOf(hpa, "autoscaling/v2", "HorizontalPodAutoscaler")};
  const std::string ns = metaField(hpa, "namespace");
  const json owners = hpa.value("metadata", json::object()).value("ownerReferences", json::array());
  for (const auto& reference : owners.is_array() ? owners : json::array()) {
    if (!reference.is_object() || reference.value("kind", "") != "FederatedHPA") continue;
    ObjectRef ref{reference.value("apiVersion", ""), "FederatedHPA", ns, reference.value("name", ""), {}};
    if (owner && metaField(*owner, "name") == ref.name) ref.labels = refOf(*owner, "", "").labels;
    out.push_back(std::move(ref));
  }
  const json targetRef = hpa.value("spec", json::object()).value("scaleTargetRef", json::object());
  if (!targetRef.is_object() || targetRef.value("name", "").empty()) return out;
  ObjectRef ref{targetRef.value("apiVersion", "apps/v1"), targetRef.value("kind", ""), ns, targetRef.value("name", ""), {}};
  if (target) ref.labels = refOf(*target, "", "").labels;
  out.push_back(std::move(ref));
  return out;
}

const json* governingHpaPolicy(const json& hpa, const std::optional<json>& target, const std::optional<json>& owner,
                               const std::vector<json>& propagationPolicies, const std::vector<json>& clusterPropagationPolicies) {
  for (const auto& ref : hpaRefs(hpa, target, owner))
    if (const json* policy = governingPolicy(ref, propagationPolicies, clusterPropagationPolicies)) return policy;
  return nullptr;
}

std::optional<Placement> governingHpaPlacement(const json& hpa, const std::optional<json>& target, const std::optional<json>& owner,
                                               const std::vector<json>& propagationPolicies,
                                               const std::vector<json>& clusterPropagationPolicies) {
  const json* policy = governingHpaPolicy(hpa, target, owner, propagationPolicies, clusterPropagationPolicies);
  return policy ? placementOrNothing(*policy) : std::nullopt;
}

std::optional<Placement> PolicyCaches::hpaPlacement(const json& hpa, const clusters::Lister& deployments) const {
  if (!namespaced_ && !clusterScoped_) return std::nullopt;
  const std::string ns = metaField(hpa, "namespace");
  std::optional<json> target;
  if (const std::string name = targetDeploymentOf(hpa); !name.empty()) target = deployments.get(ns, name);
  std::optional<json> owner;
  if (const std::string name = owningFederatedHpa(hpa); !name.empty() && federatedHpas_) owner = federatedHpas_(ns, name);
  return governingHpaPlacement(hpa, target, owner, namespaced_ ? namespaced_(ns) : std::vector<json>{},
                               clusterScoped_ ? clusterScoped_() : std::vector<json>{});
}

}  // namespace fedhpa::controller
