// In which order a plan reaches the members. Pure: it decides what each phase writes; the
// reconciler sends each phase's writes at once and goes on to the next phase only when every one
// of them was acknowledged.
//
// The order is what keeps the safety invariants (hpa_reconciler.h) true between writes:
//   1. MinsRaised:  mins that go up, as far as each member's current max lets them (no max moves),
//                   so the min a later phase takes from one member is already held by another;
//   2. Lowerings:   maxima lowered and copies deleted; a lowered member keeps as much of its min
//                   as its new max allows until phase 5;
//   3. Creates:     new copies (before raises: a create refused because the name is taken reveals
//                   a copy the plan did not count, and then nothing is raised);
//   4. Raises:      maxima raised on existing copies;
//   5. MinsLowered: the mins the lowered members kept, given up now that the others hold them.
// Phases 3 and 4 may raise what a member holds, so they wait for every lowering of phase 2: no
// observer of all members ever sees the local maxima add up to more than the federated max, nor
// the local minima to less than the federated min.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "federation/controller/member_hpa.h"
#include "partitioner/types.h"

namespace fedhpa::controller {

// One write of a member's copy: the limits it holds afterwards, or none for a delete.
struct MemberWrite {
  std::size_t local;  // the member's index in the reconcile's list
  std::optional<partitioner::Limits> limits;
  bool operator==(const MemberWrite&) const = default;
};

enum class WritePhaseKind { MinsRaised, Lowerings, Creates, Raises, MinsLowered };

struct WritePhase {
  WritePhaseKind kind;
  std::vector<MemberWrite> writes;
  // Whether a write of this phase may raise what its member holds (held back while any member may
  // hold more than is known).
  bool mayRaise() const { return kind == WritePhaseKind::Creates || kind == WritePhaseKind::Raises; }
};

// The five phases, in order (a phase may be empty). Only members whose state the cache vouches for
// are written: healthy, not foreign, not unseen; a member the plan leaves out loses its copy.
std::vector<WritePhase> writePhases(const nlohmann::json& federated, const partitioner::Plan& plan,
                                    const std::vector<MemberHpa>& locals);

// The spec of a member's copy: the federated spec with the member's limits.
nlohmann::json localSpec(const nlohmann::json& federated, const partitioner::Limits& limits);

// Whether writing `limits` to the member's copy `hpa` would change nothing fedhpa owns.
bool writeChangesNothing(const nlohmann::json& hpa, const nlohmann::json& federated, const partitioner::Limits& limits);

}  // namespace fedhpa::controller
