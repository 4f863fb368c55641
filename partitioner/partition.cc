#include "partitioner/partition.h"

#include <algorithm>
#include <cstdint>

#include "partitioner/cluster_view.h"
#include "partitioner/policies.h"

namespace fedhpa::partitioner {
namespace {

// The clusters in name order, as pointers into the input (the input is not copied). Names in a
// federation tend to share a long prefix ("member1", "member2", ...), so each name is sorted by
// the 8 bytes after the prefix they all share, packed big-endian into one integer; only names
// equal in those bytes are compared in full.
std::vector<const ClusterState*> byName(const std::vector<ClusterState>& clusters) {
  std::vector<const ClusterState*> order;
  order.reserve(clusters.size());
  for (const ClusterState& c : clusters) order.push_back(&c);
  const auto byItsName = [](const ClusterState* a, const ClusterState* b) { return a->name < b->name; };
  if (std::is_sorted(order.begin(), order.end(), byItsName)) return order;

  std::size_t shared = clusters.front().name.size();
  for (const ClusterState& c : clusters) {
    const std::string& first = clusters.front().name;
    shared = std::min(shared, c.name.size());
    shared = static_cast<std::size_t>(
        std::mismatch(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(shared), c.name.begin()).first -
        first.begin());
  }
  struct Keyed {
    std::uint64_t key;
    const ClusterState* cluster;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(clusters.size());
  for (const ClusterState& c : clusters) {
    std::uint64_t key = 0;
    for (std::size_t k = 0; k < 8; ++k) {
      const std::size_t at = shared + k;
      key = (key << 8) | (at < c.name.size() ? static_cast<unsigned char>(c.name[at]) : 0u);
    }
    keyed.push_back({key, &c});
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return a.key != b.key ? a.key < b.key : a.cluster->name < b.cluster->name;
  });
  for (std::size_t i = 0; i < keyed.size(); ++i) order[i] = keyed[i].cluster;
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
