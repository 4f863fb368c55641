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

void scheduleStatic(Schedule& schedule, const FederatedSpec& spec, std::span<const ClusterView> views) {
  placeByWeight(schedule, views, spec);
  fitMinToSpec(schedule, views, spec);
}

}  // namespace fedhpa::partitioner
