#include "federation/controller/policy_status.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "federation/controller/object_fields.h"
#include "federation/controller/object_propagation.h"
#include "federation/controller/propagation_policy.h"

namespace fedhpa::controller {

using nlohmann::json;

namespace {

struct Governed {
  ObjectRef ref;
  std::set<std::string> clusters;
};

// The clusters listed are the Ready members the placement puts the object on, narrowed by the
// object's own cluster-selector annotation, as the propagators place it (healthySelected).
void addIfGoverned(std::vector<Governed>& out, const std::string& policy, const json& object, const ObjectRef& ref,
                   const std::optional<Placement>& placement, const std::vector<Member>& members) {
  if (!placement || placement->policy != policy || !metaField(object, "deletionTimestamp").empty()) return;
  const auto clusters = healthySelected(object, members, placement, ref.kind);
  out.push_back({ref, clusters.value_or(std::set<std::string>{})});
}

}  // namespace

json policyStatus(const json& policy, const FederatedObjects& objects, const std::vector<json>& propagationPolicies,
                  const std::vector<json>& clusterPropagationPolicies, const std::vector<Member>& members, std::size_t limit) {
  const std::string name = policyDisplayName(policy);
  const std::string ns = metaField(policy, "namespace");
  // A PropagationPolicy governs only objects of its own namespace.
  const auto inScope = [&](const json& object) { return ns.empty() || metaField(object, "namespace") == ns; };
  const auto governing = [&](const ObjectRef& ref) {
    return governingPlacement(ref, propagationPolicies, clusterPropagationPolicies);
  };
  std::vector<Governed> governed;
  const auto addKind = [&](const std::vector<json>& list, const std::string& apiVersion, const std::string& kind) {
    for (const auto& object : list) {
      if (!inScope(object)) continue;
      const ObjectRef ref = refOf(object, apiVersion, kind);
      addIfGoverned(governed, name, object, ref, governing(ref), members);
    }
  };
  addKind(objects.deployments, "apps/v1", "Deployment");
  addKind(objects.services, "v1", "Service");
  addKind(objects.configMaps, "v1", "ConfigMap");
  addKind(objects.federatedHpas, "autoscaling.karmada.io/v1alpha1", "FederatedHPA");
  for (const auto& hpa : objects.hpas) {
    if (!inScope(hpa)) continue;
    const json targetRef = hpa.value("spec", json::object()).value("scaleTargetRef", json::object());
    std::optional<json> target;
    if (targetRef.is_object() && targetRef.value("kind", "") == "Deployment")
      for (const auto& deployment : objects.deployments)
        if (metaField(deployment, "namespace") == metaField(hpa, "namespace") && metaField(deployment, "name") == targetRef.value("name", ""))
          target = deployment;
    std::optional<json> owner;
    if (const std::string ownerName = owningFederatedHpa(hpa); !ownerName.empty())
      for (const auto& federatedHpa : objects.federatedHpas)
        if (metaField(federatedHpa, "namespace") == metaField(hpa, "namespace") && metaField(federatedHpa, "name") == ownerName)
          owner = federatedHpa;
    addIfGoverned(governed, name, hpa, refOf(hpa, "autoscaling/v2", "HorizontalPodAutoscaler"),
                  governingHpaPlacement(hpa, target, owner, propagationPolicies, clusterPropagationPolicies), members);
  }
  std::sort(governed.begin(), governed.end(), [](const Governed& a, const Governed& b) {
    return std::tie(a.ref.kind, a.ref.namespaceName, a.ref.name) < std::tie(b.ref.kind, b.ref.namespaceName, b.ref.name);
  });
  json placements = json::array();
  for (std::size_t i = 0; i < governed.size() && i < limit; ++i) {
    const auto& ref = governed[i].ref;
    placements.push_back({{"apiVersion", ref.apiVersion},
                          {"kind", ref.kind},
                          {"namespace", ref.namespaceName},
                          {"name", ref.name},
                          {"clusters", json(std::vector<std::string>(governed[i].clusters.begin(), governed[i].clusters.end()))}});
  }
  return {{"observedGeneration", policy.value("metadata", json::object()).value("generation", 0LL)},
          {"placedCount", governed.size()},
          {"placements", placements}};
}

void PolicyStatusReconciler::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const bool clusterScoped = slash == std::string::npos;
  const std::string ns = clusterScoped ? "" : key.substr(0, slash);
  const std::string name = clusterScoped ? key : key.substr(slash + 1);
  const std::vector<json> propagationPolicies = inputs_.propagationPolicies();
  const std::vector<json> clusterPropagationPolicies = inputs_.clusterPropagationPolicies();
  const auto& candidates = clusterScoped ? clusterPropagationPolicies : propagationPolicies;
  const auto policy = std::find_if(candidates.begin(), candidates.end(), [&](const json& candidate) {
    return metaField(candidate, "namespace") == ns && metaField(candidate, "name") == name;
  });
  if (policy == candidates.end() || !metaField(*policy, "deletionTimestamp").empty()) return;
  const json status =
      policyStatus(*policy, inputs_.objects(), propagationPolicies, clusterPropagationPolicies, inputs_.members.members());
  if (policy->value("status", json()) == status) return;
  const json patch = {{"metadata", {{"resourceVersion", metaField(*policy, "resourceVersion")}}}, {"status", status}};
  inputs_.federation.mergePatch(clusterScoped ? kClusterPropagationPolicies : kPropagationPolicies, ns, name, patch, "status");
}

}  // namespace fedhpa::controller
