#include "federation/controller/hpa_reconciler.h"

#include <algorithm>

#include "federation/api/hpa_decode.h"
#include "federation/api/time.h"
#include "federation/controller/cluster_selector.h"
#include "federation/common/logging.h"
#include "partitioner/partition.h"

namespace fedhpa::controller {

using clusters::ClientError;

const clusters::Resource kHpas{"autoscaling", "v2", "horizontalpodautoscalers", true};

namespace {
constexpr const char* kHpaTargetClusterList = "federation.kubernetes.io/hpa-target-cluster-list";
}  // namespace

namespace {

const clusters::Resource kNamespaces{"", "v1", "namespaces", false};

std::string metaField(const json& object, const char* field) { return object["metadata"].value(field, ""); }

std::vector<std::string> finalizersOf(const json& object) {
  return object["metadata"].value("finalizers", std::vector<std::string>{});
}

bool managedByUs(const json& hpa) {
  return hpa["metadata"].value("labels", json::object()).value(kManagedByLabel, "") == kManagedByValue;
}

std::map<std::string, std::string> annotationsOf(const json& object) {
  std::map<std::string, std::string> out;
  const json annotations = object["metadata"].value("annotations", json::object());
  for (const auto& [key, value] : annotations.items())
    if (value.is_string()) out[key] = value.get<std::string>();
  return out;
}

// The local copy: the federated spec with the member's limits, labelled as ours.
json localSpec(const json& federated, const partitioner::Limits& limits) {
  json spec = federated.value("spec", json::object());
  spec["minReplicas"] = limits.min;
  spec["maxReplicas"] = limits.max;
  return spec;
}

}  // namespace

HpaReconciler::HpaReconciler(clusters::KubeClient& federation, MemberClusters& members, partitioner::Policy policy,
                             ControllerMetrics& metrics, EventRecorder& events)
    : federation_(federation), members_(members), policy_(policy), metrics_(metrics), events_(events) {}

std::vector<HpaReconciler::MemberHpa> HpaReconciler::readMembers(const std::string& ns, const std::string& name) {
  std::vector<MemberHpa> out;
  for (auto& member : members_.members()) {
    MemberHpa local{member, std::nullopt, false, true};
    try {
      const json hpa = member.client->get(kHpas, ns, name);
      if (managedByUs(hpa)) local.hpa = hpa;
      else local.foreign = true;
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::NotFound) {
        local.reachable = false;
        metrics_.countMemberError(member.name);
        FEDHPA_LOG(debug) << "member " << member.name << ": " << error.what();
      }
    }
    out.push_back(std::move(local));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.member.name < b.member.name; });
  return out;
}

void HpaReconciler::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  json federated;
  try {
    federated = federation_.get(kHpas, ns, name);
  } catch (const ClientError& error) {
    if (error.kind() == ClientError::Kind::NotFound) return;  // gone, and its finalizer did the cleanup
    throw;
  }
  const auto locals = readMembers(ns, name);
  if (!metaField(federated, "deletionTimestamp").empty()) {
    finalize(federated, locals);
    return;
  }
  ensureFinalizer(federated);

  const auto decoded = api::decodeFederatedHpa(federated, "federated");
  const std::string selector = annotationsOf(federated)[kClusterSelectorAnnotation];
  std::vector<partitioner::ClusterState> states;
  for (const auto& local : locals) {
    if (!local.member.ready || !local.reachable || local.foreign) continue;
    bool selected = false;
    try {
      selected = clusterSelected(selector, local.member.labels);
    } catch (const SelectorError& error) {
      events_.record(federated, "Warning", "InvalidClusterSelector", error.what());
      return;
    }
    if (!selected) continue;
    partitioner::ClusterState state{local.member.name, std::nullopt, {}};
    if (local.hpa) state.hpa = api::decodeLocalHpa(*local.hpa, "clusters." + local.member.name);
    if (const auto preferences = decoded.preferences.find(local.member.name); preferences != decoded.preferences.end())
      state.preferences = preferences->second;
    states.push_back(std::move(state));
  }
  for (const auto& local : locals)
    if (local.foreign)
      events_.record(federated, "Warning", "ForeignHpa",
                  "member " + local.member.name + " has an HPA " + name + " that fedhpa did not create; left alone");

  const partitioner::Plan plan = partitioner::partition(decoded.spec, states, policy_, std::chrono::system_clock::now());
  const bool wroteMembers = applyPlan(federated, plan, locals);
  std::vector<std::string> holders;
  for (const auto& cluster : plan.clusters)
    if (cluster.limits) holders.push_back(cluster.name);
  markTargetDeployment(federated, holders);
  // What was just read is still what the members hold unless this reconcile wrote to them.
  aggregateStatus(federated, wroteMembers ? readMembers(ns, name) : locals);
}

