// A plan in words: the reason for each move and the one-line summary, as users read them in
// `fedhpa partition` output and in the controller's Events. Plans carry causes and numbers
// (types.h); only a caller that shows a plan pays for its words.
#pragma once

#include <string>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

// "saturated (4/4 replicas at 92% > 50% target): received max 2 from member2, 1 from member3";
// several causes are "; "-joined in the order the plan applied them. A caller's own move: its note.
std::string reasonFor(const Plan& plan, const Move& move);

// "min 1, max 10 over 3 of 3 clusters; 2 cluster(s) changed", then the plan's notes.
std::string summaryOf(const Plan& plan);

}  // namespace fedhpa::partitioner
