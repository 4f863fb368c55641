#include "federation/controller/deployment_reconciler.h"

#include <algorithm>
#include <set>

#include "federation/controller/cluster_selector.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::ClientError;

const clusters::Resource kDeployments{"apps", "v1", "deployments", true};

namespace {

std::string metaField(const json& object, const char* field) { return object["metadata"].value(field, ""); }

std::string annotation(const json& object, const char* name) {
  const json annotations = object["metadata"].value("annotations", json::object());
  const auto it = annotations.find(name);
  return it != annotations.end() && it->is_string() ? it->get<std::string>() : "";
}

bool managedByUs(const json& object) {
  return object["metadata"].value("labels", json::object()).value(kManagedByLabel, "") == kManagedByValue;
}

}  // namespace

std::vector<long long> spreadEvenly(long long replicas, std::size_t members) {
  std::vector<long long> out(members, 0);
  if (members == 0) return out;
  const long long each = replicas / static_cast<long long>(members);
  const long long remainder = replicas % static_cast<long long>(members);
  for (std::size_t i = 0; i < members; ++i) out[i] = each + (static_cast<long long>(i) < remainder ? 1 : 0);
  return out;
}

DeploymentReconciler::DeploymentReconciler(clusters::KubeClient& federation, MemberClusters& members, ControllerMetrics& metrics)
    : federation_(federation), members_(members), metrics_(metrics) {}

void DeploymentReconciler::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  json federated;
  try {
    federated = federation_.get(kDeployments, ns, name);
  } catch (const ClientError& error) {
    if (error.kind() == ClientError::Kind::NotFound) return;
    throw;
  }
  auto members = members_.members();
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  auto finalizers = federated["metadata"].value("finalizers", std::vector<std::string>{});
  const bool ours = std::find(finalizers.begin(), finalizers.end(), kFederationFinalizer) != finalizers.end();

  if (!metaField(federated, "deletionTimestamp").empty()) {
    if (!ours) return;
    const bool orphan = std::find(finalizers.begin(), finalizers.end(), "orphan") != finalizers.end();
    for (const auto& member : members) {
      try {
        if (orphan)
          member.client->mergePatch(kDeployments, ns, name, {{"metadata", {{"labels", {{kManagedByLabel, nullptr}}}}}});
        else
          member.client->remove(kDeployments, ns, name);
      } catch (const ClientError& error) {
        if (error.kind() != ClientError::Kind::NotFound) throw;
      }
    }
    finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kFederationFinalizer), finalizers.end());
    federation_.mergePatch(kDeployments, ns, name,
                           {{"metadata", {{"finalizers", finalizers}, {"resourceVersion", metaField(federated, "resourceVersion")}}}});
    return;
  }
  if (!ours) {
    finalizers.push_back(kFederationFinalizer);
    federation_.mergePatch(kDeployments, ns, name,
                           {{"metadata", {{"finalizers", finalizers}, {"resourceVersion", metaField(federated, "resourceVersion")}}}});
  }

  // Where it goes: the HPA's clusters when one targets it, else every eligible, selected member.
  const std::string targetList = annotation(federated, kHpaTargetClusterListAnnotation);
  const bool hpaManaged = !targetList.empty();
  std::set<std::string> placed;
  if (hpaManaged) {
    const json parsed = json::parse(targetList, nullptr, false);
    for (const auto& cluster : parsed.is_object() ? parsed.value("Names", json::array()) : json::array())
      if (cluster.is_string()) placed.insert(cluster.get<std::string>());
  } else {
    const std::string selector = annotation(federated, kClusterSelectorAnnotation);
    for (const auto& member : members) {
      try {
        if (member.ready && clusterSelected(selector, member.labels)) placed.insert(member.name);
      } catch (const SelectorError& error) {
        FEDHPA_LOG(warning) << "deployment " << key << ": " << error.what();
        return;
      }
    }
  }
  const auto shares = spreadEvenly(federated["spec"].value("replicas", 1LL), placed.size());

  long long replicas = 0, ready = 0, available = 0, updated = 0;
  std::size_t index = 0;
  for (const auto& member : members) {
    if (!member.ready) continue;  // unreachable members are left as they are
    std::optional<json> local;
    try {
      local = member.client->get(kDeployments, ns, name);
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::NotFound) {
        metrics_.countMemberError(member.name);
        continue;
      }
    }
    if (local && !managedByUs(*local)) continue;  // not ours: left alone
    if (!placed.count(member.name)) {
      if (local) {
        member.client->remove(kDeployments, ns, name);
        metrics_.countMemberWrite("delete");
      }
      continue;
    }
    const long long share = shares[index++];
    json spec = federated.value("spec", json::object());
    // A local HPA owns the replicas of a Deployment it targets: federation never writes them then.
    // (at least 1 there: an HPA does not scale a Deployment from zero replicas)
    if (hpaManaged && local) spec["replicas"] = std::max(1LL, local->value("spec", json::object()).value("replicas", 1LL));
    else if (!hpaManaged) spec["replicas"] = share;
    if (!local) {
      json labels = federated["metadata"].value("labels", json::object());
      labels[kManagedByLabel] = kManagedByValue;
      json copy = {{"apiVersion", "apps/v1"},
                   {"kind", "Deployment"},
                   {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
                   {"spec", spec}};
      if (hpaManaged) copy["spec"]["replicas"] = 1;  // the local HPA takes it from here
      member.client->create(kDeployments, ns, copy);
      metrics_.countMemberWrite("create");
    } else if (local->value("spec", json::object()) != spec) {
      json patch = {{"spec", spec}};
      member.client->mergePatch(kDeployments, ns, name, patch);
      metrics_.countMemberWrite("update");
    }
    if (local) {
      const json status = local->value("status", json::object());
      replicas += status.value("replicas", 0LL);
      ready += status.value("readyReplicas", 0LL);
      available += status.value("availableReplicas", 0LL);
      updated += status.value("updatedReplicas", 0LL);
    }
  }
  const json status = {{"observedGeneration", federated["metadata"].value("generation", 1LL)},
                       {"replicas", replicas},
                       {"readyReplicas", ready},
                       {"availableReplicas", available},
                       {"updatedReplicas", updated}};
  if (federated.value("status", json::object()) != status)
    federation_.mergePatch(kDeployments, ns, name, {{"status", status}}, "status");
}

}  // namespace fedhpa::controller
