// The invariants that every plan keeps, stated once, as checks. The legacy
// policy uses them to tell kubefed v1's valid answers from its broken ones; the tests use them
// on every random input.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

// Empty when the per-cluster result keeps every invariant; otherwise one line per broken one:
//   1. Σ local max == federated max (when there is at least one cluster);
//   2. Σ local min >= federated min;
//   3. every present local HPA has 1 <= min <= max (a cluster with no max has no HPA).
std::vector<std::string> invariantViolations(const FederatedSpec& spec,
                                             const std::vector<std::optional<Limits>>& result);

}  // namespace fedhpa::partitioner
