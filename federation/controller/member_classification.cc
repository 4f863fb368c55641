#include "federation/controller/member_classification.h"

#include "clusters/client/informer.h"
#include "federation/controller/cluster_selector.h"

namespace fedhpa::controller {

MemberClassification classifyMembers(const std::vector<MemberHpa>& locals, const FederatedHpa& federated,
                                     const std::string& clusterSelector, const std::optional<Placement>& placement) {
  MemberClassification out;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> placed;
  for (const auto& local : locals) {
    if (local.foreign || local.member.health == MemberHealth::Released) continue;
    if (local.unseen || local.member.health == MemberHealth::Unknown) {
      if (local.limits) {
        out.frozen.min += local.limits->min;
        out.frozen.max += local.limits->max;
      }
      // Never read since this process started: its copy may hold anything.
      const bool neverRead = !local.hpa && !(local.member.hpas && local.member.hpas->hasSynced());
      if (local.unseen || neverRead) out.unread.push_back(local.member.name);
      continue;
    }
    if (!clusterSelected(clusterSelector, local.member.labels)) continue;
    if (placement && !placement->placesOn(local.member.name, local.member.labels)) continue;
    placed.emplace_back(local.member.name, local.member.labels);
    partitioner::ClusterState state{local.member.name, std::nullopt, {}};
    if (local.hpa) state.hpa = decodeLocalHpa(*local.hpa, "clusters." + local.member.name);
    if (const auto preferences = federated.preferences.find(local.member.name); preferences != federated.preferences.end())
      state.preferences = preferences->second;
    out.planned.push_back(std::move(state));
  }
  // Karmada's static weights replace the preference weights; they are judged over the placed
  // members only (none weighed: all equal), as Karmada's scheduler judges them.
  if (placement && placement->staticWeights) {
    const auto weights = placement->weightsOf(placed);
    for (auto& state : out.planned) state.preferences.weight = weights.at(state.name);
  }
  return out;
}

}  // namespace fedhpa::controller
