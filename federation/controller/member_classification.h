// Which members a reconcile plans over, and what the others hold. Pure: the reconciler reads the
// members, this decides how far each can be trusted with a plan.
//   - foreign (an HPA of that name fedhpa did not create) or Released: out of the federation's sums;
//   - Unknown, or unseen (may hold more than the cache shows): keeps what it holds, frozen out of
//     the partition; one never read also blocks every raise until it has been;
//   - Healthy, selected by the federated HPA's cluster selector and placed by its propagation
//     policy (if one governs it): planned, with the policy's static weights when it has them.
#pragma once

#include <string>
#include <vector>

#include "federation/controller/hpa_decode.h"
#include "federation/controller/member_hpa.h"
#include "federation/controller/propagation_policy.h"
#include "partitioner/types.h"

namespace fedhpa::controller {

struct MemberClassification {
  partitioner::Limits frozen{0, 0};                // summed over the members that keep what they hold
  std::vector<std::string> unread;                 // may hold more than is known: no raise until read
  std::vector<partitioner::ClusterState> planned;  // the partitioner's members, with their copies
};

// Throws SelectorError when the selector does not parse (judged only when a member is planned).
MemberClassification classifyMembers(const std::vector<MemberHpa>& locals, const FederatedHpa& federated,
                                     const std::string& clusterSelector, const std::optional<Placement>& placement = std::nullopt);

}  // namespace fedhpa::controller
