#pragma once
// The federated HPA's status and its per-cluster annotation, summed from the members' copies.
// Pure: the reconciler decides whether and when to write them.

#include <vector>

#include "federation/common/time_source.h"
#include "federation/controller/member_hpa.h"

namespace fedhpa::controller {

using nlohmann::json;

// The per-cluster annotation's value: each member's limits, replicas and CPU utilization.
json statusBreakdown(const std::vector<MemberHpa>& locals);

// The members' statuses summed: replicas, CPU utilization weighted by each member's current
// replicas, the latest scale time, and the conditions. `previousConditions` are the federated
// HPA's: a condition whose status did not change keeps its transition time.
json aggregatedStatus(const std::vector<MemberHpa>& locals, long long observedGeneration, const json& previousConditions,
                      SystemTime now);

// A condition whose status is what it was keeps the time of its last transition.
void keepTransitionTimes(json& conditions, const json& previous);

}  // namespace fedhpa::controller
