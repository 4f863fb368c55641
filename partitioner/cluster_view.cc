#include "partitioner/cluster_view.h"

#include <algorithm>

#include "partitioner/need.h"

namespace fedhpa::partitioner {
namespace {

// The member HPA's proposal: from its metric list, or, when it reports only CPU utilisation, from
// that against the federated CPU target (kube's formula and tolerance either way). Written into
// the view (need, needMetric), which the caller has cleared: returned as a std::optional<Need> it
// went through the stack.
void writeNeed(const LocalHpa& hpa, const std::optional<Replicas>& target, ClusterView& view) {
  if (!hpa.metrics.empty()) {
    if (const auto need = needFromMetrics(hpa.metrics, hpa.status.current)) {
      view.need.emplace(need->replicas);
      if (need->decidedBy >= 0) view.needMetric = &hpa.metrics[static_cast<std::size_t>(need->decidedBy)];
    }
    return;
  }
  if (!hpa.status.cpuUtilizationPercent || !target) return;
  const auto replicas = replicasForReading(static_cast<double>(*hpa.status.cpuUtilizationPercent),
                                           static_cast<double>(*target), hpa.status.current);
  if (replicas) view.need.emplace(*replicas);
}


bool atMax(const HpaStatus& status, const Limits& limits) {
  return status.current == status.desired && status.current == limits.max;
}

// kubefed v1's test, which `legacy` uses as it is: at max, and the HPA agrees it should be.
bool saturatedLegacy(const HpaStatus& status, const Limits& limits, bool scaleable) {
  return scaleable && atMax(status, limits);
}

// `demand` adds the evidence the status gives, where it gives any: the metrics first (a need above
// the max, outside the tolerance), else the ScalingLimited condition saying the HPA wanted more
// than its max. The metrics win over the condition: an HPA without spec.behavior (kube's legacy
// path) stabilises to the highest recommendation of its downscale window in both directions, so
// for minutes after its load has gone it still wants its old size and reports TooManyReplicas at
// a lowered max. With no evidence at all it falls back to kubefed v1's test.
bool saturatedDemand(const HpaStatus& status, const Limits& limits, std::optional<Replicas> need) {
  if (!atMax(status, limits)) return false;
  if (need) return *need > limits.max;
  return status.limitedByMaxReplicas.value_or(true);
}

}  // namespace

Replicas reclaimMargin(Replicas need) { return std::max<Replicas>(1, (need + 4) / 5); }

namespace {

// Assigned, not constructed: a reused Usage keeps its name's memory. Out of line, so that
// recordUsage, which most moves call without a metric, needs no registers saved.
[[gnu::noinline]] void copyMetric(const MetricReading& metric, Usage& usage) { usage.metric = metric; }

}  // namespace

void ClusterView::recordUsage(const std::optional<Replicas>& cpuTarget, Usage& usage) const {
  // Optionals are written as a flag and a value: assigned whole, they went through the stack, a
  // store-forwarding stall on every move that quotes its usage.
  const auto write = [](std::optional<Replicas>& to, const std::optional<Replicas>& from) {
    if (from) {
      to.emplace(*from);
    } else {
      to.reset();
    }
  };
  usage.current = status->current;
  usage.max = limits.max;
  write(usage.need, need);
  write(usage.cpuUtilizationPercent, status->cpuUtilizationPercent);
  write(usage.cpuTarget, cpuTarget);
  usage.limitedByMaxReplicas = status->limitedByMaxReplicas.value_or(false);
  usage.byMetric = needMetric != nullptr;
  if (needMetric) copyMetric(*needMetric, usage);
}

bool tiered(std::span<const ClusterView> views) {
  return std::any_of(views.begin(), views.end(), [](const ClusterView& v) { return v.tier != 0; });
}

std::vector<ClusterView> classify(const FederatedSpec& spec,
                                  const std::vector<ClusterState>& clusters, const Policy& policy,
                                  TimePoint now) {
  std::vector<const ClusterState*> order;
  order.reserve(clusters.size());
  for (const ClusterState& c : clusters) order.push_back(&c);
  std::vector<ClusterView> views;
  classify(spec, order, policy, now, views);
  return views;
}

Federation classify(const FederatedSpec& spec, const std::vector<const ClusterState*>& clusters,
                    const Policy& policy, TimePoint now, std::vector<ClusterView>& views) {
  // Read once, into locals: the views' stores might alias the spec and the policy, so read
  // through them they were loaded again for every cluster.
  const auto target = spec.targetCPUUtilizationPercent;
  const bool legacy = policy.kind == Policy::Kind::Legacy;
  const TimePoint::duration window = policy.scaleForbiddenWindow;
  const std::size_t n = clusters.size();
  // Gathered in locals, set in the result at the end: the result lives in the caller's memory,
  // which the views' stores might alias, so each update through it was a load and a store per
  // cluster, every iteration waiting on the one before.
  std::size_t present = 0;
  std::size_t saturated = 0;
  Replicas currentMax = 0;
  bool preferencesSet = false;
  bool tiered = false;
  bool minHeldIdle = false;
  // The views of the last plan are written over, every field of each, instead of being built
  // anew: value-initialising a view zeroes it with `rep stos`, half of classifying a cluster.
  views.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    const ClusterState& cluster = *clusters[c];
    ClusterView& view = views[c];
    view.name = cluster.name;
    const Preferences& preferences = cluster.preferences;
    if (!preferences.weight && !preferences.minReplicas && !preferences.maxReplicas &&
        !preferences.tier) {
      // Most clusters state no preferences: the defaults, with no value read and compared.
      view.weight = 1;
      view.preferredFloor = 0;
      view.preferredCap = kNoCap;
      view.tier = 0;
    } else {
      view.weight = preferences.weight.value_or(1);
      view.preferredFloor = preferences.minReplicas.value_or(0);
      view.preferredCap = preferences.maxReplicas.value_or(kNoCap);
      view.tier = std::max<Replicas>(0, preferences.tier.value_or(0));
      preferencesSet |= (view.weight != 1) | (view.preferredFloor != 0) |
                        (view.preferredCap != kNoCap) | (view.tier != 0);
      tiered |= view.tier != 0;
    }
    view.need.reset();
    view.needMetric = nullptr;
    view.maxNeeded = 0;
    if (!cluster.hpa) {
      view.present = false;
      view.limits = {};
      view.status = &kNoStatus;
      view.pristine = view.inForbiddenWindow = view.saturated = view.mayGive = false;
      view.maxKeptUnderPressure = view.maxInUse = view.minToKeep = 0;
      continue;
    }
    const LocalHpa& hpa = *cluster.hpa;
    view.present = true;
    // Clamped to 0 <= min <= max, and written field by field: built whole on the stack, the
    // limits were two 8-byte stores read back by one 16-byte load, a store-forwarding stall per
    // cluster.
    const Replicas max = std::max<Replicas>(0, hpa.limits.max);
    const Limits limits{std::clamp<Replicas>(hpa.limits.min, 0, max), max};
    view.limits.min = limits.min;
    view.limits.max = limits.max;
    ++present;
    currentMax += limits.max;
    view.status = &hpa.status;
    writeNeed(hpa, target, view);
    view.pristine = !hpa.status.lastScaleTime && hpa.status.desired == 0;
    view.inForbiddenWindow =
        hpa.status.lastScaleTime && now < *hpa.status.lastScaleTime + window;

    if (legacy) {
      // kubefed v1: an HPA that never scaled is not "scaleable" either.
      const bool scaleable = hpa.status.lastScaleTime && !view.inForbiddenWindow;
      view.saturated = saturatedLegacy(hpa.status, limits, scaleable);
      view.mayGive = view.pristine || scaleable;
    } else {
      view.saturated = saturatedDemand(hpa.status, limits, view.need);
      view.mayGive = (view.pristine || !view.inForbiddenWindow) && !view.saturated;
    }

    // Pairwise std::max: the initializer-list form is a loop over the values.
    view.maxInUse = std::max(std::max(std::max(hpa.status.current, hpa.status.desired), limits.min),
                             std::max(view.preferredFloor, Replicas{1}));

    view.maxKeptUnderPressure = view.maxInUse;
    if (!legacy && view.need && *view.need < view.maxInUse) {
      view.maxKeptUnderPressure =
          std::min(view.maxInUse, std::max(std::max(*view.need + reclaimMargin(*view.need), limits.min),
                                           std::max(view.preferredFloor, Replicas{1})));
    }

    if (view.saturated) {
      ++saturated;
      view.maxNeeded = std::max<Replicas>(1, view.need.value_or(0) - limits.max);
    }

    view.minToKeep = limits.min;
    const bool idleAtMin = hpa.status.current == hpa.status.desired &&
                           hpa.status.current == limits.min;
    if (idleAtMin && !view.saturated) {
      // Without a utilisation reading, one replica per reconcile, as kubefed v1 steps.
      const Replicas trulyNeeded = view.need.value_or(limits.min - 1);
      view.minToKeep = std::min(limits.min,
                                std::max(std::max(Replicas{1}, view.preferredFloor), trulyNeeded));
    }
    minHeldIdle |= view.minToKeep < limits.min;
  }
  return Federation{present, saturated, currentMax, preferencesSet, tiered, minHeldIdle};
}

}  // namespace fedhpa::partitioner
