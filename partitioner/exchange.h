// Moving max or min between clusters: the donors' spare against the receivers' wants, levelled
// (spread.h), within burst tiers when there are any, and the causes that explain each move. The
// steps (steps.h) are built from these. The small, hot parts are inline: each step's call of
// exchange() is inlined where it is made.
#pragma once

#include <algorithm>
#include <optional>
#include <span>

#include "partitioner/cluster_view.h"
#include "partitioner/schedule.h"
#include "partitioner/scratch.h"
#include "partitioner/spread.h"

namespace fedhpa::partitioner {

// The amount each cluster lost between two vectors.
inline Scratch::Array difference(Scratch& scratch, std::span<const Replicas> from, std::span<const Replicas> to) {
  Scratch::Array d = scratch.overwritten(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) d[i] = from[i] - to[i];
  return d;
}

// What levelUp from zero gives when at most one cluster wants anything (the caller knows: a
// single saturated or new cluster, the common case in a small federation): that cluster up to
// `amount`, every other nothing. Overwrites `received` in one pass, without levelUp's pass and
// call.
inline void oneReceiverTakes(Scratch::Array received, std::span<const Replicas> wants, Replicas amount) {
  for (std::size_t i = 0; i < wants.size(); ++i) received[i] = std::min(wants[i], amount);
}

// Moves up to min(Σ wants, Σ spares) of max or min from donors to receivers: donors with the
// largest spare give first, receivers are served evenly. Returns what each gave and received, or
// nothing when there is nothing to give or nothing wanted (no arrays are leased for it).
struct Exchange {
  Scratch::Array given;
  Scratch::Array received;
  Replicas amount = 0;
};
// `spares` is the caller's lease, handed over: it becomes what the donors gave when they give
// all of it. `spare` and `wanted` are their sums (the callers add them up as they write them);
// `oneReceiver`: the caller knows at most one cluster wants. The arrays returned are leased under
// the caller's Scratch::Mark.
inline std::optional<Exchange> exchange(Scratch& scratch, Scratch::Array spares, std::span<const Replicas> wants,
                                        Replicas spare, Replicas wanted, bool oneReceiver) {
  const std::size_t n = spares.size();
  if (spare == 0 || wanted == 0) return std::nullopt;
  // The side whose whole total moves needs no levelling: every donor gives all its spare, or
  // every receiver gets all it wants.
  if (spare == wanted) return Exchange{spares, scratch.copy(wants), spare};
  if (spare < wanted) {
    if (oneReceiver) {
      Exchange result{spares, scratch.overwritten(n), spare};
      oneReceiverTakes(result.received, wants, spare);
      return result;
    }
    Exchange result{spares, scratch.zeros(n), spare};
    levelUp(result.received, wants, spare, scratch);
    return result;
  }
  Exchange result{scratch.copy(spares), scratch.copy(wants), wanted};
  levelDown(result.given, scratch.zeros(n), wanted, scratch);
  for (std::size_t i = 0; i < n; ++i) result.given[i] = spares[i] - result.given[i];
  return result;
}

// Burst tiers: an exchange where the receivers of the lowest tier are served first and the donors
// of the highest tier give first (exchangeByTier, without tiers an exchange()). Out of line, so
// that exchangeByTier stays small enough to be inlined into its callers.
std::optional<Exchange> exchangeAcrossTiers(Schedule& schedule, std::span<const ClusterView> views, Scratch::Array spares,
                                            std::span<const Replicas> wants);

// exchange(), or exchangeAcrossTiers when some cluster is in a tier other than 0. The tiered
// exchange is out of line, so that this choice is small enough to be inlined into its callers.
inline std::optional<Exchange> exchangeByTier(Schedule& schedule, std::span<const ClusterView> views,
                                              Scratch::Array spares, std::span<const Replicas> wants,
                                              Replicas spare, Replicas wanted, bool oneReceiver) {
  if (!schedule.tiered) {
    return exchange(schedule.scratch, spares, wants, spare, wanted, oneReceiver);
  }
  return exchangeAcrossTiers(schedule, views, spares, wants);
}

// Causes on both sides of an exchange, one per cluster that gave or received, each naming its
// transfers (pairTransfers keeps each cluster's transfers consecutive on either side).
void explainExchange(Schedule& schedule, const Exchange& ex, Cause::Kind receiverKind, Cause::Kind donorKind);

}  // namespace fedhpa::partitioner
