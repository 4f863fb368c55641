// The partitioner's vocabulary: what it reads (a federated spec, the eligible clusters with their
// local HPAs) and what it returns (a Plan). Plain values, no behaviour, no I/O.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedhpa::partitioner {

// 64-bit so that sums over a thousand clusters of int32 replica counts cannot overflow.
using Replicas = std::int64_t;
using TimePoint = std::chrono::system_clock::time_point;

struct Limits {
  Replicas min = 0;
  Replicas max = 0;
  friend auto operator<=>(const Limits&, const Limits&) = default;
};

// What a member's HPA controller last reported (HorizontalPodAutoscalerStatus).
struct HpaStatus {
  Replicas current = 0;
  Replicas desired = 0;
  std::optional<Replicas> cpuUtilizationPercent;  // currentCPUUtilizationPercentage
  std::optional<TimePoint> lastScaleTime;
  // The ScalingLimited condition, when the status carries one: true when it is True with reason
  // TooManyReplicas (the HPA wanted more than its max).
  std::optional<bool> limitedByMaxReplicas;
};

// One entry of a local HPA's spec.metrics next to its reading in status.currentMetrics, reduced
// to the numbers kube-controller-manager's replica calculator uses (quantities already parsed).
struct MetricReading {
  enum class Source { Resource, ContainerResource, Pods, Object, External };
  enum class Target { Utilization, AverageValue, Value };
  Source source = Source::Resource;
  Target target = Target::Utilization;
  std::string name;               // "cpu", "http_requests_per_second": for reasons only
  double targetValue = 0;         // a percentage for Utilization
  // Value for Value targets, per-pod average for AverageValue, percentage for Utilization; empty
  // when the status does not carry it (the member's HPA could not read the metric).
  std::optional<double> current;
};

struct LocalHpa {
  Limits limits;
  HpaStatus status;
  // spec.metrics with their readings; empty when only status.cpuUtilizationPercent is known, in
  // which case the federated CPU target stands in for the metric list.
  std::vector<MetricReading> metrics;
};

// Operator preferences for one cluster (annotation federation.kubernetes.io/hpa-preferences).
// weight shapes the initial spread; minReplicas/maxReplicas bound the cluster's local limits
// through every move: its local max stays within [minReplicas, maxReplicas] and its local min
// is at least minReplicas. tier (burst tiers, default 0): max is placed in the lowest tier first
// and spills into the next one only beyond the lower tier's maxReplicas caps; saturated clusters
// of a lower tier are served first, and max is taken back from the highest tier first.
struct Preferences {
  std::optional<Replicas> weight;
  std::optional<Replicas> minReplicas;
  std::optional<Replicas> maxReplicas;
  std::optional<Replicas> tier;
};

// One eligible cluster (Ready and selected), with its local HPA if it has one.
struct ClusterState {
  std::string name;
  std::optional<LocalHpa> hpa;
  Preferences preferences;
};

struct FederatedSpec {
  Limits limits;                                   // min defaults to 1, as the API defaults it
  std::optional<Replicas> targetCPUUtilizationPercent;
};

struct Policy {
  enum class Kind { Legacy, Demand };
  Kind kind = Kind::Demand;
  std::chrono::seconds scaleForbiddenWindow{120};
};

// One cluster's result: limits for its local HPA, or no HPA at all.
struct ClusterPlan {
  std::string name;
  std::optional<Limits> limits;
  friend bool operator==(const ClusterPlan&, const ClusterPlan&) = default;
};

// A change the plan makes to one cluster, with the human reason (these become Events).
struct Move {
  std::string cluster;
  std::optional<Limits> before;
  std::optional<Limits> after;
  std::string reason;
};

struct Plan {
  std::vector<ClusterPlan> clusters;  // same order as the input clusters (by name)
  std::vector<Move> moves;            // only clusters whose limits change
  std::string summary;                // one line: what the plan does, or why it is empty
};

std::string_view policyName(Policy::Kind kind);
std::optional<Policy::Kind> parsePolicyName(std::string_view name);

}  // namespace fedhpa::partitioner
