// What a member's own HPA wants: the replica count kube-controller-manager's replica calculator
// proposes from the HPA's metrics, before its min/max clamp and its scaling behaviour.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner {

// kube-controller-manager's --horizontal-pod-autoscaler-tolerance default: a usage ratio within
// 10 % of 1 leaves the replica count as it is.
inline constexpr double kHpaTolerance = 0.1;

// The proposal for one metric at `current` replicas: usage ratio r = reading / target (per pod
// for Utilization and AverageValue, whole for Value), then current when |1 - r| <= tolerance,
// else ceil(r * current). The status reports an AverageValue of Object and External metrics per
// pod, so ceil(total / target per pod) is the same ceil(r * current). Empty when the metric has
// no reading, its target is not positive, or nothing runs (an HPA at 0 replicas does not scale).
std::optional<Replicas> replicasForMetric(const MetricReading& metric, Replicas current);
// The same for a reading and its target given as numbers (the CPU utilisation a status reports
// against the federated target, with no metric list to build). Inline: called out of line, its
// std::optional came back through the stack, a store-forwarding stall per cluster.
inline std::optional<Replicas> replicasForReading(double reading, double target, Replicas current) {
  if (!(target > 0) || current <= 0) return std::nullopt;
  const double ratio = reading / target;
  if (!std::isfinite(ratio) || ratio < 0) return std::nullopt;
  if (std::abs(1.0 - ratio) <= kHpaTolerance) return current;
  // ceil(wanted), in integers: std::ceil without SSE4.1 is a dozen instructions per cluster.
  // ceil(wanted) < kNoCap exactly when wanted <= kNoCap - 1, and below 2^53 the conversions are
  // exact.
  const double wanted = ratio * static_cast<double>(current);
  if (!(wanted <= static_cast<double>(kNoCap - 1))) return kNoCap;
  const auto whole = static_cast<Replicas>(wanted);
  return static_cast<double>(whole) < wanted ? whole + 1 : whole;
}

struct Need {
  Replicas replicas = 0;
  // The metric that decided (its index in the list), or -1 when missing metrics held the count
  // at `current`.
  int decidedBy = -1;
};

// The HPA's proposal over all its metrics: the largest. Missing metrics count as the HPA counts
// them: when every metric is missing it proposes nothing (empty here), and when some are missing
// it never scales down on the others (the need is at least `current`).
std::optional<Need> needFromMetrics(const std::vector<MetricReading>& metrics, Replicas current);

}  // namespace fedhpa::partitioner
