// The partitioner's one entry point (DESIGN.md section 5).
#pragma once

#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

// Splits the federated HPA's min/max over the eligible clusters and moves limits from clusters
// that do not use them to saturated ones. Pure and deterministic: the same input gives the same
// plan; O(C log C) in the number of clusters, whatever the replica counts (legacy: O(C^2) at
// worst, in kubefed v1's own loops). `clusters` may come in any order; the plan lists them by
// name. Inputs outside the API's validation (min > max, negative counts) are clamped first.
Plan partition(const FederatedSpec& spec, const std::vector<ClusterState>& clusters,
               const Policy& policy, TimePoint now);

}  // namespace fedhpa::partitioner
