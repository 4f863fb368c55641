#include "partitioner/invariants.h"
#include "partitioner/kubefed_v1_schedule.h"
#include "partitioner/policies.h"
#include "partitioner/steps.h"

namespace fedhpa::partitioner {
namespace {

// Why kubefed v1 changed a cluster, told from the same predicates it acted on.
std::string legacyReason(const ClusterView& v, const Limits& before, const Limits& after,
                         std::optional<Replicas> target) {
  std::string why;
  if (!v.present) {
    why = "new cluster";
  } else if (v.saturated) {
    why = "saturated (" + v.usage(target) + ")";
  } else if (after.max < before.max || after.min < before.min) {
    why = "gives (" + v.usage(target) + ")";
  } else {
    why = "receives";
  }
  why += ": max " + std::to_string(before.max) + " -> " + std::to_string(after.max);
  if (after.min != before.min) {
    why += ", min " + std::to_string(before.min) + " -> " + std::to_string(after.min);
  }
  return why + " (kubefed v1 schedule)";
}

}  // namespace

void scheduleLegacy(Schedule& schedule, const FederatedSpec& spec,
                    const std::vector<ClusterView>& views) {
  NameOrder order;
  const std::optional<KubefedResult> kubefed = kubefedV1Schedule(spec, views, order);
  if (kubefed && invariantViolations(spec, *kubefed).empty()) {
    for (std::size_t i = 0; i < views.size(); ++i) {
      const Limits after = (*kubefed)[i].value_or(Limits{});
      if (after != schedule.limits[i]) {
        schedule.because(i, legacyReason(views[i], schedule.limits[i], after,
                                         spec.targetCPUUtilizationPercent));
      }
      schedule.limits[i] = after;
    }
    return;
  }

  // kubefed v1 has no valid answer here: keep what is placed, fitted to the spec.
  schedule.addNote() = (kubefed ? "kubefed v1 would write invalid limits here (" +
                                         invariantViolations(spec, *kubefed).front() +
                                         "); current limits fitted to the spec instead"
                                   : "kubefed v1 would never finish here; current limits fitted "
                                     "to the spec instead");
  placeWithinSpec(schedule, views, spec);
  fitMinToSpec(schedule, views, spec);
}

}  // namespace fedhpa::partitioner