// Step 4, decreases first: no observer of all members may see the local maxima add up to more
// than the federated max, so every lowered max (and every delete) lands before any raised one.
bool HpaReconciler::applyPlan(const json& federated, const partitioner::Plan& plan, const std::vector<MemberHpa>& locals) {
  std::map<std::string, std::optional<partitioner::Limits>> wanted;
  for (const auto& cluster : plan.clusters) wanted[cluster.name] = cluster.limits;
  std::vector<std::pair<const MemberHpa*, std::optional<partitioner::Limits>>> lowering, raising;
  for (const auto& local : locals) {
    if (!local.reachable || local.foreign) continue;
    const auto target = wanted.count(local.member.name) ? wanted[local.member.name] : std::nullopt;
    const std::optional<long long> currentMax =
        local.hpa ? std::optional<long long>(local.hpa->value("spec", json::object()).value("maxReplicas", 0LL)) : std::nullopt;
    if (!target) {
      if (local.hpa) lowering.push_back({&local, std::nullopt});
    } else if (currentMax && target->max <= *currentMax) {
      lowering.push_back({&local, target});
    } else {
      raising.push_back({&local, target});
    }
  }
  bool wrote = false;
  for (const auto& [local, limits] : lowering) wrote = writeLocal(federated, *local, limits) || wrote;
  for (const auto& [local, limits] : raising) wrote = writeLocal(federated, *local, limits) || wrote;
  for (const auto& move : plan.moves) {
    const std::string what = !move.after ? "removed from " + move.cluster
                             : !move.before ? "placed on " + move.cluster + " (min " + std::to_string(move.after->min) +
                                                  ", max " + std::to_string(move.after->max) + ")"
                                            : move.cluster + " now min " + std::to_string(move.after->min) + ", max " +
                                                  std::to_string(move.after->max);
    events_.record(federated, "Normal", "Rebalanced", what + ": " + move.reason);
  }
  return wrote;
}

bool HpaReconciler::writeLocal(const json& federated, const MemberHpa& local, const std::optional<partitioner::Limits>& limits) {
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  auto& client = *local.member.client;
  try {
    if (!limits) {
      client.remove(kHpas, ns, name);
      metrics_.countMemberWrite("delete");
      return true;
    }
    const json spec = localSpec(federated, *limits);
    if (local.hpa) {
      if (local.hpa->value("spec", json::object()) == spec) return false;
      json patch = {{"spec", spec}};
      // Fields the federated spec dropped are dropped locally too (merge patch: null deletes).
      const json localSpecNow = local.hpa->value("spec", json::object());
      for (const auto& [field, value] : localSpecNow.items())
        if (!spec.contains(field)) patch["spec"][field] = nullptr;
      client.mergePatch(kHpas, ns, name, patch);
      metrics_.countMemberWrite("update");
      return true;
    }
    json labels = federated["metadata"].value("labels", json::object());
    labels[kManagedByLabel] = kManagedByValue;
    const json hpa = {{"apiVersion", "autoscaling/v2"},
                      {"kind", "HorizontalPodAutoscaler"},
                      {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
                      {"spec", spec}};
    try {
      client.create(kHpas, ns, hpa);
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::NotFound) throw;
      // The member lacks the namespace: make it, as kubefed v1 propagated namespaces.
      client.create(kNamespaces, "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
      client.create(kHpas, ns, hpa);
    }
    metrics_.countMemberWrite("create");
    return true;
  } catch (const ClientError& error) {
    metrics_.countMemberError(local.member.name);
    FEDHPA_LOG(warning) << "member " << local.member.name << ": writing HPA " << ns << "/" << name << ": " << error.what();
    throw;
  }
}

void HpaReconciler::finalize(const json& federated, const std::vector<MemberHpa>& locals) {
  auto finalizers = finalizersOf(federated);
  if (std::find(finalizers.begin(), finalizers.end(), kFederationFinalizer) == finalizers.end()) return;
  const bool orphan = std::find(finalizers.begin(), finalizers.end(), "orphan") != finalizers.end();
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  for (const auto& local : locals) {
    if (!local.hpa) continue;
    if (orphan) {  // left in place, and no longer ours
      local.member.client->mergePatch(kHpas, ns, name, {{"metadata", {{"labels", {{kManagedByLabel, nullptr}}}}}});
      metrics_.countMemberWrite("orphan");
    } else {
      local.member.client->remove(kHpas, ns, name);
      metrics_.countMemberWrite("delete");
    }
  }
  markTargetDeployment(federated, {});
  finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kFederationFinalizer), finalizers.end());
  federation_.mergePatch(kHpas, ns, name,
                         {{"metadata", {{"finalizers", finalizers}, {"resourceVersion", metaField(federated, "resourceVersion")}}}});
}

