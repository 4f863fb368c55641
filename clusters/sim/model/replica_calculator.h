// One metric's replica proposal, as kube-controller-manager's replica calculator
// (pkg/controller/podautoscaler/replica_calculator.go) makes it: the usage ratio against the
// target, the tolerance, and, when the member reports its pods one by one, kube's conservative
// handling of pods that are not ready yet or have no metrics.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fedhpa::sim {

using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

// kube-controller-manager's HPA flags, under their names and with their defaults.
struct ControllerOptions {
  double tolerance = 0.1;                                   // --horizontal-pod-autoscaler-tolerance
  std::chrono::seconds downscaleStabilization{300};         // --horizontal-pod-autoscaler-downscale-stabilization
  std::chrono::seconds cpuInitializationPeriod{300};        // --horizontal-pod-autoscaler-cpu-initialization-period
  std::chrono::seconds initialReadinessDelay{30};           // --horizontal-pod-autoscaler-initial-readiness-delay
};

// A pod of the scale target, as the replica calculator sees it through the pod lister.
struct Pod {
  enum class Phase { Pending, Running, Failed };
  Phase phase = Phase::Running;
  bool ready = true;
  bool deleting = false;     // metadata.deletionTimestamp set
  TimePoint started;         // status.startTime
  TimePoint readyChanged;    // the Ready condition's lastTransitionTime
};

enum class MetricSource { Resource, ContainerResource, Pods, Object, External };
enum class TargetType { Utilization, AverageValue, Value };

// One entry of spec.metrics with what the member measured for it. `target` and `current` are in
// the target's own unit: a percentage for Utilization, per pod for AverageValue, the whole value
// for Value; the usage ratio is current / target either way.
struct MetricInput {
  double target = 0;
  std::optional<double> current;  // nullopt: the metric could not be read now
  // How kube names the metric in events and conditions: "cpu resource utilization (percentage
  // of request)", "pods metric http_requests_per_second".
  std::string description;
  MetricSource source = MetricSource::Resource;
  TargetType targetType = TargetType::Utilization;
  std::string name = "cpu";  // the resource or metric name
  // Per pod of SyncInput::pods, for Resource, ContainerResource and Pods metrics: each pod's
  // reading (nullopt: the metrics API has none for it). Empty: every pod is ready and reads
  // `current`.
  std::vector<std::optional<double>> perPod{};
};

// Where the per-pod readings come from: metrics-server's sample time and window (a pod whose
// readiness changed within the window of the sample is still starting, for CPU).
struct MetricSample {
  TimePoint timestamp;
  std::chrono::seconds window{15};
};

struct ReplicaProposal {
  int replicas = 0;
};
// Why a metric gave no proposal: kube's condition reason (FailedGetResourceMetric, ...) and the
// error text the condition and events carry.
struct MetricError {
  std::string reason;
  std::string message;
};

// kube's proposal for one metric at `currentReplicas` (the scale's spec.replicas).
std::variant<ReplicaProposal, MetricError> proposeReplicas(const MetricInput& metric, int currentReplicas,
                                                           const std::vector<Pod>& pods, const MetricSample& sample,
                                                           const ControllerOptions& options);

}  // namespace fedhpa::sim
