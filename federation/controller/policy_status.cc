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
  std::string apiVersion;
  std::string kind;
  std::string namespaceName;
  std::string name;
  std::set<std::string> clusters;
};

constexpr const char* kObjectChange = "object:";
constexpr const char* kPolicyChange = "policy:";

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

std::string objectChangeKey(const std::string& kind, const std::string& objectKey) { return kObjectChange + kind + ":" + objectKey; }
std::string policyChangeKey(const std::string& policyKey) { return kPolicyChange + policyKey; }

// The clusters listed are the Ready members the placement puts the object on, narrowed by the
// object's own cluster-selector annotation, as the propagators place it (healthySelected,
// deploymentPlacement).
json statusOf(const json& policy, const std::vector<std::pair<std::string, json>>& governed, const std::vector<Member>& members,
              std::size_t limit) {
  std::optional<Placement> placement;
  try {
    placement = placementOf(policy);
  } catch (const api::machinery::SelectorError&) {
    // validation refuses these: one stored before places nothing
  }
  std::vector<Governed> listed;
  for (const auto& [kind, object] : governed) {
    std::set<std::string> clusters;
    // A Deployment's own rule (a member its static weights weigh 0 gets no copy), on Ready members.
    const auto where = !placement ? std::nullopt
                       : kind == "Deployment" ? deploymentPlacement(object, members, placement)
                                              : healthySelected(object, members, placement, kind);
    for (const auto& member : members)
      if (where && where->count(member.name) && member.health == MemberHealth::Healthy) clusters.insert(member.name);
    listed.push_back({governedApiVersion(kind), kind, metaField(object, "namespace"), metaField(object, "name"), std::move(clusters)});
  }
  std::sort(listed.begin(), listed.end(), [](const Governed& a, const Governed& b) {
    return std::tie(a.kind, a.namespaceName, a.name) < std::tie(b.kind, b.namespaceName, b.name);
  });
  json placements = json::array();
  for (std::size_t i = 0; i < listed.size() && i < limit; ++i)
    placements.push_back({{"apiVersion", listed[i].apiVersion},
                          {"kind", listed[i].kind},
                          {"namespace", listed[i].namespaceName},
                          {"name", listed[i].name},
                          {"clusters", json(std::vector<std::string>(listed[i].clusters.begin(), listed[i].clusters.end()))}});
  return {{"observedGeneration", policy.value("metadata", json::object()).value("generation", 0LL)},
          {"placedCount", listed.size()},
          {"placements", placements}};
}

json policyStatus(const json& policy, const FederatedObjects& objects, const std::vector<json>& propagationPolicies,
                  const std::vector<json>& clusterPropagationPolicies, const std::vector<Member>& members, std::size_t limit) {
  const auto ofKind = [&](const std::string& kind) -> const std::vector<json>& {
    if (kind == "Deployment") return objects.deployments;
    if (kind == "Service") return objects.services;
    if (kind == "ConfigMap") return objects.configMaps;
    if (kind == "HorizontalPodAutoscaler") return objects.hpas;
    return objects.federatedHpas;
  };
  const auto inNamespace = [](const std::vector<json>& list, const std::string& ns) {
    std::vector<json> out;
    for (const auto& object : list)
      if (ns.empty() || metaField(object, "namespace") == ns) out.push_back(object);
    return out;
  };
  PolicyIndex index({[&](const std::string& ns) { return inNamespace(propagationPolicies, ns); },
                     [&] { return clusterPropagationPolicies; },
                     [&](const std::string& kind, const std::string& ns, const std::string& name) -> std::optional<json> {
                       for (const auto& object : ofKind(kind))
                         if (metaField(object, "namespace") == ns && metaField(object, "name") == name) return object;
                       return std::nullopt;
                     },
                     [&](const std::string& kind, const std::string& ns) { return inNamespace(ofKind(kind), ns); }});
  for (const char* kind : kGovernedKinds)
    for (const auto& object : ofKind(kind)) index.objectChanged(kind, metaField(object, "namespace"), metaField(object, "name"));
  return statusOf(policy, index.governedBy(policyKey(policy)), members, limit);
}

void PolicyStatusReconciler::reconcile(const std::string& key) {
  if (startsWith(key, kObjectChange)) {
    const std::string rest = key.substr(std::string(kObjectChange).size());
    const auto colon = rest.find(':');
    const std::string objectKey = rest.substr(colon + 1);
    const auto slash = objectKey.find('/');
    for (const auto& policy : inputs_.index.objectChanged(rest.substr(0, colon), objectKey.substr(0, slash), objectKey.substr(slash + 1)))
      inputs_.enqueue(policy);
    return;
  }
  if (startsWith(key, kPolicyChange)) {
    for (const auto& policy : inputs_.index.policyChanged(key.substr(std::string(kPolicyChange).size()))) inputs_.enqueue(policy);
    return;
  }
  writeStatus(key);
}

void PolicyStatusReconciler::writeStatus(const std::string& key) {
  const auto slash = key.find('/');
  const bool clusterScoped = slash == std::string::npos;
  const std::string ns = clusterScoped ? "" : key.substr(0, slash);
  const std::string name = clusterScoped ? key : key.substr(slash + 1);
  const std::vector<json> candidates = clusterScoped ? inputs_.clusterPropagationPolicies() : inputs_.propagationPolicies();
  const auto policy = std::find_if(candidates.begin(), candidates.end(), [&](const json& candidate) {
    return metaField(candidate, "namespace") == ns && metaField(candidate, "name") == name;
  });
  if (policy == candidates.end() || !metaField(*policy, "deletionTimestamp").empty()) return;
  const json status = statusOf(*policy, inputs_.index.governedBy(key), inputs_.members.members());
  if (policy->value("status", json()) == status) return;
  const json patch = {{"metadata", {{"resourceVersion", metaField(*policy, "resourceVersion")}}}, {"status", status}};
  inputs_.federation.mergePatch(clusterScoped ? kClusterPropagationPolicies : kPropagationPolicies, ns, name, patch, "status");
}

}  // namespace fedhpa::controller
