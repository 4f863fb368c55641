#include "clusters/sim/model/replica_calculator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedhpa::sim {

namespace {

// ceil, forgiving the last bits of floating-point error (kube's readings are whole milli-units,
// ours are fractions: 40/3 per pod times 3 pods must round to 40, not 41).
int ceilToReplicas(double value) {
  if (!(value > 0)) return 0;
  const double rounded = std::ceil(value - 1e-9);
  return rounded >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(rounded);
}

bool withinTolerance(double ratio, const ControllerOptions& options) { return std::abs(1.0 - ratio) <= options.tolerance; }

bool podBased(MetricSource source) {
  return source == MetricSource::Resource || source == MetricSource::ContainerResource || source == MetricSource::Pods;
}

// kube's condition reason and error text for a metric it could not read.
MetricError unreadable(const MetricInput& metric, const std::string& cause) {
  switch (metric.source) {
    case MetricSource::Resource:
      return {"FailedGetResourceMetric", "failed to get " + metric.name +
                                             (metric.targetType == TargetType::Utilization ? " utilization: " : " usage: ") + cause};
    case MetricSource::ContainerResource:
      return {"FailedGetContainerResourceMetric", "failed to get " + metric.name + " container metric value: " + cause};
    case MetricSource::Pods:
      return {"FailedGetPodsMetric", "failed to get pods metric value: " + cause};
    case MetricSource::Object:
      return {"FailedGetObjectMetric", "failed to get object metric value: " + cause};
    case MetricSource::External:
      return {"FailedGetExternalMetric", "failed to get external metric " + metric.name + ": " + cause};
  }
  return {"FailedGetResourceMetric", cause};
}

std::string noMetricsCause(const MetricInput& metric) {
  if (metric.source == MetricSource::Resource || metric.source == MetricSource::ContainerResource)
    return "unable to get metrics for resource " + metric.name + ": no metrics returned from resource metrics API";
  if (metric.source == MetricSource::External)
    return "unable to get external metric " + metric.name + ": no metrics returned from external metrics API";
  return "unable to get metric " + metric.name + ": no metrics returned from custom metrics API";
}

// The usage ratio over some pods' readings: a Utilization target compares kube's whole-percent
// utilisation (truncated, as kube computes it from usage and requests), the others the plain mean.
double usageRatio(const std::vector<double>& readings, const MetricInput& metric) {
  double sum = 0;
  for (double reading : readings) sum += reading;
  double mean = readings.empty() ? 0 : sum / static_cast<double>(readings.size());
  if (metric.targetType == TargetType::Utilization) mean = std::floor(mean + 1e-9);
  return mean / metric.target;
}

// Is this running pod, for CPU, still starting (groupPods): within the CPU initialisation period
// it is unready until ready for a whole metrics window; after it, only if it never became ready
// since its start's initial readiness delay.
bool cpuStillStarting(const Pod& pod, const MetricSample& sample, const ControllerOptions& options) {
  if (pod.started + options.cpuInitializationPeriod > sample.timestamp)
    return !pod.ready || sample.timestamp < pod.readyChanged + sample.window;
  return !pod.ready && pod.started + options.initialReadinessDelay > pod.readyChanged;
}

std::variant<ReplicaProposal, MetricError> perPodProposal(const MetricInput& metric, int current, const std::vector<Pod>& pods,
                                                          const MetricSample& sample, const ControllerOptions& options) {
  const bool cpu = metric.source != MetricSource::Pods && metric.name == "cpu";
  std::vector<double> readings;
  int unready = 0;
  int missing = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const Pod& pod = pods[i];
    if (pod.deleting || pod.phase == Pod::Phase::Failed) continue;  // ignored altogether
    if (pod.phase == Pod::Phase::Pending) {
      ++unready;
      continue;
    }
    const std::optional<double> reading = i < metric.perPod.size() ? metric.perPod[i] : std::nullopt;
    if (!reading) {
      ++missing;
      continue;
    }
    if (cpu && cpuStillStarting(pod, sample, options)) {
      ++unready;
      continue;
    }
    readings.push_back(*reading);
  }
  if (readings.empty())
    return unreadable(metric, "did not receive metrics for targeted pods (pods might be unready)");
  const double ratio = usageRatio(readings, metric);
  const bool scaleUpWithUnready = unready > 0 && ratio > 1.0;
  if (!scaleUpWithUnready && missing == 0) {
    if (withinTolerance(ratio, options)) return ReplicaProposal{current};
    return ReplicaProposal{ceilToReplicas(ratio * static_cast<double>(readings.size()))};
  }
  // Pods without metrics count against the move: as using the target's fallback on a scale-down
  // (100 % of request, or the target when that is higher; the target itself for a value), as
  // idle on a scale-up; pods still starting count as idle on a scale-up.
  if (missing > 0 && ratio != 1.0) {
    const double fill = ratio > 1.0 ? 0.0
                        : metric.targetType == TargetType::Utilization ? std::max(100.0, metric.target)
                                                                       : metric.target;
    readings.insert(readings.end(), static_cast<std::size_t>(missing), fill);
  }
  if (scaleUpWithUnready) readings.insert(readings.end(), static_cast<std::size_t>(unready), 0.0);
  const double newRatio = usageRatio(readings, metric);
  if (withinTolerance(newRatio, options) || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0))
    return ReplicaProposal{current};
  const int proposal = ceilToReplicas(newRatio * static_cast<double>(readings.size()));
  if ((newRatio < 1.0 && proposal > current) || (newRatio > 1.0 && proposal < current)) return ReplicaProposal{current};
  return ReplicaProposal{proposal};
}

// Pods Running with a Ready condition True: what Object and External Value metrics multiply.
int readyPods(const std::vector<Pod>& pods, int current) {
  if (pods.empty()) return current;
  return static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const Pod& pod) {
    return pod.phase == Pod::Phase::Running && pod.ready && !pod.deleting;
  }));
}

}  // namespace

std::variant<ReplicaProposal, MetricError> proposeReplicas(const MetricInput& metric, int current, const std::vector<Pod>& pods,
                                                           const MetricSample& sample, const ControllerOptions& options) {
  if (!metric.current && metric.perPod.empty()) return unreadable(metric, noMetricsCause(metric));
  if (!(metric.target > 0)) return unreadable(metric, "invalid target value for " + metric.name);
  if (podBased(metric.source)) {
    if (!metric.perPod.empty()) return perPodProposal(metric, current, pods, sample, options);
    // Every pod ready and reading `current`; no pods, no metrics.
    if (current <= 0) return unreadable(metric, noMetricsCause(metric));
    const double ratio = usageRatio({*metric.current}, metric);
    if (withinTolerance(ratio, options)) return ReplicaProposal{current};
    return ReplicaProposal{ceilToReplicas(ratio * current)};
  }
  const double ratio = *metric.current / metric.target;
  if (metric.targetType == TargetType::AverageValue) {
    // kube reads the whole value and divides by the target per pod; `current` is per pod.
    if (withinTolerance(ratio, options)) return ReplicaProposal{current};
    return ReplicaProposal{ceilToReplicas(ratio * current)};
  }
  // From zero replicas the ratio itself is the proposal, without tolerance (scale from zero).
  if (current == 0) return ReplicaProposal{ceilToReplicas(ratio)};
  if (withinTolerance(ratio, options)) return ReplicaProposal{current};
  return ReplicaProposal{ceilToReplicas(ratio * readyPods(pods, current))};
}

}  // namespace fedhpa::sim