void HpaReconciler::ensureFinalizer(const json& federated) {
  auto finalizers = finalizersOf(federated);
  if (std::find(finalizers.begin(), finalizers.end(), kFederationFinalizer) != finalizers.end()) return;
  finalizers.push_back(kFederationFinalizer);
  federation_.mergePatch(kHpas, metaField(federated, "namespace"), metaField(federated, "name"),
                         {{"metadata", {{"finalizers", finalizers}, {"resourceVersion", metaField(federated, "resourceVersion")}}}});
}

namespace {

// The federation's view of the members' conditions: able to scale and active when every member
// holding the HPA is; limited when any member is (the reason names the members).
json aggregateConditions(const std::vector<HpaReconciler::MemberHpa>& locals, const json& previous) {
  struct Verdict {
    bool all = true;
    bool any = false;
    std::string members;
  };
  std::map<std::string, Verdict> verdicts = {{"AbleToScale", {}}, {"ScalingActive", {}}, {"ScalingLimited", {}}};
  bool seen = false;
  for (const auto& local : locals) {
    if (!local.hpa) continue;
    seen = true;
    std::map<std::string, bool> memberStatus;
    for (const auto& condition : local.hpa->value("status", json::object()).value("conditions", json::array()))
      memberStatus[condition.value("type", "")] = condition.value("status", "") == "True";
    for (auto& [type, verdict] : verdicts) {
      const bool isTrue = memberStatus.count(type) && memberStatus[type];
      verdict.all = verdict.all && isTrue;
      if (isTrue) {
        verdict.any = true;
        verdict.members += (verdict.members.empty() ? "" : ", ") + local.member.name;
      }
    }
  }
  json out = json::array();
  if (!seen) return out;
  const std::string now = api::formatRfc3339(std::chrono::system_clock::now());
  auto condition = [&](const char* type, bool status, const char* reason, const std::string& message) {
    const std::string text = status ? "True" : "False";
    std::string since = now;  // kept from the last write while the status stays the same
    for (const auto& old : previous)
      if (old.value("type", "") == type && old.value("status", "") == text) since = old.value("lastTransitionTime", now);
    out.push_back({{"type", type}, {"status", text}, {"lastTransitionTime", since}, {"reason", reason}, {"message", message}});
  };
  condition("AbleToScale", verdicts["AbleToScale"].all, verdicts["AbleToScale"].all ? "SucceededGetScale" : "MemberUnableToScale",
            verdicts["AbleToScale"].all ? "every member cluster can scale its target" : "some member clusters cannot scale their target");
  condition("ScalingActive", verdicts["ScalingActive"].all, verdicts["ScalingActive"].all ? "ValidMetricFound" : "MemberScalingInactive",
            verdicts["ScalingActive"].all ? "every member cluster computes replicas from its metrics"
                                          : "some member clusters cannot compute replicas from their metrics");
  condition("ScalingLimited", verdicts["ScalingLimited"].any, verdicts["ScalingLimited"].any ? "MemberLimited" : "DesiredWithinRange",
            verdicts["ScalingLimited"].any ? "limited in " + verdicts["ScalingLimited"].members
                                           : "every member's desired count is within its range");
  return out;
}

}  // namespace

