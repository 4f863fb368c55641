#include "partitioner/steps.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "partitioner/exchange.h"
#include "partitioner/spread.h"

namespace fedhpa::partitioner {
namespace {

// std::clamp, by value: its references to temporaries (a bound of 0, a difference) kept them on
// the stack, a store and a load per cluster. The same tests in the same order.
Replicas clampValue(Replicas value, Replicas low, Replicas high) {
  return value < low ? low : (high < value ? high : value);
}

// Records a cause of `kind` (the limits before and after) for every cluster the first step
// changed: before it, each cluster's limits were its current ones (Schedule::reset), so the
// views hold them and no copy is kept.
void explainChanges(Schedule& schedule, std::span<const ClusterView> views, Cause::Kind kind,
                    Replicas federated) {
  const std::size_t n = schedule.limits.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Limits& now = schedule.limits[i];
    const Limits then = views[i].limits;
    if (now == then) continue;
    Cause& cause = schedule.because(i, kind);
    cause.federated = federated;
    cause.before = then;
    cause.after = now;
  }
}

// Max cluster v holds at `max` and does not use: what it may give to others. Rebalancing takes it
// only from clusters the policy lets give (onlyThoseThatMayGive); a smaller spec from any.
Replicas spareMax(const ClusterView& v, Replicas max, bool onlyThoseThatMayGive) {
  const bool gives = v.present && !v.saturated && (!onlyThoseThatMayGive || v.mayGive);
  return gives ? std::max<Replicas>(0, max - v.maxInUse) : 0;
}

Scratch::Array maxSpares(Schedule& schedule, std::span<const ClusterView> views,
                         bool onlyThoseThatMayGive) {
  Scratch::Array spares = schedule.scratch.overwritten(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    spares[i] = spareMax(views[i], schedule.limits[i].max, onlyThoseThatMayGive);
  }
  return spares;
}

// Max taken from each cluster (a min above its new max follows it down).
void applyMaxTaken(Schedule& schedule, std::span<const Replicas> taken) {
  Limits* const limits = schedule.limits.data();
  for (std::size_t i = 0; i < taken.size(); ++i) {
    Limits& l = limits[i];
    l.max -= taken[i];
    l.min = std::min(l.min, l.max);
  }
}

// An exchange of max: donors lose what they gave, receivers gain what they received. The limits
// are reached through their data pointer: through the vector, each store to a limit reloaded its
// bounds.
void applyMaxExchange(Schedule& schedule, const Exchange& ex) {
  Limits* const limits = schedule.limits.data();
  for (std::size_t i = 0; i < ex.given.size(); ++i) {
    Limits& l = limits[i];
    l.max += ex.received[i] - ex.given[i];
    l.min = std::min(l.min, l.max);
  }
}

}  // namespace

void fairShares(std::span<const ClusterView> views, Replicas total,
                std::vector<Replicas>& shares, Scratch& scratch) {
  const Scratch::Mark mark(scratch);
  const std::size_t n = views.size();
  Scratch::Array floors = scratch.overwritten(n), caps = scratch.overwritten(n),
                 weights = scratch.overwritten(n);
  for (std::size_t i = 0; i < n; ++i) {
    floors[i] = views[i].preferredFloor;
    weights[i] = views[i].weight;
  }
  if (sum(floors) > total) std::fill(floors.begin(), floors.end(), 0);  // the floors cannot all hold: by weight
  for (std::size_t i = 0; i < n; ++i) caps[i] = std::max<Replicas>(0, views[i].preferredCap - floors[i]);

  if (!tiered(views)) {
    shares.resize(n);
    spreadWeighted(total - sum(floors), weights, caps, shares, scratch);
  } else {
    // Burst tiers: the lowest tier up to its caps first, what is left to the next tier.
    shares.assign(n, 0);
    Replicas left = total - sum(floors);
    Scratch::Array tierCaps = scratch.zeros(n), tierWeights = scratch.zeros(n),
                   tierShares = scratch.zeros(n);
    const Scratch::Array tiers = tiersOf(scratch, views);
    for (const Replicas tier : tiers) {
      for (std::size_t i = 0; i < n; ++i) {
        tierCaps[i] = views[i].tier == tier ? caps[i] : 0;
        tierWeights[i] = views[i].tier == tier ? weights[i] : 0;
      }
      spreadWeighted(left, tierWeights, tierCaps, tierShares, scratch);
      for (std::size_t i = 0; i < n; ++i) shares[i] += tierShares[i];
      left -= sum(tierShares);
    }
  }
  for (std::size_t i = 0; i < n; ++i) shares[i] += floors[i];
  // The caps together cannot hold the total: the rest goes evenly, caps or not.
  const Replicas rest = total - sum(shares);
  if (rest > 0) levelUp(shares, scratch.filled(n, kNoCap), rest, scratch);
}

