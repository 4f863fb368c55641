// kubefed v1's HPA schedule (federation/pkg/federatedtypes/hpa.go, ReconcileHook), step for
// step, with its two sources of non-determinism made explicit: the order Go iterates a map or a
// string set in, and the element sets.String.PopAny returns. The legacy policy runs it with a
// fixed order; tests run it with random ones to see every answer kubefed v1 could give.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner {

class IterationOrder {
 public:
  virtual ~IterationOrder() = default;
  // Arranges `clusters` (given in name order) for one `range` over a map or set. `givers` are
  // the clusters currently offering what the loop hands out.
  virtual void arrange(std::vector<std::size_t>& clusters, const std::set<std::size_t>& givers) = 0;
  // The element PopAny returns from a non-empty `set`, on behalf of `receiver`.
  virtual std::size_t pick(const std::set<std::size_t>& set, std::size_t receiver) = 0;
};

// The order the legacy policy uses: names in order, except that clusters offering replicas come
// first and a cluster offering replicas pops itself. Both are orders Go may choose, and with them
// kubefed v1 leaves a quiet federation as it is instead of shuffling replicas between idle
// clusters.
class NameOrder : public IterationOrder {
 public:
  void arrange(std::vector<std::size_t>& clusters, const std::set<std::size_t>& givers) override;
  std::size_t pick(const std::set<std::size_t>& set, std::size_t receiver) override;
};

// kubefed v1's per-cluster result ({min, max} or no HPA), or nullopt where kubefed v1's loops
// never terminate. The result is what kubefed v1 would write, valid or not.
using KubefedResult = std::vector<std::optional<Limits>>;
std::optional<KubefedResult> kubefedV1Schedule(const FederatedSpec& spec,
                                               std::span<const ClusterView> views,
                                               IterationOrder& order);

}  // namespace fedhpa::partitioner