// Step 5: the members' statuses summed onto the federated HPA, and each one in an annotation.
void HpaReconciler::aggregateStatus(const json& federated, const std::vector<MemberHpa>& locals) {
  long long current = 0, desired = 0, weightedUtilization = 0, utilizationWeight = 0;
  std::string lastScaleTime;
  json breakdown = json::object();
  for (const auto& local : locals) {
    if (!local.hpa) continue;
    const json spec = local.hpa->value("spec", json::object());
    const json status = local.hpa->value("status", json::object());
    const long long memberCurrent = status.value("currentReplicas", 0LL);
    current += memberCurrent;
    desired += status.value("desiredReplicas", 0LL);
    std::optional<long long> utilization;
    for (const auto& metric : status.value("currentMetrics", json::array()))
      if (metric.value("type", "") == "Resource" && metric["resource"].value("name", "") == "cpu")
        utilization = metric["resource"].value("current", json::object()).value("averageUtilization", 0LL);
    if (utilization) {
      weightedUtilization += *utilization * memberCurrent;
      utilizationWeight += memberCurrent;
    }
    lastScaleTime = std::max(lastScaleTime, status.value("lastScaleTime", std::string()));
    json entry = {{"min", spec.value("minReplicas", 1LL)}, {"max", spec.value("maxReplicas", 0LL)},
                  {"current", memberCurrent}, {"desired", status.value("desiredReplicas", 0LL)}};
    if (utilization) entry["cpuUtilization"] = *utilization;
    breakdown[local.member.name] = entry;
  }
  json status = {{"observedGeneration", federated["metadata"].value("generation", 1LL)},
                 {"currentReplicas", current},
                 {"desiredReplicas", desired},
                 {"conditions", aggregateConditions(locals, federated.value("status", json::object()).value("conditions", json::array()))}};
  if (utilizationWeight > 0)
    status["currentMetrics"] = json::array({{{"type", "Resource"},
                                             {"resource",
                                              {{"name", "cpu"},
                                               {"current",
                                                {{"averageUtilization", weightedUtilization / utilizationWeight},
                                                 // the members' pods request 100m each: N % is N millicores
                                                 {"averageValue", std::to_string(weightedUtilization / utilizationWeight) + "m"}}}}}}});
  if (!lastScaleTime.empty()) status["lastScaleTime"] = lastScaleTime;
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  if (federated.value("status", json::object()) != status) federation_.mergePatch(kHpas, ns, name, {{"status", status}}, "status");
  if (annotationsOf(federated)[kClusterStatusAnnotation] != breakdown.dump())
    federation_.mergePatch(kHpas, ns, name, {{"metadata", {{"annotations", {{kClusterStatusAnnotation, breakdown.dump()}}}}}});
}

void HpaReconciler::markTargetDeployment(const json& federated, const std::vector<std::string>& clusters) {
  const json ref = federated.value("spec", json::object()).value("scaleTargetRef", json::object());
  if (ref.value("kind", "") != "Deployment") return;
  const clusters::Resource deployments{"apps", "v1", "deployments", true};
  const std::string ns = metaField(federated, "namespace");
  json deployment;
  try {
    deployment = federation_.get(deployments, ns, ref.value("name", ""));
  } catch (const ClientError& error) {
    if (error.kind() == ClientError::Kind::NotFound) return;  // not federated: nothing to place
    throw;
  }
  const json wanted = clusters.empty() ? json(nullptr) : json(json{{"Names", clusters}}.dump());
  const json annotations = deployment["metadata"].value("annotations", json::object());
  const json current = annotations.contains(kHpaTargetClusterList) ? annotations[kHpaTargetClusterList] : json(nullptr);
  if (current == wanted) return;
  federation_.mergePatch(deployments, ns, ref.value("name", ""), {{"metadata", {{"annotations", {{kHpaTargetClusterList, wanted}}}}}});
}


}  // namespace fedhpa::controller