const Schedule::FairShares& fairSharesOf(Schedule& schedule, std::span<const ClusterView> views,
                                        Replicas total) {
  Schedule::FairShares& fair = schedule.fair;
  if (schedule.fairKnown) return fair;
  schedule.fairKnown = true;
  fair.even = !schedule.preferencesSet && total <= kNoCap;
  if (!fair.even) {
    fairShares(views, total, fair.shaped, schedule.scratch);
    return fair;
  }
  // Equal weights, no floors, caps or tiers: what fairShares computes, without its working arrays.
  const auto n = static_cast<Replicas>(views.size());
  fair.each = total / n;
  fair.extra = static_cast<std::size_t>(total % n);
  return fair;
}

void spreadInitially(Schedule& schedule, std::span<const ClusterView> views,
                     const FederatedSpec& spec) {
  const Schedule::FairShares& shares = fairSharesOf(schedule, views, spec.limits.max);
  for (std::size_t i = 0; i < views.size(); ++i) {
    schedule.limits[i] = {0, shares[i]};
    if (shares[i] > 0) {
      Cause& cause = schedule.because(i, Cause::Kind::InitialSpread);
      cause.federated = spec.limits.max;
      cause.after = {0, shares[i]};
    }
  }
}

void placeByWeight(Schedule& schedule, std::span<const ClusterView> views, const FederatedSpec& spec) {
  const Schedule::FairShares& shares = fairSharesOf(schedule, views, spec.limits.max);
  for (std::size_t i = 0; i < views.size(); ++i) {
    Limits& limits = schedule.limits[i];
    if (limits.max == shares[i]) continue;
    Cause& cause = schedule.because(i, Cause::Kind::WeightedShare);
    cause.federated = spec.limits.max;
    cause.before = limits;
    limits = {shares[i] > 0 ? std::min(limits.min, shares[i]) : 0, shares[i]};
    cause.after = limits;
  }
}

