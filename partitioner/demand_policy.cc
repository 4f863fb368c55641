#include "partitioner/policies.h"
#include "partitioner/steps.h"

namespace fedhpa::partitioner {

void scheduleDemand(Schedule& schedule, const FederatedSpec& spec,
                    std::span<const ClusterView> views) {
  placeWithinSpec(schedule, views, spec);
  moveMaxToSaturated(schedule, views, spec);
  moveMinToSaturated(schedule, views);
  fitMinToSpec(schedule, views, spec);
}

}  // namespace fedhpa::partitioner
