#include "partitioner/need.h"

#include <cmath>

#include "partitioner/cluster_view.h"

namespace fedhpa::partitioner {

std::optional<Replicas> replicasForMetric(const MetricReading& metric, Replicas current) {
  if (!metric.current) return std::nullopt;
  return replicasForReading(*metric.current, metric.targetValue, current);
}

std::optional<Replicas> replicasForReading(double reading, double target, Replicas current) {
  if (!(target > 0) || current <= 0) return std::nullopt;
  const double ratio = reading / target;
  if (!std::isfinite(ratio) || ratio < 0) return std::nullopt;
  if (std::abs(1.0 - ratio) <= kHpaTolerance) return current;
  const double replicas = std::ceil(ratio * static_cast<double>(current));
  if (!(replicas < static_cast<double>(kNoCap))) return kNoCap;
  return static_cast<Replicas>(replicas);
}

std::optional<Need> needFromMetrics(const std::vector<MetricReading>& metrics, Replicas current) {
  std::optional<Need> best;
  bool someMissing = false;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const auto proposal = replicasForMetric(metrics[i], current);
    if (!proposal) {
      someMissing = true;
      continue;
    }
    if (!best || *proposal > best->replicas) best = Need{*proposal, static_cast<int>(i)};
  }
  if (best && someMissing && best->replicas < current) best = Need{current, -1};
  return best;
}

}  // namespace fedhpa::partitioner