namespace {

// A smaller federated max: unused max first, then the largest local max down, then whole clusters.
void lowerMax(Schedule& schedule, std::span<const ClusterView> views, Replicas excess) {
  const std::size_t n = views.size();
  Scratch& scratch = schedule.scratch;
  // 1. max the clusters do not use (the window does not protect against a smaller spec).
  //    Burst tiers: the highest tier gives first.
  const Scratch::Array spares = maxSpares(schedule, views, false);
  Scratch::Array left = scratch.copy(spares);
  if (!schedule.tiered) {
    excess -= levelDown(left, scratch.zeros(n), excess, scratch);
  } else {
    const Scratch::Array tiers = tiersOf(scratch, views);
    Scratch::Array floors = scratch.zeros(n);
    for (std::size_t t = tiers.size(); t-- > 0 && excess > 0;) {
      for (std::size_t i = 0; i < n; ++i) floors[i] = views[i].tier == tiers[t] ? 0 : left[i];
      excess -= levelDown(left, floors, excess, scratch);
    }
  }
  applyMaxTaken(schedule, difference(scratch, spares, left));

  // 2. the largest local max first, keeping preference floors; 3. the same, down to 1.
  Scratch::Array maxes = schedule.maxes();
  Scratch::Array floors = scratch.zeros(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (maxes[i] > 0) floors[i] = std::max<Replicas>(1, views[i].preferredFloor);
  }
  excess -= levelDown(maxes, floors, excess, scratch);
  for (std::size_t i = 0; i < n; ++i) floors[i] = maxes[i] > 0 ? 1 : 0;
  excess -= levelDown(maxes, floors, excess, scratch);
  for (std::size_t i = 0; i < n; ++i) {
    schedule.limits[i].max = maxes[i];
    schedule.limits[i].min = std::min(schedule.limits[i].min, maxes[i]);
  }

  // 4. fewer replicas than clusters: drop the least busy, the last by name first.
  if (excess <= 0) return;
  Scratch::Array holders = scratch.overwritten(n);
  std::size_t holding = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (schedule.limits[i].max > 0) holders[holding++] = static_cast<Replicas>(i);
  }
  holders = holders.first(holding);
  std::sort(holders.begin(), holders.end(), [&](Replicas a, Replicas b) {
    const Replicas ca = views[static_cast<std::size_t>(a)].status->current;
    const Replicas cb = views[static_cast<std::size_t>(b)].status->current;
    return ca != cb ? ca < cb : a > b;
  });
  for (std::size_t k = 0; k < holders.size() && excess > 0; ++k, --excess) {
    schedule.limits[static_cast<std::size_t>(holders[k])] = {0, 0};
  }
}

// A larger federated max: saturated clusters first, then clusters without an HPA, then the
// lowest local max. Writes each cluster's max and why it changed in one pass at the end.
void raiseMax(Schedule& schedule, std::span<const ClusterView> views, Replicas federated,
              Replicas deficit) {
  const std::size_t n = views.size();
  Scratch& scratch = schedule.scratch;
  // 1. saturated clusters, up to what they ask for. A single one takes up to the deficit as the
  //    pass finds it (what levelUp would give it, without its pass and call); several start
  //    from nothing and are levelled.
  const Replicas singleTakes = schedule.oneSaturated ? deficit : 0;
  Replicas taken = 0;
  Scratch::Array wants = scratch.overwritten(n), received = scratch.overwritten(n);
  for (std::size_t i = 0; i < n; ++i) {
    wants[i] = views[i].saturated
                   ? clampValue(views[i].preferredCap - schedule.limits[i].max, 0, views[i].maxNeeded)
                   : 0;
    received[i] = std::min(wants[i], singleTakes);
    taken += received[i];
  }
  deficit -= schedule.oneSaturated ? taken : levelUp(received, wants, deficit, scratch);
  // 2. clusters without an HPA, up to their fair share.
  if (deficit > 0 && !schedule.allPresent) {
    const Schedule::FairShares& fair = fairSharesOf(schedule, views, federated);
    for (std::size_t i = 0; i < n; ++i) wants[i] = views[i].present ? 0 : fair[i];
    deficit -= levelUp(received, wants, deficit, scratch);
  }
  // What each cluster holds then: its max before (this is the first step: its current max) and
  // what it received, added up in the pass that writes it unless steps 3 and 4 level it first.
  const Scratch::Array maxes = received;
  const bool levelled = deficit > 0;
  if (levelled) {
    for (std::size_t i = 0; i < n; ++i) maxes[i] += views[i].limits.max;
    // 3. the lowest local max first, within preference caps; 4. caps or not.
    Scratch::Array caps = scratch.overwritten(n);
    for (std::size_t i = 0; i < n; ++i) caps[i] = std::max(maxes[i], views[i].preferredCap);
    deficit -= levelUp(maxes, caps, deficit, scratch);
    if (deficit > 0) {
      schedule.addNote(Note::Kind::CapsExceeded);
      levelUp(maxes, scratch.filled(n, kNoCap), deficit, scratch);
    }
  }
  // Written with their causes in one pass (a min is never above the max it had, so raising the
  // max leaves it as it is).
  for (std::size_t i = 0; i < n; ++i) {
    const Limits then = views[i].limits;
    const Replicas max = levelled ? maxes[i] : maxes[i] + then.max;
    schedule.limits[i].max = max;
    if (max == then.max) continue;
    Cause& cause = schedule.because(i, Cause::Kind::FederatedMaxRaised);
    cause.federated = federated;
    cause.before = then;
    cause.after = {then.min, max};
  }
}

}  // namespace

