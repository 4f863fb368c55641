#include "partitioner/policies.h"
#include "partitioner/steps.h"

namespace fedhpa::partitioner {

Schedule scheduleDemand(const FederatedSpec& spec, const std::vector<ClusterView>& views) {
  Schedule schedule = Schedule::current(views);
  placeWithinSpec(schedule, views, spec);
  moveMaxToSaturated(schedule, views, spec);
  moveMinToSaturated(schedule, views);
  fitMinToSpec(schedule, views, spec);
  return schedule;
}

}  // namespace fedhpa::partitioner
