// Kubernetes' horizontal pod autoscaler, one sync at a time, as a pure function: the same code
// runs in `fedhpa member-sim` (wall clock) and `fedhpa simulate` (virtual time). It follows
// kube-controller-manager's horizontal.go and replica_calculator.go for one CPU-utilisation metric:
// ratio with 10 % tolerance, stabilisation windows, scale-up and scale-down policies, min/max
// clamping, and the conditions and events kubectl shows.
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

struct SyncInput {
  HpaSpec spec;
  std::optional<int> currentReplicas;          // nullopt: the scale target does not exist
  std::optional<double> utilizationPercent;    // measured; nullopt: no metrics
  TimePoint now;
};

struct SyncResult {
  int currentReplicas = 0;
  int desiredReplicas = 0;
  bool rescaled = false;                        // desired != current: write the scale, set lastScaleTime
  std::optional<int> currentUtilizationPercent; // as status.currentMetrics reports it
  std::vector<Condition> conditions;            // AbleToScale, ScalingActive, ScalingLimited
  struct Event {
    std::string type;     // Normal, Warning
    std::string reason;   // SuccessfulRescale, FailedGetScale
    std::string message;
  };
  std::optional<Event> event;
};

SyncResult syncHpa(const SyncInput& input, HpaMemory& memory);

// The load model: demand in "replicas at target utilisation" spread over `replicas` pods.
double utilizationFromDemand(double demandReplicas, int replicas, int targetUtilization);

}  // namespace fedhpa::sim
