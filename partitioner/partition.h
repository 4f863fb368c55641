// The partitioner's one entry point.
#pragma once

#include <memory>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

// The memory a plan is made in: the cluster views, the schedule, the steps' working arrays and
// the Plan itself. A caller that plans repeatedly (a controller worker, the simulator, the
// benchmark) keeps one and passes it to every call, so a plan over a federation of the same
// shape allocates nothing once the first plan has sized it. Each call overwrites it: one
// Workspace per thread, owned by the caller (no state is shared between callers).
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  struct State;

 private:
  friend const Plan& partition(const FederatedSpec&, const std::vector<ClusterState>&,
                               const Policy&, TimePoint, Workspace&);
  std::unique_ptr<State> state_;
};

// Splits the federated HPA's min/max over the eligible clusters and moves limits from clusters
// that do not use them to saturated ones. Pure and deterministic: the same input gives the same
// plan; O(C log C) in the number of clusters, whatever the replica counts (legacy: O(C^2) at
// worst, in kubefed v1's own loops). `clusters` may come in any order; the plan lists them by
// name. Inputs outside the API's validation (min > max, negative counts) are clamped first.
// The returned Plan lives in `workspace` until its next call.
const Plan& partition(const FederatedSpec& spec, const std::vector<ClusterState>& clusters,
                      const Policy& policy, TimePoint now, Workspace& workspace);

// The same with a workspace of its own, for a caller that plans once.
Plan partition(const FederatedSpec& spec, const std::vector<ClusterState>& clusters,
               const Policy& policy, TimePoint now);

}  // namespace fedhpa::partitioner
