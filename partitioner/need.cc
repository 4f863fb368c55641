#include "partitioner/need.h"

#include <cmath>

#include "partitioner/cluster_view.h"

namespace fedhpa::partitioner {

std::optional<Replicas> replicasForMetric(const MetricReading& metric, Replicas current) {
  if (!metric.current) return std::nullopt;
  return replicasForReading(*metric.current, metric.targetValue, current);
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
