// Kubernetes' horizontal pod autoscaler, one sync at a time, as a pure function: the same code
// runs in `fedhpa member-sim` (wall clock) and `fedhpa simulate` (virtual time). It follows
// kube-controller-manager's horizontal.go and replica_calculator.go: per metric the usage ratio
// with 10 % tolerance, the largest proposal over the metrics, stabilisation windows, scale-up and
// scale-down policies, min/max clamping, and the conditions and events kubectl shows.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace fedhpa::sim {

using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

struct ScalingPolicy {
  enum class Type { Pods, Percent };
  Type type = Type::Percent;
  int value = 100;
  std::chrono::seconds period{15};
};

enum class SelectPolicy { Max, Min, Disabled };

struct ScalingRules {
  std::chrono::seconds stabilizationWindow{0};
  SelectPolicy select = SelectPolicy::Max;
  std::vector<ScalingPolicy> policies;
};

// autoscaling/v2 defaults: scale up by 100 % or 4 pods per 15 s (whichever is more), no window;
// scale down by up to 100 % per 15 s, after a 300 s window.
ScalingRules defaultScaleUp();
ScalingRules defaultScaleDown();

struct HpaSpec {
  int minReplicas = 1;
  int maxReplicas = 1;
  int targetUtilization = 80;  // percent of request
  ScalingRules scaleUp = defaultScaleUp();
  ScalingRules scaleDown = defaultScaleDown();
};

// What one HPA remembers between syncs (kube keeps these in the controller's memory).
struct HpaMemory {
  struct Recommendation {
    TimePoint time;
    int replicas;
  };
  struct ScaleEvent {
    TimePoint time;
    int change;  // + added, - removed
  };
  std::deque<Recommendation> recommendations;
  std::deque<ScaleEvent> scaleEvents;
};

struct Condition {
  std::string type;    // AbleToScale, ScalingActive, ScalingLimited
  bool status = false;
  std::string reason;
  std::string message;
};

// One entry of spec.metrics with what the member measured for it. `target` and `current` are in
// the target's own unit: a percentage for Utilization, per pod for AverageValue, the whole value
// for Value; the usage ratio is current / target either way.
struct MetricInput {
  double target = 0;
  std::optional<double> current;  // nullopt: the metric could not be read now
  // How kube names the metric in events and conditions: "cpu resource utilization (percentage
  // of request)", "pods metric http_requests_per_second".
  std::string description;
};

struct SyncInput {
  HpaSpec spec;
  std::optional<int> currentReplicas;          // nullopt: the scale target does not exist
  // CPU utilisation against spec.targetUtilization, for an HPA with that one metric; ignored
  // when `metrics` is given. nullopt: no metrics.
  std::optional<double> utilizationPercent;
  TimePoint now;
  std::vector<MetricInput> metrics;
};

struct SyncResult {
  int currentReplicas = 0;
  int desiredReplicas = 0;
  bool rescaled = false;                        // desired != current: write the scale, set lastScaleTime
  std::optional<int> currentUtilizationPercent; // as status.currentMetrics reports it (CPU only)
  std::vector<Condition> conditions;            // AbleToScale, ScalingActive, ScalingLimited
  struct Event {
    std::string type;     // Normal, Warning
    std::string reason;   // SuccessfulRescale, FailedGetScale
    std::string message;
  };
  std::optional<Event> event;
};

SyncResult syncHpa(const SyncInput& input, HpaMemory& memory);

// The load model: demand in "replicas at target" spread over `replicas` pods gives each metric
// the reading target * demand / replicas, so that kube's proposal ceil(current / target *
// replicas) is the demand rounded up, whatever the metric type (a Value metric's whole value
// is read the same way: the HPA assumes it falls as pods are added).
double metricFromDemand(double demandReplicas, int replicas, double target);
double utilizationFromDemand(double demandReplicas, int replicas, int targetUtilization);

}  // namespace fedhpa::sim
