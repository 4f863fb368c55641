#include "federation/controller/policy_index.h"

#include "federation/controller/object_fields.h"
#include "federation/controller/propagation_policy.h"

namespace fedhpa::controller {

using nlohmann::json;

std::string governedApiVersion(const std::string& kind) {
  if (kind == "Deployment") return "apps/v1";
  if (kind == "HorizontalPodAutoscaler") return "autoscaling/v2";
  if (kind == "FederatedHPA") return "autoscaling.karmada.io/v1alpha1";
  return "v1";
}

bool policyRelevantChange(const json& before, const json& after) {
  const json none = json::object();
  const json& was = before.contains("metadata") ? before["metadata"] : none;
  const json& is = after.contains("metadata") ? after["metadata"] : none;
  for (const char* field : {"labels", "annotations", "ownerReferences", "deletionTimestamp"})
    if (was.value(field, json()) != is.value(field, json())) return true;
  return before.value("spec", json()) != after.value("spec", json());
}

std::string PolicyIndex::judge(const std::string& kind, const json& object) const {
  if (!metaField(object, "deletionTimestamp").empty()) return "";
  const std::string ns = metaField(object, "namespace");
  const std::vector<json> namespaced = sources_.propagationPolicies(ns);
  const std::vector<json> clusterScoped = sources_.clusterPropagationPolicies();
  const json* policy = nullptr;
  if (kind == "HorizontalPodAutoscaler") {
    const std::string target = targetDeploymentOf(object);
    const std::string owner = owningFederatedHpa(object);
    policy = governingHpaPolicy(object, target.empty() ? std::nullopt : sources_.get("Deployment", ns, target),
                                owner.empty() ? std::nullopt : sources_.get("FederatedHPA", ns, owner), namespaced, clusterScoped);
  } else {
    policy = governingPolicy(refOf(object, governedApiVersion(kind), kind), namespaced, clusterScoped);
  }
  return policy ? policyKey(*policy) : "";
}

bool PolicyIndex::selects(const json& policy, const std::string& kind, const json& object) const {
  if (kind != "HorizontalPodAutoscaler") return policySelects(policy, refOf(object, governedApiVersion(kind), kind));
  const std::string ns = metaField(object, "namespace");
  const std::string target = targetDeploymentOf(object);
  const std::string owner = owningFederatedHpa(object);
  for (const auto& ref : hpaRefs(object, target.empty() ? std::nullopt : sources_.get("Deployment", ns, target),
                                 owner.empty() ? std::nullopt : sources_.get("FederatedHPA", ns, owner)))
    if (policySelects(policy, ref)) return true;
  return false;
}

void PolicyIndex::recordTarget(const std::string& namespaceName, const std::string& hpa, const std::string& deployment) {
  const std::pair<std::string, std::string> key{namespaceName, hpa};
  const auto it = targetOfHpa_.find(key);
  if (it != targetOfHpa_.end()) {
    if (it->second == deployment) return;
    auto& hpas = hpasByTarget_[{namespaceName, it->second}];
    hpas.erase(hpa);
    if (hpas.empty()) hpasByTarget_.erase({namespaceName, it->second});
    targetOfHpa_.erase(it);
  }
  if (deployment.empty()) return;
  targetOfHpa_[key] = deployment;
  hpasByTarget_[{namespaceName, deployment}].insert(hpa);
}

void PolicyIndex::rejudge(const GovernedObject& object, std::set<std::string>& affected) {
  const auto cached = sources_.get(object.kind, object.namespaceName, object.name);
  if (object.kind == "HorizontalPodAutoscaler") recordTarget(object.namespaceName, object.name, cached ? targetDeploymentOf(*cached) : "");
  const std::string now = cached ? judge(object.kind, *cached) : "";
  const auto it = governor_.find(object);
  const std::string before = it == governor_.end() ? "" : it->second;
  // The governor's status lists the object's clusters too, which may have changed with it.
  if (!now.empty()) affected.insert(now);
  if (before == now) return;
  if (!before.empty()) {
    affected.insert(before);
    auto& was = governed_[before];
    was.erase(object);
    if (was.empty()) governed_.erase(before);
  }
  if (now.empty()) {
    governor_.erase(object);
  } else {
    governor_[object] = now;
    governed_[now].insert(object);
  }
}

std::set<std::string> PolicyIndex::objectChanged(const std::string& kind, const std::string& namespaceName, const std::string& name) {
  std::lock_guard lock(mutex_);
  std::set<std::string> affected;
  rejudge({kind, namespaceName, name}, affected);
  // An HPA may be placed by its target's labels or its owner's.
  if (kind == "Deployment") {
    const auto it = hpasByTarget_.find({namespaceName, name});
    const std::set<std::string> hpas = it == hpasByTarget_.end() ? std::set<std::string>{} : it->second;
    for (const auto& hpa : hpas) rejudge({"HorizontalPodAutoscaler", namespaceName, hpa}, affected);
  } else if (kind == "FederatedHPA") {
    rejudge({"HorizontalPodAutoscaler", namespaceName, name}, affected);
  }
  return affected;
}

std::set<std::string> PolicyIndex::policyChanged(const std::string& key) {
  std::lock_guard lock(mutex_);
  std::set<std::string> affected = {key};
  std::set<GovernedObject> candidates;
  if (const auto it = governed_.find(key); it != governed_.end()) candidates = it->second;
  // Those it selects now: a PropagationPolicy's namespace, or every namespace.
  const auto slash = key.find('/');
  const std::string ns = slash == std::string::npos ? "" : key.substr(0, slash);
  const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
  const std::vector<json> policies = slash == std::string::npos ? sources_.clusterPropagationPolicies() : sources_.propagationPolicies(ns);
  for (const auto& policy : policies) {
    if (metaField(policy, "name") != name || !metaField(policy, "deletionTimestamp").empty()) continue;
    for (const char* kind : kGovernedKinds)
      for (const auto& object : sources_.list(kind, ns))
        if (selects(policy, kind, object)) candidates.insert({kind, metaField(object, "namespace"), metaField(object, "name")});
  }
  for (const auto& object : candidates) rejudge(object, affected);
  return affected;
}

std::vector<std::pair<std::string, json>> PolicyIndex::governedBy(const std::string& key) const {
  std::set<GovernedObject> objects;
  {
    std::lock_guard lock(mutex_);
    if (const auto it = governed_.find(key); it != governed_.end()) objects = it->second;
  }
  std::vector<std::pair<std::string, json>> out;
  for (const auto& object : objects)
    if (auto cached = sources_.get(object.kind, object.namespaceName, object.name)) out.emplace_back(object.kind, std::move(*cached));
  return out;
}

}  // namespace fedhpa::controller
