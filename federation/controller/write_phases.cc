#include "federation/controller/write_phases.h"

#include <algorithm>
#include <map>
#include <string>

#include "federation/api/hpa_defaults.h"

namespace fedhpa::controller {

using nlohmann::json;

namespace {

// The spec fields fedhpa writes to a member's copy; anything else there is the member's own.
constexpr const char* kOwnedSpecFields[] = {"scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior"};

// The fields fedhpa owns, as an API server that defaults autoscaling/v2 would store them.
json ownedFields(json spec) {
  api::applyHpaV2Defaults(spec);
  json owned = json::object();
  for (const char* field : kOwnedSpecFields)
    if (spec.contains(field)) owned[field] = spec[field];
  return owned;
}

bool writable(const MemberHpa& local) {
  return !local.foreign && !local.unseen && local.member.health == MemberHealth::Healthy;
}

}  // namespace

json localSpec(const json& federated, const partitioner::Limits& limits) {
  json spec = federated.value("spec", json::object());
  spec["minReplicas"] = limits.min;
  spec["maxReplicas"] = limits.max;
  return spec;
}

bool writeChangesNothing(const json& hpa, const json& federated, const partitioner::Limits& limits) {
  return ownedFields(hpa.value("spec", json::object())) == ownedFields(localSpec(federated, limits));
}

std::vector<WritePhase> writePhases(const json& federated, const partitioner::Plan& plan, const std::vector<MemberHpa>& locals) {
  std::map<std::string, std::optional<partitioner::Limits>> wanted;
  for (const auto& cluster : plan.clusters) wanted[cluster.name] = cluster.limits;
  auto wantedOf = [&](const MemberHpa& local) {
    const auto it = wanted.find(local.member.name);
    return it != wanted.end() ? it->second : std::nullopt;
  };
  WritePhase minsRaised{WritePhaseKind::MinsRaised, {}}, lowerings{WritePhaseKind::Lowerings, {}},
      creates{WritePhaseKind::Creates, {}}, raises{WritePhaseKind::Raises, {}}, minsLowered{WritePhaseKind::MinsLowered, {}};
  // The members as phase 1 leaves them: the later phases are planned from there.
  std::vector<MemberHpa> afterMinsRaised = locals;
  for (std::size_t i = 0; i < locals.size(); ++i) {
    const MemberHpa& local = locals[i];
    const auto target = writable(local) && local.limits ? wantedOf(local) : std::nullopt;
    if (!target || target->min <= local.limits->min || local.limits->min >= local.limits->max) continue;
    const partitioner::Limits raisedMin{std::min(target->min, local.limits->max), local.limits->max};
    minsRaised.writes.push_back({i, raisedMin});
    afterMinsRaised[i].limits = raisedMin;
    if (afterMinsRaised[i].hpa) (*afterMinsRaised[i].hpa)["spec"] = localSpec(federated, raisedMin);
  }
  for (std::size_t i = 0; i < afterMinsRaised.size(); ++i) {
    const MemberHpa& local = afterMinsRaised[i];
    if (!writable(local)) continue;
    const auto target = wantedOf(local);
    if (!target) {
      if (local.hpa) lowerings.writes.push_back({i, std::nullopt});
      continue;
    }
    if (local.hpa && writeChangesNothing(*local.hpa, federated, *target)) continue;
    if (local.limits && target->max <= local.limits->max) {
      // A lowered max keeps as much of its member's min as it can until the raises are in: the
      // min that moves to another member leaves this one only once that one holds it.
      const partitioner::Limits keepingMin{std::max(target->min, std::min(local.limits->min, target->max)), target->max};
      if (keepingMin.min > target->min) {
        minsLowered.writes.push_back({i, target});
        if (local.hpa && writeChangesNothing(*local.hpa, federated, keepingMin)) continue;  // lowered on an earlier pass
        lowerings.writes.push_back({i, keepingMin});
      } else {
        lowerings.writes.push_back({i, target});
      }
    } else if (!local.hpa) {
      creates.writes.push_back({i, target});
    } else {
      raises.writes.push_back({i, target});
    }
  }
  return {std::move(minsRaised), std::move(lowerings), std::move(creates), std::move(raises), std::move(minsLowered)};
}

}  // namespace fedhpa::controller
