// What the partitioner concludes about one cluster before it plans: is its local HPA saturated,
// may it give, how much does it need or have spare. One place for every such rule.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

// "Unbounded" for caps; far from overflow when summed over thousands of clusters.
inline constexpr Replicas kNoCap = Replicas{1} << 50;

// The margin reclaim leaves above a cluster's need: a fifth of the need, at least one replica.
// That is twice the HPA's 10 % tolerance, so load that comes back a little is served at once
// without the cluster saturating and asking for the max back (no flapping).
Replicas reclaimMargin(Replicas need);

// The status of a cluster without a local HPA.
inline const HpaStatus kNoStatus{};

// The fields every step reads come first and fill the first cache line (the struct starts on
// one): a pass over a thousand clusters then reads one line per cluster instead of three.
struct alignas(64) ClusterView {
  bool present = false;  // has a local HPA
  // The policy's saturation test (see saturated() in cluster_view.cc).
  bool saturated = false;
  // The policy lets this cluster hand limits to others now.
  bool mayGive = false;
  Limits limits;         // {0, 0} when absent

  Replicas maxInUse = 0;   // max it must keep: replicas in use, its min, its preference floor
  Replicas maxNeeded = 0;  // extra max a saturated cluster asks for (demand)
  // Reclaim: the max this cluster keeps while another is saturated. Below maxInUse when its
  // metrics say it needs fewer replicas than it holds (its HPA is still inside its scale-down
  // stabilisation): its need plus reclaimMargin, never below its min or preference floor.
  Replicas maxKeptUnderPressure = 0;
  // Preference bounds, always set (defaults: weight 1, floor 0, cap kNoCap).
  Replicas preferredFloor = 0;
  Replicas preferredCap = kNoCap;

  Replicas minToKeep = 0;  // min it must keep; below its current min when it holds min idle
  Replicas weight = 1;
  Replicas tier = 0;

  std::string_view name;  // points into the input clusters, as needMetric does
  // Its local HPA's status, in the input clusters (kNoStatus when absent): pointed to, not
  // copied, as the name is.
  const HpaStatus* status = &kNoStatus;

  // Never scaled (no lastScaleTime, desired 0): kubefed v1 lets such an HPA give.
  bool pristine = false;
  // Scaled less than the scale-forbidden window ago.
  bool inForbiddenWindow = false;

  // What the member's own HPA wants (need.h): from its metric list, or from its CPU utilisation
  // against the federated CPU target when that is all it reports; empty without any reading.
  std::optional<Replicas> need;
  // The metric that decided the need, when a metric list did; points into the input clusters.
  const MetricReading* needMetric = nullptr;

  Replicas maxSpare() const { return std::max<Replicas>(0, limits.max - maxInUse); }
  Replicas minSpare() const { return std::max<Replicas>(0, limits.min - minToKeep); }

  // Writes what its reasons quote into `usage` (reasons.h puts it into words).
  void recordUsage(const std::optional<Replicas>& cpuTarget, Usage& usage) const;
};

// True when some cluster is in a tier other than 0 (burst tiers in use).
bool tiered(std::span<const ClusterView> views);

// What the steps ask of all clusters at once, gathered while their views are written.
struct Federation {
  std::size_t present = 0;      // clusters with a local HPA
  std::size_t saturated = 0;    // clusters saturated (the policy's test)
  Replicas currentMax = 0;      // Σ of their current local max
  bool preferencesSet = false;  // some cluster has a weight, floor, cap or tier of its own
  bool tiered = false;          // some cluster is in a tier other than 0
  bool minHeldIdle = false;     // some cluster's minToKeep is below its min
};

// One view per cluster, in the order given, written into `views` (its memory is reused); local
// limits are clamped to 0 <= min <= max first. The views point into the clusters.
Federation classify(const FederatedSpec& spec, const std::vector<const ClusterState*>& clusters,
                    const Policy& policy, TimePoint now, std::vector<ClusterView>& views);
std::vector<ClusterView> classify(const FederatedSpec& spec,
                                  const std::vector<ClusterState>& clusters, const Policy& policy,
                                  TimePoint now);

}  // namespace fedhpa::partitioner
