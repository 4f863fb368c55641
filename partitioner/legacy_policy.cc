#include "partitioner/invariants.h"
#include "partitioner/kubefed_v1_schedule.h"
#include "partitioner/policies.h"
#include "partitioner/steps.h"

namespace fedhpa::partitioner {
namespace {

// Why kubefed v1 changed a cluster, told from the same predicates it acted on.
Cause::Kind legacyCause(const ClusterView& v, const Limits& before, const Limits& after) {
  if (!v.present) return Cause::Kind::KubefedNewCluster;
  if (v.saturated) return Cause::Kind::KubefedSaturated;
  if (after.max < before.max || after.min < before.min) return Cause::Kind::KubefedGives;
  return Cause::Kind::KubefedReceives;
}

}  // namespace

void scheduleLegacy(Schedule& schedule, const FederatedSpec& spec,
                    std::span<const ClusterView> views) {
  NameOrder order;
  const std::optional<KubefedResult> kubefed = kubefedV1Schedule(spec, views, order);
  if (kubefed && invariantViolations(spec, *kubefed).empty()) {
    for (std::size_t i = 0; i < views.size(); ++i) {
      const Limits after = (*kubefed)[i].value_or(Limits{});
      if (after != schedule.limits[i]) {
        Cause& cause = schedule.because(i, legacyCause(views[i], schedule.limits[i], after));
        cause.before = schedule.limits[i];
        cause.after = after;
      }
      schedule.limits[i] = after;
    }
    return;
  }

  // kubefed v1 has no valid answer here: keep what is placed, fitted to the spec.
  if (kubefed) {
    schedule.addNote(Note::Kind::KubefedInvalid).text = invariantViolations(spec, *kubefed).front();
  } else {
    schedule.addNote(Note::Kind::KubefedNeverFinishes);
  }
  placeWithinSpec(schedule, views, spec);
  fitMinToSpec(schedule, views, spec);
}

}  // namespace fedhpa::partitioner
