#include "partitioner/cluster_view.h"

#include <algorithm>

namespace fedhpa::partitioner {
namespace {

// ceil(current * utilisation / target): the replicas that would bring utilisation to target,
// which is what the member's HPA would ask for without its max.
std::optional<Replicas> replicasAtTarget(const HpaStatus& status, std::optional<Replicas> target) {
  if (!status.cpuUtilizationPercent || !target || *target <= 0) return std::nullopt;
  const __int128 load = static_cast<__int128>(status.current) * *status.cpuUtilizationPercent;
  const __int128 replicas = (load + *target - 1) / *target;
  return static_cast<Replicas>(std::min<__int128>(replicas, kNoCap));
}

bool atMax(const LocalHpa& hpa) {
  return hpa.status.current == hpa.status.desired && hpa.status.current == hpa.limits.max;
}

// kubefed v1's test, which `legacy` uses as it is: at max, and the HPA agrees it should be.
bool saturatedLegacy(const LocalHpa& hpa, bool scaleable) { return scaleable && atMax(hpa); }

// `demand` adds the evidence the status gives, where it gives any: utilisation above target, or
// the ScalingLimited condition saying the HPA wanted more than its max. With no evidence at all
// it falls back to kubefed v1's test.
bool saturatedDemand(const LocalHpa& hpa, std::optional<Replicas> target) {
  if (!atMax(hpa)) return false;
  std::optional<bool> aboveTarget;
  if (hpa.status.cpuUtilizationPercent && target) {
    aboveTarget = *hpa.status.cpuUtilizationPercent > *target;
  }
  if (!aboveTarget && !hpa.status.limitedByMaxReplicas) return true;
  return aboveTarget.value_or(false) || hpa.status.limitedByMaxReplicas.value_or(false);
}

}  // namespace

std::string ClusterView::usage(std::optional<Replicas> target) const {
  std::string text = std::to_string(status.current) + "/" + std::to_string(limits.max) +
                     " replicas";
  if (status.cpuUtilizationPercent) {
    text += " at " + std::to_string(*status.cpuUtilizationPercent) + "%";
    if (target) {
      const char* relation = *status.cpuUtilizationPercent > *target ? " > " : " <= ";
      text += relation + std::to_string(*target) + "% target";
    }
  }
  if (status.limitedByMaxReplicas.value_or(false)) text += " (ScalingLimited: TooManyReplicas)";
  return text;
}

bool nothingPlacedYet(const std::vector<ClusterView>& views) {
  return std::none_of(views.begin(), views.end(), [](const ClusterView& v) { return v.present; });
}

std::vector<ClusterView> classify(const FederatedSpec& spec,
                                  const std::vector<ClusterState>& clusters, const Policy& policy,
                                  TimePoint now) {
  const auto target = spec.targetCPUUtilizationPercent;
  std::vector<ClusterView> views;
  views.reserve(clusters.size());
  for (const ClusterState& cluster : clusters) {
    ClusterView view;
    view.name = cluster.name;
    view.weight = cluster.preferences.weight.value_or(1);
    view.preferredFloor = cluster.preferences.minReplicas.value_or(0);
    view.preferredCap = cluster.preferences.maxReplicas.value_or(kNoCap);
    if (!cluster.hpa) {
      views.push_back(std::move(view));
      continue;
    }
    const LocalHpa& hpa = *cluster.hpa;
    view.present = true;
    view.limits = hpa.limits;
    view.status = hpa.status;
    view.pristine = !hpa.status.lastScaleTime && hpa.status.desired == 0;
    view.inForbiddenWindow =
        hpa.status.lastScaleTime && now < *hpa.status.lastScaleTime + policy.scaleForbiddenWindow;

    if (policy.kind == Policy::Kind::Legacy) {
      // kubefed v1: an HPA that never scaled is not "scaleable" either.
      const bool scaleable = hpa.status.lastScaleTime && !view.inForbiddenWindow;
      view.saturated = saturatedLegacy(hpa, scaleable);
      view.mayGive = view.pristine || scaleable;
    } else {
      view.saturated = saturatedDemand(hpa, target);
      view.mayGive = (view.pristine || !view.inForbiddenWindow) && !view.saturated;
    }

    view.maxInUse = std::max({hpa.status.current, hpa.status.desired, hpa.limits.min,
                              view.preferredFloor, Replicas{1}});

    if (view.saturated) {
      const auto wanted = replicasAtTarget(hpa.status, target);
      view.maxNeeded = std::max<Replicas>(1, wanted.value_or(0) - hpa.limits.max);
    }

    view.minToKeep = hpa.limits.min;
    const bool idleAtMin = hpa.status.current == hpa.status.desired &&
                           hpa.status.current == hpa.limits.min;
    if (idleAtMin && !view.saturated) {
      // Without a utilisation reading, one replica per reconcile, as kubefed v1 steps.
      const Replicas trulyNeeded =
          replicasAtTarget(hpa.status, target).value_or(hpa.limits.min - 1);
      view.minToKeep = std::min(hpa.limits.min,
                                std::max({Replicas{1}, view.preferredFloor, trulyNeeded}));
    }
    views.push_back(std::move(view));
  }
  return views;
}

}  // namespace fedhpa::partitioner
