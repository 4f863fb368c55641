// The steps a plan is made of, in the order the demand policy runs them. Each step reads the
// cluster views (what the local HPAs report) and edits the schedule; each says in its comment
// which invariant it establishes or which rule it applies. The views come as a span: its size is
// a count it holds, where a vector works its size out by dividing by a view's (three cache
// lines), a multiply per step.
#pragma once

#include <span>
#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/schedule.h"
#include "partitioner/scratch.h"

namespace fedhpa::partitioner {

// Each cluster's fair share of `total`: preference floors first, the rest by weight (largest
// remainder, ties to the first by name), never above a preference cap unless the caps together
// cannot hold `total`.
void fairShares(std::span<const ClusterView> views, Replicas total,
                std::vector<Replicas>& shares, Scratch& scratch);

// No local HPA anywhere yet: max is spread evenly (by weight), the remainder to the first
// clusters by name; a cluster that gets no max gets no HPA. Min follows in fitMinToSpec.
void spreadInitially(Schedule& schedule, std::span<const ClusterView> views,
                     const FederatedSpec& spec);

// Static weights: every cluster's max is its fair share of the federated max (by weight, within
// preference floors and caps), whatever its load; a cluster whose share is 0 holds no HPA. Min
// follows in fitMinToSpec, which keeps each present cluster's min within its new max.
void placeByWeight(Schedule& schedule, std::span<const ClusterView> views, const FederatedSpec& spec);

// Invariant "Σ local max == federated max", on the current limits: the first step of a plan
// (placeWithinSpec). A smaller federated max is taken first from max the
// clusters do not use, then from the largest local max down, and only then by dropping clusters
// (the scale-forbidden window does not protect against a smaller spec). A larger one goes first
// to saturated clusters, then to clusters without an HPA, then to the lowest local max.
void fitMaxToSpec(Schedule& schedule, std::span<const ClusterView> views,
                  const FederatedSpec& spec);

// A cluster without an HPA (it just joined, or became eligible) receives up to its fair share,
// taken from max the others do not use, largest spare first.
void admitNewClusters(Schedule& schedule, std::span<const ClusterView> views,
                      const FederatedSpec& spec);

// What both policies agree on: the first placement (spreadInitially) or, once HPAs exist, the
// current placement fitted to the federated max (fitMaxToSpec) with new clusters admitted.
// Inline: the policies call it, and a call of its own was one more call per plan.
inline void placeWithinSpec(Schedule& schedule, std::span<const ClusterView> views,
                            const FederatedSpec& spec) {
  if (schedule.nonePresent) {
    spreadInitially(schedule, views, spec);
    return;
  }
  fitMaxToSpec(schedule, views, spec);
  admitNewClusters(schedule, views, spec);
}

// The rebalancing rule: saturated clusters receive, in one step, what they ask for
// (ceil(current * utilisation / target) - max) from the clusters with the most unused max
// (max - max(current, desired, min)) that may give. Preference caps bound what a cluster receives.
void moveMaxToSaturated(Schedule& schedule, std::span<const ClusterView> views,
                        const FederatedSpec& spec);

// Min a cluster holds but does not use (idle at its min) moves to saturated clusters, up to the
// replicas those already run, so Σ local min stays where it is while idle clusters may shrink.
void moveMinToSaturated(Schedule& schedule, std::span<const ClusterView> views);

// Invariants "every present local HPA has 1 <= min <= max" and "Σ local min >= federated min":
// mins are clamped, then raised (lowest first) or lowered (highest first, never below 1 or a
// preference floor) towards the federated min.
void fitMinToSpec(Schedule& schedule, std::span<const ClusterView> views,
                  const FederatedSpec& spec);

}  // namespace fedhpa::partitioner
