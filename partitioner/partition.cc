#include "partitioner/partition.h"

#include <algorithm>

#include "partitioner/cluster_view.h"
#include "partitioner/policies.h"

namespace fedhpa::partitioner {
namespace {

// The clusters in name order, as pointers into the input (the input is not copied).
std::vector<const ClusterState*> byName(const std::vector<ClusterState>& clusters) {
  std::vector<const ClusterState*> order;
  order.reserve(clusters.size());
  for (const ClusterState& c : clusters) order.push_back(&c);
  const auto byItsName = [](const ClusterState* a, const ClusterState* b) { return a->name < b->name; };
  if (!std::is_sorted(order.begin(), order.end(), byItsName)) {
    std::sort(order.begin(), order.end(), byItsName);
  }
  return order;
}

std::string summarize(const Plan& plan, const Schedule& schedule, const FederatedSpec& spec) {
  std::size_t holders = 0;
  for (const ClusterPlan& c : plan.clusters) holders += c.limits.has_value();
  std::string text = "min " + std::to_string(spec.limits.min) + ", max " +
                     std::to_string(spec.limits.max) + " over " + std::to_string(holders) + " of " +
                     std::to_string(plan.clusters.size()) + " clusters; " +
                     (plan.moves.empty() ? "no change" : std::to_string(plan.moves.size()) +
                                                             " cluster(s) changed");
  for (const std::string& note : schedule.notes) text += "; " + note;
  return text;
}

}  // namespace

Plan partition(const FederatedSpec& requested, const std::vector<ClusterState>& input,
               const Policy& policy, TimePoint now) {
  Plan plan;
  if (requested.limits.max < 1) {
    plan.summary = "federated maxReplicas must be at least 1: nothing to place";
    return plan;
  }
  if (input.empty()) {
    plan.summary = "no eligible cluster: nothing to place (no Ready member matches the selector)";
    return plan;
  }
  FederatedSpec spec = requested;
  spec.limits.min = std::clamp<Replicas>(spec.limits.min, 1, spec.limits.max);

  const std::vector<ClusterView> views = classify(spec, byName(input), policy, now);
  Schedule schedule = policy.kind == Policy::Kind::Legacy ? scheduleLegacy(spec, views)
                                                                : scheduleDemand(spec, views);

  plan.clusters.reserve(views.size());
  plan.moves.reserve(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    std::optional<Limits> after;
    if (schedule.limits[i].max > 0) after = schedule.limits[i];
    const std::optional<Limits> before =
        views[i].present ? std::optional<Limits>(views[i].limits) : std::nullopt;
    plan.clusters.push_back({views[i].name, after});
    if (before == after) continue;
    std::string reason = std::move(schedule.reasons[i]);
    if (reason.empty()) reason = after ? "limits adjusted" : "no share left for this cluster";
    plan.moves.push_back({views[i].name, before, after, std::move(reason)});
  }
  plan.summary = summarize(plan, schedule, spec);
  return plan;
}

}  // namespace fedhpa::partitioner