void fitMaxToSpec(Schedule& schedule, std::span<const ClusterView> views,
                  const FederatedSpec& spec) {
  const Replicas total = schedule.currentMax;
  const Replicas federated = spec.limits.max;
  if (total == federated) return;
  const Scratch::Mark mark(schedule.scratch);
  if (total > federated) {
    lowerMax(schedule, views, total - federated);
    explainChanges(schedule, views, Cause::Kind::FederatedMaxLowered, federated);
  } else {
    raiseMax(schedule, views, federated, federated - total);
  }
}

void admitNewClusters(Schedule& schedule, std::span<const ClusterView> views,
                      const FederatedSpec& spec) {
  const std::size_t n = views.size();
  if (schedule.allPresent) return;
  const Schedule::FairShares& fair = fairSharesOf(schedule, views, spec.limits.max);
  const Scratch::Mark mark(schedule.scratch);
  // What the new clusters want and the others have spare, in one pass.
  Scratch::Array wants = schedule.scratch.overwritten(n), spares = schedule.scratch.overwritten(n);
  Replicas wanted = 0;
  Replicas spare = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Replicas max = schedule.limits[i].max;
    wants[i] = views[i].present ? 0 : std::max<Replicas>(0, fair[i] - max);
    spares[i] = spareMax(views[i], max, true);
    wanted += wants[i];
    spare += spares[i];
  }
  if (wanted == 0) return;

  const std::optional<Exchange> ex =
      spare > 0 ? exchangeByTier(schedule, views, spares, wants, spare, wanted, schedule.oneNew)
                : std::nullopt;
  if (!ex || ex->amount == 0) {
    schedule.addNote(Note::Kind::NewClusterWaits);
    return;
  }
  applyMaxExchange(schedule, *ex);
  explainExchange(schedule, *ex, Cause::Kind::NewClusterReceived, Cause::Kind::UnusedMaxGave);
}

namespace {

// Max a saturated cluster holding `max` still asks for: up to what it needs beyond the max it
// started the plan with, within its preference cap.
Replicas maxWanted(const ClusterView& v, Replicas max) {
  if (!v.saturated) return 0;
  const Replicas stillNeeded = v.limits.max + v.maxNeeded - max;
  return clampValue(v.preferredCap - max, 0, stillNeeded > 0 ? stillNeeded : 0);
}

// Max a cluster holding `max` keeps only for replicas its metrics say it no longer needs.
Replicas reclaimableMax(const ClusterView& v, Replicas max) {
  const bool gives = v.present && !v.saturated && v.mayGive;
  return gives ? std::max<Replicas>(0, max - v.maxKeptUnderPressure) : 0;
}

// The saturated clusters that asked and got nothing: how many, and the first by name.
struct Unserved {
  std::size_t count = 0;
  std::size_t first = 0;
};

// The exchanges of moveMaxToSaturated, for when some cluster has max spare or reclaimable;
// returns the saturated clusters they left unserved.
Unserved moveMaxFromDonors(Schedule& schedule, std::span<const ClusterView> views) {
  const std::size_t n = views.size();
  Scratch& scratch = schedule.scratch;
  // A donor's reclaimable max after step 1 is what it was less what it gave (its max fell by
  // that), so step 2 needs no second pass over the views. A side with nothing in it skips its
  // exchange.
  Scratch::Array wants = scratch.overwritten(n), spares = scratch.overwritten(n),
                 reclaimable = scratch.overwritten(n);
  Replicas wanted = 0;
  Replicas spare = 0;
  Replicas toReclaim = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Replicas max = schedule.limits[i].max;
    wants[i] = maxWanted(views[i], max);
    spares[i] = spareMax(views[i], max, true);
    reclaimable[i] = reclaimableMax(views[i], max);
    wanted += wants[i];
    spare += spares[i];
    toReclaim += reclaimable[i];
  }

