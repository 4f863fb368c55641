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

// The fields fedhpa owns, as an API server that defaults autoscaling/v2 would store them. The
// defaults read and fill owned fields only, so they are applied to the owned fields alone.
json ownedFields(const json& spec) {
  json owned = json::object();
  if (spec.is_object()) {
    for (const char* field : kOwnedSpecFields)
      if (const auto it = spec.find(field); it != spec.end()) owned[field] = *it;
  } else if (!spec.is_null()) {
    return owned;  // no spec object: nothing in it is owned, and there is nothing to default
  }
  api::applyHpaV2Defaults(owned);
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
  // The members as phase 1 leaves them: the later phases are planned from there. A member whose
  // min it raises holds the raised limits, and the copy phase 1 writes (of which only the spec is
  // compared); the others hold what they do now.
  std::vector<std::optional<partitioner::Limits>> limits(locals.size());
  std::vector<std::optional<json>> raisedCopies(locals.size());
  for (std::size_t i = 0; i < locals.size(); ++i) {
    const MemberHpa& local = locals[i];
    limits[i] = local.limits;
    const auto target = writable(local) && local.limits ? wantedOf(local) : std::nullopt;
    if (!target || target->min <= local.limits->min || local.limits->min >= local.limits->max) continue;
    const partitioner::Limits raisedMin{std::min(target->min, local.limits->max), local.limits->max};
    minsRaised.writes.push_back({i, raisedMin});
    limits[i] = raisedMin;
    if (local.hpa) raisedCopies[i] = json{{"spec", localSpec(federated, raisedMin)}};
  }
  for (std::size_t i = 0; i < locals.size(); ++i) {
    const MemberHpa& local = locals[i];
    if (!writable(local)) continue;
    const json* hpa = raisedCopies[i] ? &*raisedCopies[i] : local.hpa ? &*local.hpa : nullptr;
    const std::optional<partitioner::Limits>& held = limits[i];
    const auto target = wantedOf(local);
    if (!target) {
      if (hpa) lowerings.writes.push_back({i, std::nullopt});
      continue;
    }
    if (hpa && writeChangesNothing(*hpa, federated, *target)) continue;
    if (held && target->max <= held->max) {
      // A lowered max keeps as much of its member's min as it can until the raises are in: the
      // min that moves to another member leaves this one only once that one holds it.
      const partitioner::Limits keepingMin{std::max(target->min, std::min(held->min, target->max)), target->max};
      if (keepingMin.min > target->min) {
        minsLowered.writes.push_back({i, target});
        if (hpa && writeChangesNothing(*hpa, federated, keepingMin)) continue;  // lowered on an earlier pass
        lowerings.writes.push_back({i, keepingMin});
      } else {
        lowerings.writes.push_back({i, target});
      }
    } else if (!hpa) {
      creates.writes.push_back({i, target});
    } else {
      raises.writes.push_back({i, target});
    }
  }
  return {std::move(minsRaised), std::move(lowerings), std::move(creates), std::move(raises), std::move(minsLowered)};
}

}  // namespace fedhpa::controller
