// The three policies. Each turns the cluster views into a schedule (started from the current limits by
// Schedule::reset); partition() turns a schedule
// into a Plan.
#pragma once

#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/schedule.h"

namespace fedhpa::partitioner {

// `demand` (the default): fit the spec, admit new clusters, give saturated clusters in one step
// what they ask for from the largest unused max, fit min.
void scheduleDemand(Schedule& schedule, const FederatedSpec& spec,
                    std::span<const ClusterView> views);

// `static`: max placed by weight (placeByWeight), min fitted; load moves nothing.
void scheduleStatic(Schedule& schedule, const FederatedSpec& spec, std::span<const ClusterView> views);

// `legacy`: kubefed v1's schedule in a fixed iteration order. Where kubefed v1 would never
// terminate or would write invalid limits, the current limits fitted to the spec instead.
void scheduleLegacy(Schedule& schedule, const FederatedSpec& spec,
                    std::span<const ClusterView> views);

}  // namespace fedhpa::partitioner
