#include "partitioner/policies.h"
#include "partitioner/steps.h"

namespace fedhpa::partitioner {

Schedule scheduleDemand(const FederatedSpec& spec, const std::vector<ClusterView>& views) {
  Schedule schedule = Schedule::current(views);
  if (nothingPlacedYet(views)) {
    spreadInitially(schedule, views, spec);
  } else {
    fitMaxToSpec(schedule, views, spec);
    admitNewClusters(schedule, views, spec);
    moveMaxToSaturated(schedule, views, spec);
    moveMinToSaturated(schedule, views);
  }
  fitMinToSpec(schedule, views, spec);
  return schedule;
}

}  // namespace fedhpa::partitioner
