#include "partitioner/cluster_view.h"

#include <algorithm>
#include <charconv>

#include "partitioner/need.h"

namespace fedhpa::partitioner {
namespace {

// The member HPA's proposal: from its metric list, or, when it reports only CPU utilisation, from
// that against the federated CPU target (kube's formula and tolerance either way).
std::optional<Need> needOf(const LocalHpa& hpa, std::optional<Replicas> target) {
  if (!hpa.metrics.empty()) return needFromMetrics(hpa.metrics, hpa.status.current);
  if (!hpa.status.cpuUtilizationPercent || !target) return std::nullopt;
  MetricReading cpu;
  cpu.targetValue = static_cast<double>(*target);
  cpu.current = static_cast<double>(*hpa.status.cpuUtilizationPercent);
  const auto replicas = replicasForMetric(cpu, hpa.status.current);
  if (!replicas) return std::nullopt;
  return Need{*replicas, -1};
}

void appendNumber(std::string& text, double value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec == std::errc()) text.append(buffer, end);
}

bool atMax(const LocalHpa& hpa) {
  return hpa.status.current == hpa.status.desired && hpa.status.current == hpa.limits.max;
}

// kubefed v1's test, which `legacy` uses as it is: at max, and the HPA agrees it should be.
bool saturatedLegacy(const LocalHpa& hpa, bool scaleable) { return scaleable && atMax(hpa); }

// `demand` adds the evidence the status gives, where it gives any: a need above the max (the
// metrics outside the tolerance), or the ScalingLimited condition saying the HPA wanted more than
// its max. With no evidence at all it falls back to kubefed v1's test.
bool saturatedDemand(const LocalHpa& hpa, std::optional<Replicas> need) {
  if (!atMax(hpa)) return false;
  std::optional<bool> aboveMax;
  if (need) aboveMax = *need > hpa.limits.max;
  if (!aboveMax && !hpa.status.limitedByMaxReplicas) return true;
  return aboveMax.value_or(false) || hpa.status.limitedByMaxReplicas.value_or(false);
}

}  // namespace

Replicas reclaimMargin(Replicas need) { return std::max<Replicas>(1, (need + 4) / 5); }

std::string ClusterView::usage(std::optional<Replicas> target) const {
  std::string text = std::to_string(status.current) + "/" + std::to_string(limits.max) +
                     " replicas";
  if (needMetric) {
    const MetricReading& m = *needMetric;
    const char* unit = m.target == MetricReading::Target::Utilization ? "%" : "";
    text += " at " + m.name + " ";
    appendNumber(text, m.current.value_or(0));
    text += unit;
    text += m.current.value_or(0) > m.targetValue ? " > " : " <= ";
    appendNumber(text, m.targetValue);
    text += unit;
    text += m.target == MetricReading::Target::AverageValue ? " per pod target" : " target";
    if (need) text += ", need " + std::to_string(*need);
  } else if (status.cpuUtilizationPercent) {
    text += " at " + std::to_string(*status.cpuUtilizationPercent) + "%";
    if (target) {
      const char* relation = *status.cpuUtilizationPercent > *target ? " > " : " <= ";
      text += relation + std::to_string(*target) + "% target";
    }
  } else if (need) {
    text += ", need " + std::to_string(*need);
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
    if (const auto need = needOf(hpa, target)) {
      view.need = need->replicas;
      if (need->decidedBy >= 0) view.needMetric = &hpa.metrics[static_cast<std::size_t>(need->decidedBy)];
    }
    view.pristine = !hpa.status.lastScaleTime && hpa.status.desired == 0;
    view.inForbiddenWindow =
        hpa.status.lastScaleTime && now < *hpa.status.lastScaleTime + policy.scaleForbiddenWindow;

    if (policy.kind == Policy::Kind::Legacy) {
      // kubefed v1: an HPA that never scaled is not "scaleable" either.
      const bool scaleable = hpa.status.lastScaleTime && !view.inForbiddenWindow;
      view.saturated = saturatedLegacy(hpa, scaleable);
      view.mayGive = view.pristine || scaleable;
    } else {
      view.saturated = saturatedDemand(hpa, view.need);
      view.mayGive = (view.pristine || !view.inForbiddenWindow) && !view.saturated;
    }

    view.maxInUse = std::max({hpa.status.current, hpa.status.desired, hpa.limits.min,
                              view.preferredFloor, Replicas{1}});

    view.maxKeptUnderPressure = view.maxInUse;
    if (policy.kind == Policy::Kind::Demand && view.need && *view.need < view.maxInUse) {
      view.maxKeptUnderPressure =
          std::min(view.maxInUse, std::max({*view.need + reclaimMargin(*view.need),
                                            hpa.limits.min, view.preferredFloor, Replicas{1}}));
    }

    if (view.saturated) {
      view.maxNeeded = std::max<Replicas>(1, view.need.value_or(0) - hpa.limits.max);
    }

    view.minToKeep = hpa.limits.min;
    const bool idleAtMin = hpa.status.current == hpa.status.desired &&
                           hpa.status.current == hpa.limits.min;
    if (idleAtMin && !view.saturated) {
      // Without a utilisation reading, one replica per reconcile, as kubefed v1 steps.
      const Replicas trulyNeeded = view.need.value_or(hpa.limits.min - 1);
      view.minToKeep = std::min(hpa.limits.min,
                                std::max({Replicas{1}, view.preferredFloor, trulyNeeded}));
    }
    views.push_back(std::move(view));
  }
  return views;
}

}  // namespace fedhpa::partitioner
