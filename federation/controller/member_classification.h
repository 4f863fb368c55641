// Which members a reconcile plans over, and what the others hold. Pure: the reconciler reads the
// members, this decides how far each can be trusted with a plan.
//   - foreign (an HPA of that name fedhpa did not create) or Released: out of the federation's sums;
//   - Unknown, or unseen (may hold more than the cache shows): keeps what it holds, frozen out of
//     the partition; one never read also blocks every raise until it has been;
//   - Healthy and selected by the federated HPA's cluster selector: planned.
#pragma once

#include <string>
#include <vector>

#include "federation/controller/hpa_decode.h"
#include "federation/controller/member_hpa.h"
#include "partitioner/types.h"

namespace fedhpa::controller {

struct MemberClassification {
  partitioner::Limits frozen{0, 0};                // summed over the members that keep what they hold
  std::vector<std::string> unread;                 // may hold more than is known: no raise until read
  std::vector<partitioner::ClusterState> planned;  // the partitioner's members, with their copies
};

// Throws SelectorError when the selector does not parse (judged only when a member is planned).
MemberClassification classifyMembers(const std::vector<MemberHpa>& locals, const FederatedHpa& federated,
                                     const std::string& clusterSelector);

}  // namespace fedhpa::controller