  // 1. max the donors do not use.
  if (spare > 0) {
    const auto ex =
        exchangeByTier(schedule, views, spares, wants, spare, wanted, schedule.oneSaturated);
    if (ex && ex->amount > 0) {
      applyMaxExchange(schedule, *ex);
      explainExchange(schedule, *ex, Cause::Kind::SaturatedReceivedMax, Cause::Kind::UnusedMaxGave);
      toReclaim = 0;
      wanted = 0;
      for (std::size_t i = 0; i < n; ++i) {
        wants[i] -= ex->received[i];
        reclaimable[i] = std::max<Replicas>(0, reclaimable[i] - ex->given[i]);
        wanted += wants[i];
        toReclaim += reclaimable[i];
      }
    }
  }
  // 2. Reclaim: max held for replicas the donors' metrics say they no longer need.
  if (wanted > 0 && toReclaim > 0) {
    const auto reclaim = exchangeByTier(schedule, views, reclaimable, wants, toReclaim, wanted,
                                        schedule.oneSaturated);
    if (reclaim && reclaim->amount > 0) {
      applyMaxExchange(schedule, *reclaim);
      explainExchange(schedule, *reclaim, Cause::Kind::SaturatedReceivedMax, Cause::Kind::ReclaimGave);
      for (std::size_t i = 0; i < n; ++i) wants[i] -= reclaim->received[i];
    }
  }
  // A cluster that received max in this step has a cause saying so (its last).
  const auto receivedMax = [&](std::size_t i) {
    const std::uint32_t count = schedule.causeCount[i];
    return count > 0 &&
           schedule.causes[i * Schedule::kMaxCauses + count - 1].kind == Cause::Kind::SaturatedReceivedMax;
  };
  Unserved unserved;
  for (std::size_t i = 0; i < n; ++i) {
    if (wants[i] == 0 || receivedMax(i)) continue;
    if (unserved.count++ == 0) unserved.first = i;
  }
  return unserved;
}

}  // namespace

void moveMaxToSaturated(Schedule& schedule, std::span<const ClusterView> views,
                        const FederatedSpec& spec) {
  const std::size_t n = views.size();
  const Scratch::Mark mark(schedule.scratch);
  // What is wanted, spare and reclaimable, summed without being stored: by this step the new
  // clusters have usually taken what was spare, and then all it does is name who asked (its
  // arrays and exchanges only when some cluster can give).
  const Limits* const limits = schedule.limits.data();
  Replicas wanted = 0;
  Replicas canGive = 0;
  Unserved unserved;
  for (std::size_t i = 0; i < n; ++i) {
    const Replicas max = limits[i].max;
    const Replicas want = maxWanted(views[i], max);
    if (want > 0 && unserved.count++ == 0) unserved.first = i;
    wanted += want;
    canGive += spareMax(views[i], max, true) + reclaimableMax(views[i], max);
  }
  if (wanted == 0) return;
  if (canGive > 0) unserved = moveMaxFromDonors(schedule, views);
  // One note for the saturated clusters that got nothing: the first by name in full, a count for
  // the rest (a note per cluster would cost an allocation per cluster on every reconcile).
  if (unserved.count == 0) return;
  Note& note = schedule.addNote(Note::Kind::SaturatedUnserved);
  note.cluster = unserved.first;
  note.more = unserved.count - 1;
  views[unserved.first].recordUsage(spec.targetCPUUtilizationPercent, note.usage);
}

