// Kubernetes' horizontal pod autoscaler, one sync at a time, as a pure function: the same code
// runs in `fedhpa member-sim` (wall clock) and `fedhpa simulate` (virtual time). It follows
// kube-controller-manager's horizontal.go: replicas outside [min, max] go to the bound first; then
// the largest proposal over the metrics (replica_calculator.h), normalised by the legacy path
// (an HPA without spec.behavior: scale up to max(2 x current, 4) per sync, the downscale
// stabilisation window) or the behavior path (windows per direction, policies over periods);
// with the conditions and events kubectl shows.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "clusters/sim/model/replica_calculator.h"

namespace fedhpa::sim {

struct ScalingPolicy {
  enum class Type { Pods, Percent };
  Type type = Type::Percent;
  int value = 100;
  std::chrono::seconds period{15};
};

enum class SelectPolicy { Max, Min, Disabled };

struct ScalingRules {
  // nullopt: scale-up 0; scale-down the controller's --horizontal-pod-autoscaler-downscale-stabilization.
  std::optional<std::chrono::seconds> stabilizationWindow;
  SelectPolicy select = SelectPolicy::Max;
  std::vector<ScalingPolicy> policies;
};

// autoscaling/v2 defaults: scale up by 100 % or 4 pods per 15 s (whichever is more), no window;
// scale down by up to 100 % per 15 s, after the controller's downscale window.
ScalingRules defaultScaleUp();
ScalingRules defaultScaleDown();

struct Behavior {
  ScalingRules scaleUp = defaultScaleUp();
  ScalingRules scaleDown = defaultScaleDown();
};

struct HpaSpec {
  int minReplicas = 1;
  int maxReplicas = 1;
  int targetUtilization = 80;  // percent of request
  std::optional<Behavior> behavior;  // nullopt: no spec.behavior, kube's legacy path
};

// What one HPA remembers between syncs (kube keeps these in the controller's memory).
struct HpaMemory {
  struct Recommendation {
    TimePoint time;
    int replicas;
  };
  struct ScaleEvent {
    TimePoint time;
    int change;  // replicas added (scaleUpEvents) or removed (scaleDownEvents), positive
  };
  // nullopt until the first sync, which records the current size as the first recommendation.
  std::optional<std::vector<Recommendation>> recommendations;
  std::vector<ScaleEvent> scaleUpEvents;    // kept for an HPA with behavior only
  std::vector<ScaleEvent> scaleDownEvents;
};

struct Condition {
  std::string type;    // AbleToScale, ScalingActive, ScalingLimited
  bool status = false;
  std::string reason;
  std::string message;
};

struct SyncInput {
  HpaSpec spec;
  std::optional<int> currentReplicas;          // nullopt: the scale target does not exist
  // CPU utilisation against spec.targetUtilization, for an HPA with that one metric; ignored
  // when `metrics` is given. nullopt: no metrics.
  std::optional<double> utilizationPercent;
  TimePoint now;
  std::vector<MetricInput> metrics;
  std::vector<Pod> pods{};  // empty: every replica is a ready pod (MetricInput::perPod empty too)
  ControllerOptions options{};
  std::chrono::seconds metricWindow{15};  // metrics-server's sample window
};

struct SyncResult {
  int currentReplicas = 0;
  int desiredReplicas = 0;
  bool rescaled = false;                        // desired != current: write the scale, set lastScaleTime
  std::optional<int> currentUtilizationPercent; // as status.currentMetrics reports it (CPU only)
  // The conditions this sync set, in kube's order; a type not listed keeps its previous value.
  std::vector<Condition> conditions;
  struct Event {
    std::string type;     // Normal, Warning
    std::string reason;   // SuccessfulRescale, FailedGetScale, FailedGetResourceMetric, ...
    std::string message;
  };
  std::vector<Event> events;
};

SyncResult syncHpa(const SyncInput& input, HpaMemory& memory);

// kube's normalisation steps, each as horizontal.go has it (the unit tests feed them kube's cases).
struct Normalized {
  int replicas;
  std::string reason;   // the condition reason this step reports
  std::string message;
};
// Legacy path: the highest recommendation of the downscale window (stabilizeRecommendation).
int stabilizeLegacy(int prenormalized, std::chrono::seconds window, TimePoint now, HpaMemory& memory);
// Legacy path: min, max and max(2 x current, 4) (convertDesiredReplicasWithRules).
Normalized limitLegacy(int current, int desired, int minReplicas, int maxReplicas);
// Behavior path: windows per direction (stabilizeRecommendationWithBehaviors).
Normalized stabilizeWithBehavior(int current, int prenormalized, std::chrono::seconds upWindow,
                                 std::chrono::seconds downWindow, TimePoint now, HpaMemory& memory);
// Behavior path: the policies' rate limits and min/max (convertDesiredReplicasWithBehaviorRate).
Normalized limitWithBehavior(int current, int desired, int minReplicas, int maxReplicas, const Behavior& behavior,
                             const HpaMemory& memory, TimePoint now);

// The load model: demand in "replicas at target" spread over `replicas` pods gives each metric
// the reading target * demand / replicas, so that kube's proposal ceil(current / target *
// replicas) is the demand rounded up, whatever the metric type (a Value metric's whole value
// is read the same way: the HPA assumes it falls as pods are added).
double metricFromDemand(double demandReplicas, int replicas, double target);
double utilizationFromDemand(double demandReplicas, int replicas, int targetUtilization);

}  // namespace fedhpa::sim
