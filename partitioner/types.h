// The partitioner's vocabulary: what it reads (a federated spec, the eligible clusters with their
// local HPAs) and what it returns (a Plan). Plain values, no behaviour, no I/O.
#pragma once

#include <chrono>
#include <compare>
#include <cstddef>
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

// demand: max follows the load; legacy: kubefed v1's schedule; static: each cluster's max is its
// share of the federated max by its weight (Preferences::weight), whatever the load (Karmada's
// Divided/Weighted static weights).
struct Policy {
  enum class Kind { Legacy, Demand, Static };
  Kind kind = Kind::Demand;
  std::chrono::seconds scaleForbiddenWindow{120};
};

// One cluster's result: limits for its local HPA, or no HPA at all.
struct ClusterPlan {
  std::string name;
  std::optional<Limits> limits;
  friend bool operator==(const ClusterPlan&, const ClusterPlan&) = default;
};

// How a cluster's local HPA read when the plan judged it: the numbers its reasons quote.
struct Usage {
  Replicas current = 0;
  Replicas max = 0;                               // its local max then
  std::optional<Replicas> need;                   // need.h: what its own HPA wants
  std::optional<Replicas> cpuUtilizationPercent;  // with no metric list
  std::optional<Replicas> cpuTarget;              // the federated CPU target
  bool limitedByMaxReplicas = false;              // ScalingLimited: TooManyReplicas
  // The metric that decided the need, when a metric list did (a copy: the plan stands alone).
  bool byMetric = false;
  MetricReading metric;
};

// Replicas of max or min that went from one cluster to another (indices into Plan::clusters).
struct Transfer {
  std::size_t from;
  std::size_t to;
  Replicas amount;
};

// One rule that changed a cluster's limits, with the numbers it acted on. A plan carries these
// and reasons.h puts them into words only where they are shown (Events, `fedhpa partition`), so
// planning costs no formatting, whatever the number of clusters that move.
struct Cause {
  enum class Kind : std::uint8_t {
    InitialSpread,         // max after.max of `federated` over every cluster
    FederatedMaxLowered,   // before -> after, fitting the federated max `federated`
    FederatedMaxRaised,
    NewClusterReceived,    // max, from the transfers
    UnusedMaxGave,         // max it did not use, to the transfers
    SaturatedReceivedMax,  // max, from the transfers
    ReclaimGave,           // max above its need plus the reclaim margin, to the transfers
    SaturatedReceivedMin,  // min, from the transfers
    IdleAtMinGave,         // min it held idle, to the transfers
    FederatedMin,          // min before -> after, towards the federated min `federated`
    WeightedShare,         // static: max before -> after, the cluster's share by weight of `federated`
    KubefedNewCluster,     // legacy: kubefed v1's schedule, before -> after
    KubefedSaturated,
    KubefedGives,
    KubefedReceives,
  };
  Kind kind = Kind::InitialSpread;
  Replicas federated = 0;
  Limits before;
  Limits after;
  std::size_t firstTransfer = 0;  // Plan::transfers, for the kinds that name other clusters
  std::size_t transferCount = 0;
};

// True for the kinds whose words quote how the cluster's HPA read (Move::usage).
constexpr bool quotesTheUsage(Cause::Kind kind) {
  using Kind = Cause::Kind;
  return kind == Kind::UnusedMaxGave || kind == Kind::SaturatedReceivedMax ||
         kind == Kind::ReclaimGave || kind == Kind::KubefedSaturated || kind == Kind::KubefedGives;
}

// A change the plan makes to one cluster and why (its causes, put into words by reasons.h).
struct Move {
  std::string cluster;
  std::optional<Limits> before;
  std::optional<Limits> after;
  // The reason in words, for a move a caller adds to a plan itself; the partitioner's own moves
  // leave it empty and say why through their causes.
  std::string note;
  std::size_t firstCause = 0;  // Plan::causes
  std::size_t causeCount = 0;
  // Last: a plan writes the fields above for every move and this only for moves whose causes
  // quote it: most moves touch only their first 128 bytes.
  Usage usage{};               // how the cluster's HPA read, when a cause quotes it
};

// A plan-wide remark for the summary.
struct Note {
  enum class Kind : std::uint8_t {
    MaxBelowOne,            // nothing to place
    NoEligibleCluster,      // nothing to place
    NewClusterWaits,        // no cluster has unused max to give
    SaturatedUnserved,      // `cluster` (with `usage`) and `more` others got nothing
    CapsExceeded,           // preference caps sum below the federated max
    KubefedInvalid,         // kubefed v1 would break `text`
    KubefedNeverFinishes,
  };
  Kind kind = Kind::MaxBelowOne;
  std::size_t cluster = 0;
  std::size_t more = 0;
  Usage usage;
  std::string text;
};

struct Plan {
  std::vector<ClusterPlan> clusters;  // same order as the input clusters (by name)
  std::vector<Move> moves;            // only clusters whose limits change
  std::vector<Cause> causes;          // what moved each cluster (from Move::firstCause on)
  std::vector<Transfer> transfers;    // what the causes moved between clusters
  Limits federated;                   // the federated limits placed (min clamped to [1, max])
  std::vector<Note> notes;
};

std::string_view policyName(Policy::Kind kind);
std::optional<Policy::Kind> parsePolicyName(std::string_view name);

}  // namespace fedhpa::partitioner