void moveMinToSaturated(Schedule& schedule, std::span<const ClusterView> views) {
  // Only min held idle is given, and the steps before only lower a min: none held, none to give.
  if (!schedule.minHeldIdle) return;
  const std::size_t n = views.size();
  Scratch& scratch = schedule.scratch;
  const Scratch::Mark mark(scratch);
  Scratch::Array wants = scratch.overwritten(n), spares = scratch.overwritten(n);
  Replicas wanted = 0;
  Replicas spare = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ClusterView& v = views[i];
    const Limits& l = schedule.limits[i];
    wants[i] = v.saturated ? std::max<Replicas>(0, std::min(v.status->current, l.max) - l.min) : 0;
    const bool gives = v.present && v.mayGive && !v.saturated && l.max > 0;
    spares[i] = gives ? std::max<Replicas>(0, l.min - v.minToKeep) : 0;
    wanted += wants[i];
    spare += spares[i];
  }
  if (wanted == 0 || spare == 0) return;

  const std::optional<Exchange> ex =
      exchange(scratch, spares, wants, spare, wanted, schedule.oneSaturated);
  if (!ex) return;
  for (std::size_t i = 0; i < n; ++i) {
    schedule.limits[i].min += ex->received[i] - ex->given[i];
  }
  explainExchange(schedule, *ex, Cause::Kind::SaturatedReceivedMin, Cause::Kind::IdleAtMinGave);
}

void fitMinToSpec(Schedule& schedule, std::span<const ClusterView> views,
                  const FederatedSpec& spec) {
  const std::size_t n = views.size();
  // Cluster i's min may not fall below its floor (1, or its preference floor, within its max)
  // nor rise above its max.
  const auto floorOf = [&](std::size_t i) -> Replicas {
    const Replicas max = schedule.limits[i].max;
    const Replicas floor = std::max<Replicas>(1, views[i].preferredFloor);  // a value: clampValue
    return max > 0 ? std::min(max, floor) : 0;
  };
  Scratch& scratch = schedule.scratch;
  const Scratch::Mark mark(scratch);
  Scratch::Array mins = scratch.overwritten(n);
  Replicas total = 0;
  Replicas aboveFloors = 0;
  bool changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Limits& l = schedule.limits[i];
    const Replicas floor = floorOf(i);
    mins[i] = std::clamp(l.min, floor, l.max);
    total += mins[i];
    aboveFloors += mins[i] - floor;
    changed |= mins[i] != l.min;
  }
  // Levelling towards the federated min needs the floors and caps as arrays; when Σ min
  // already meets it where it can (the common case), the clamped mins are the answer.
  if (total < spec.limits.min || (total > spec.limits.min && aboveFloors > 0)) {
    Scratch::Array bounds = scratch.overwritten(n);
    if (total < spec.limits.min) {
      for (std::size_t i = 0; i < n; ++i) bounds[i] = schedule.limits[i].max;
      changed = levelUp(mins, bounds, spec.limits.min - total, scratch) > 0 || changed;
    } else {
      for (std::size_t i = 0; i < n; ++i) bounds[i] = floorOf(i);
      changed = levelDown(mins, bounds, total - spec.limits.min, scratch) > 0 || changed;
    }
  }
  if (!changed) return;

  for (std::size_t i = 0; i < n; ++i) {
    Limits& now = schedule.limits[i];
    const Replicas before = now.min;
    const Replicas max = now.max;
    now.min = mins[i];
    if (mins[i] == before || max == 0 || !views[i].present) continue;
    Cause& cause = schedule.because(i, Cause::Kind::FederatedMin);
    cause.federated = spec.limits.min;
    cause.before = {before, max};
    cause.after = {mins[i], max};
  }
}

}  // namespace fedhpa::partitioner
