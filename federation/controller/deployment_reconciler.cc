#include "federation/controller/deployment_reconciler.h"

#include <algorithm>
#include <set>

#include "federation/controller/object_propagation.h"
#include "partitioner/scratch.h"
#include "partitioner/spread.h"

namespace fedhpa::controller {

const clusters::Resource kDeployments{"apps", "v1", "deployments", true};

std::vector<long long> replicaShares(long long replicas,
                                     const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& placed,
                                     const std::optional<Placement>& placement) {
  if (placement && placement->duplicated) return std::vector<long long>(placed.size(), replicas);
  std::vector<partitioner::Replicas> weights(placed.size(), 1);
  if (placement && placement->staticWeights) {
    const auto byCluster = placement->weightsOf(placed);
    for (std::size_t i = 0; i < placed.size(); ++i) weights[i] = byCluster.at(placed[i].first);
  }
  const std::vector<partitioner::Replicas> caps(placed.size(), replicas);  // none binds
  std::vector<partitioner::Replicas> shares(placed.size(), 0);
  partitioner::Scratch scratch;
  partitioner::spreadWeighted(replicas, weights, caps, shares, scratch);
  return {shares.begin(), shares.end()};
}

DeploymentReconciler::DeploymentReconciler(ReconcilerContext context) : context_(context) {}

void DeploymentReconciler::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  auto cached = context_.federatedDeployments.get(ns, name);
  if (!cached) return;
  auto members = context_.members.members();
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  if (!metaField(*cached, "deletionTimestamp").empty()) {
    finalizeCopies(context_, kDeployments, *cached, members);
    return;
  }
  json federated = *cached;
  if (!hasFinalizer(federated, kFederationFinalizer))
    federated = context_.federation.mergePatch(kDeployments, ns, name, finalizerPatch(federated, kFederationFinalizer, true));
  const auto governing =
      context_.policies ? context_.policies->placementFor(refOf(federated, "apps/v1", "Deployment")) : std::nullopt;
  if (const auto retain = retainPlacementPatch(federated, governing))
    federated = context_.federation.mergePatch(kDeployments, ns, name, *retain);

  // Where it goes: the HPA's clusters when one targets it, else every healthy, selected member.
  const bool hpaManaged = !annotationOf(federated, kHpaTargetClusterListAnnotation).empty();
  const auto policy = effectivePlacement(governing, federated);
  const auto where = deploymentPlacement(federated, members, policy);
  if (!where) return;
  const std::set<std::string>& placed = *where;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> placedMembers;
  for (const auto& member : members)
    if (placed.count(member.name)) placedMembers.emplace_back(member.name, member.labels);
  const auto shares = replicaShares(federated["spec"].value("replicas", 1LL), placedMembers, policy);

  long long replicas = 0, ready = 0, available = 0, updated = 0;
  std::size_t index = 0;
  std::vector<MemberCall> calls;
  for (const auto& member : members) {
    const bool isPlaced = placed.count(member.name) > 0;
    const long long share = isPlaced ? shares[index++] : 0;
    // Only members whose cache can be trusted are written; the others are left as they are.
    if (member.health != MemberHealth::Healthy || !member.deployments || !member.deployments->hasSynced()) continue;
    const auto local = managedCopy(member, kDeployments, ns, name);
    auto client = member.client;
    if (!isPlaced) {
      if (local) {
        const std::string version = metaField(*local, "resourceVersion");
        calls.push_back({member.name, [=] { return client->remove(kDeployments, ns, name, "", version); }});
      }
      continue;
    }
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
      calls.push_back({member.name, [=] { return client->create(kDeployments, ns, copy); }});
    } else if (local->value("spec", json::object()) != spec) {
      const json changed = specPatch(*local, spec);  // conditional on the resourceVersion it was read at
      calls.push_back({member.name, [=] { return client->mergePatch(kDeployments, ns, name, changed); }});
    }
    if (local) {
      const json status = local->value("status", json::object());
      replicas += status.value("replicas", 0LL);
      ready += status.value("readyReplicas", 0LL);
      available += status.value("availableReplicas", 0LL);
      updated += status.value("updatedReplicas", 0LL);
    }
  }
  throwFirstMemberFailure(calls, context_.calls.callAll(calls), context_.metrics);
  for (std::size_t i = 0; i < calls.size(); ++i) context_.metrics.countMemberWrite("deployment");
  const json status = {{"observedGeneration", federated["metadata"].value("generation", 1LL)},
                       {"replicas", replicas},
                       {"readyReplicas", ready},
                       {"availableReplicas", available},
                       {"updatedReplicas", updated}};
  if (federated.value("status", json::object()) != status) {
    federated["status"] = status;  // to /status: what the cache left out of the rest stays
    context_.federation.update(kDeployments, federated, "status");
  }
}

}  // namespace fedhpa::controller
