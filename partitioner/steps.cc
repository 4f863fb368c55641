#include "partitioner/steps.h"

#include <algorithm>
#include <numeric>

#include "partitioner/spread.h"

namespace fedhpa::partitioner {
namespace {

std::string str(Replicas value) { return std::to_string(value); }

std::vector<Replicas> zeros(std::size_t n) { return std::vector<Replicas>(n, 0); }

// Records "max 3 -> 5" (and the min, when it moved) for every cluster the step changed.
void explainChanges(Schedule& schedule, const std::vector<Limits>& before, std::string_view why) {
  for (std::size_t i = 0; i < before.size(); ++i) {
    const Limits& now = schedule.limits[i];
    if (now == before[i]) continue;
    std::string& reason = schedule.reasons[i];
    if (reason.empty()) reason.reserve(Schedule::kReasonCapacity);
    if (!reason.empty()) reason += "; ";
    reason += why;
    reason += ": max ";
    appendNumber(reason, before[i].max);
    reason += " -> ";
    appendNumber(reason, now.max);
    if (now.min != before[i].min) {
      reason += ", min ";
      appendNumber(reason, before[i].min);
      reason += " -> ";
      appendNumber(reason, now.min);
    }
  }
}

// The amount each cluster lost or gained between two vectors.
std::vector<Replicas> difference(const std::vector<Replicas>& from,
                                 const std::vector<Replicas>& to) {
  std::vector<Replicas> d(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) d[i] = from[i] - to[i];
  return d;
}

// Moves up to min(Σ wants, Σ spares) of max or min from donors to receivers: donors with the
// largest spare give first, receivers are served evenly. Returns what each gave and received.
struct Exchange {
  std::vector<Replicas> given;
  std::vector<Replicas> received;
  Replicas amount = 0;
};
Exchange exchange(const std::vector<Replicas>& spares, const std::vector<Replicas>& wants) {
  Exchange result;
  result.amount = std::min(sum(spares), sum(wants));
  std::vector<Replicas> left = spares;
  levelDown(left, zeros(spares.size()), result.amount);
  result.given = difference(spares, left);
  result.received = zeros(wants.size());
  levelUp(result.received, wants, result.amount);
  return result;
}

// The tiers in use, ascending.
std::vector<Replicas> tiersOf(const std::vector<ClusterView>& views) {
  std::vector<Replicas> tiers;
  for (const ClusterView& v : views) tiers.push_back(v.tier);
  std::sort(tiers.begin(), tiers.end());
  tiers.erase(std::unique(tiers.begin(), tiers.end()), tiers.end());
  return tiers;
}

// Burst tiers: an exchange where the receivers of the lowest tier are served first and the donors
// of the highest tier give first. Without tiers, exchange().
Exchange exchangeByTier(const std::vector<ClusterView>& views, const std::vector<Replicas>& spares,
                        const std::vector<Replicas>& wants) {
  if (!tiered(views)) return exchange(spares, wants);
  const std::size_t n = views.size();
  const std::vector<Replicas> tiers = tiersOf(views);
  Exchange total{zeros(n), zeros(n), 0};
  std::vector<Replicas> spareLeft = spares;
  std::vector<Replicas> tierWants(n), tierSpares(n);
  for (const Replicas receiverTier : tiers) {
    for (std::size_t i = 0; i < n; ++i) tierWants[i] = views[i].tier == receiverTier ? wants[i] : 0;
    for (auto donorTier = tiers.rbegin(); donorTier != tiers.rend(); ++donorTier) {
      for (std::size_t i = 0; i < n; ++i) {
        tierSpares[i] = views[i].tier == *donorTier ? spareLeft[i] : 0;
      }
      const Exchange ex = exchange(tierSpares, tierWants);
      for (std::size_t i = 0; i < n; ++i) {
        total.given[i] += ex.given[i];
        spareLeft[i] -= ex.given[i];
        total.received[i] += ex.received[i];
        tierWants[i] -= ex.received[i];
      }
      total.amount += ex.amount;
    }
  }
  return total;
}

// Reasons on both sides of an exchange, one per cluster that gave or received, written straight
// into the schedule: "saturated (...): received max 2 from member2, 1 from member3",
// "...: gave max 2 to member1". why(text, i) appends the cause and is asked only for those
// clusters. pairTransfers sweeps donors and receivers in index order, so each cluster's transfers
// are consecutive.
template <typename ReceiverWhy, typename DonorWhy>
void explainExchange(Schedule& schedule, const std::vector<ClusterView>& views,
                     const Exchange& ex, std::string_view what, ReceiverWhy receiverWhy,
                     DonorWhy donorWhy) {
  const std::vector<Transfer> transfers = pairTransfers(ex.given, ex.received);
  const auto write = [&](bool receivers, auto why) {
    const auto self = [&](const Transfer& t) { return receivers ? t.to : t.from; };
    for (std::size_t k = 0; k < transfers.size();) {
      const std::size_t i = self(transfers[k]);
      std::string& reason = schedule.reasons[i];
      if (reason.empty()) reason.reserve(Schedule::kReasonCapacity);
      if (!reason.empty()) reason += "; ";
      why(reason, i);
      reason += receivers ? ": received " : ": gave ";
      reason += what;
      for (bool first = true; k < transfers.size() && self(transfers[k]) == i; ++k, first = false) {
        reason += first ? " " : ", ";
        appendNumber(reason, transfers[k].amount);
        reason += receivers ? " from " : " to ";
        reason += views[receivers ? transfers[k].from : transfers[k].to].name;
      }
    }
  };
  write(true, receiverWhy);
  write(false, donorWhy);
}

std::vector<Replicas> maxSpares(const Schedule& schedule, const std::vector<ClusterView>& views,
                                bool onlyThoseThatMayGive) {
  std::vector<Replicas> spares = zeros(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const ClusterView& v = views[i];
    if (!v.present || v.saturated || (onlyThoseThatMayGive && !v.mayGive)) continue;
    spares[i] = std::max<Replicas>(0, schedule.limits[i].max - v.maxInUse);
  }
  return spares;
}

void unusedMax(std::string& text, const ClusterView& v, std::optional<Replicas> target) {
  text += "unused max (";
  v.appendUsage(text, target);
  text += ')';
}

void applyMaxDelta(Schedule& schedule, const std::vector<Replicas>& delta, int sign) {
  for (std::size_t i = 0; i < delta.size(); ++i) {
    Limits& l = schedule.limits[i];
    l.max += sign * delta[i];
    l.min = std::min(l.min, l.max);
  }
}

}  // namespace

std::vector<Replicas> fairShares(const std::vector<ClusterView>& views, Replicas total) {
  const std::size_t n = views.size();
  std::vector<Replicas> floors(n), caps(n), weights(n);
  for (std::size_t i = 0; i < n; ++i) {
    floors[i] = views[i].preferredFloor;
    weights[i] = views[i].weight;
  }
  if (sum(floors) > total) floors = zeros(n);  // the floors cannot all hold: spread by weight
  for (std::size_t i = 0; i < n; ++i) caps[i] = std::max<Replicas>(0, views[i].preferredCap - floors[i]);

  std::vector<Replicas> shares;
  if (!tiered(views)) {
    shares = spreadWeighted(total - sum(floors), weights, caps);
  } else {
    // Burst tiers: the lowest tier up to its caps first, what is left to the next tier.
    shares = zeros(n);
    Replicas left = total - sum(floors);
    std::vector<Replicas> tierCaps(n), tierWeights(n);
    for (const Replicas tier : tiersOf(views)) {
      for (std::size_t i = 0; i < n; ++i) {
        tierCaps[i] = views[i].tier == tier ? caps[i] : 0;
        tierWeights[i] = views[i].tier == tier ? weights[i] : 0;
      }
      const std::vector<Replicas> tierShares = spreadWeighted(left, tierWeights, tierCaps);
      for (std::size_t i = 0; i < n; ++i) shares[i] += tierShares[i];
      left -= sum(tierShares);
    }
  }
  for (std::size_t i = 0; i < n; ++i) shares[i] += floors[i];
  // The caps together cannot hold the total: the rest goes evenly, caps or not.
  levelUp(shares, std::vector<Replicas>(n, kNoCap), total - sum(shares));
  return shares;
}

const std::vector<Replicas>& fairSharesOf(Schedule& schedule, const std::vector<ClusterView>& views,
                                          Replicas total) {
  if (schedule.fair.size() != views.size()) schedule.fair = fairShares(views, total);
  return schedule.fair;
}

void spreadInitially(Schedule& schedule, const std::vector<ClusterView>& views,
                     const FederatedSpec& spec) {
  const std::vector<Replicas>& shares = fairSharesOf(schedule, views, spec.limits.max);
  for (std::size_t i = 0; i < views.size(); ++i) {
    schedule.limits[i] = {0, shares[i]};
    if (shares[i] > 0) {
      schedule.because(i, "initial spread: max " + str(shares[i]) + " of " +
                              str(spec.limits.max) + " over " + str(views.size()) + " clusters");
    }
  }
}

namespace {

// A smaller federated max: unused max first, then the largest local max down, then whole clusters.
void lowerMax(Schedule& schedule, const std::vector<ClusterView>& views, Replicas excess) {
  const std::size_t n = views.size();
  // 1. max the clusters do not use (the window does not protect against a smaller spec).
  //    Burst tiers: the highest tier gives first.
  const std::vector<Replicas> spares = maxSpares(schedule, views, false);
  std::vector<Replicas> left = spares;
  if (!tiered(views)) {
    excess -= levelDown(left, zeros(n), excess);
  } else {
    const std::vector<Replicas> tiers = tiersOf(views);
    std::vector<Replicas> floors(n);
    for (auto tier = tiers.rbegin(); tier != tiers.rend() && excess > 0; ++tier) {
      for (std::size_t i = 0; i < n; ++i) floors[i] = views[i].tier == *tier ? 0 : left[i];
      excess -= levelDown(left, floors, excess);
    }
  }
  applyMaxDelta(schedule, difference(spares, left), -1);

  // 2. the largest local max first, keeping preference floors; 3. the same, down to 1.
  std::vector<Replicas> maxes = schedule.maxes();
  std::vector<Replicas> floors(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (maxes[i] > 0) floors[i] = std::max<Replicas>(1, views[i].preferredFloor);
  }
  excess -= levelDown(maxes, floors, excess);
  for (std::size_t i = 0; i < n; ++i) floors[i] = maxes[i] > 0 ? 1 : 0;
  excess -= levelDown(maxes, floors, excess);
  for (std::size_t i = 0; i < n; ++i) {
    schedule.limits[i].max = maxes[i];
    schedule.limits[i].min = std::min(schedule.limits[i].min, maxes[i]);
  }

  // 4. fewer replicas than clusters: drop the least busy, the last by name first.
  std::vector<std::size_t> holders;
  for (std::size_t i = 0; i < n; ++i) {
    if (schedule.limits[i].max > 0) holders.push_back(i);
  }
  std::sort(holders.begin(), holders.end(), [&](std::size_t a, std::size_t b) {
    const Replicas ca = views[a].status.current;
    const Replicas cb = views[b].status.current;
    return ca != cb ? ca < cb : a > b;
  });
  for (std::size_t k = 0; k < holders.size() && excess > 0; ++k, --excess) {
    schedule.limits[holders[k]] = {0, 0};
  }
}

// A larger federated max: saturated clusters first, then clusters without an HPA, then the
// lowest local max.
void raiseMax(Schedule& schedule, const std::vector<ClusterView>& views, Replicas federated,
              Replicas deficit) {
  const std::size_t n = views.size();
  // 1. saturated clusters, up to what they ask for.
  std::vector<Replicas> wants = zeros(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (views[i].saturated) {
      wants[i] = std::clamp<Replicas>(views[i].preferredCap - schedule.limits[i].max, 0,
                                      views[i].maxNeeded);
    }
  }
  std::vector<Replicas> received = zeros(n);
  deficit -= levelUp(received, wants, deficit);
  // 2. clusters without an HPA, up to their fair share.
  if (deficit > 0 && !std::all_of(views.begin(), views.end(), [](const ClusterView& v) { return v.present; })) {
    const std::vector<Replicas>& fair = fairSharesOf(schedule, views, federated);
    for (std::size_t i = 0; i < n; ++i) wants[i] = views[i].present ? 0 : fair[i];
    deficit -= levelUp(received, wants, deficit);
  }
  applyMaxDelta(schedule, received, +1);
  // 3. the lowest local max first, within preference caps; 4. caps or not.
  std::vector<Replicas> maxes = schedule.maxes();
  std::vector<Replicas> caps(n);
  for (std::size_t i = 0; i < n; ++i) caps[i] = std::max(maxes[i], views[i].preferredCap);
  deficit -= levelUp(maxes, caps, deficit);
  if (deficit > 0) {
    schedule.notes.push_back("preference maxReplicas caps sum below the federated max; exceeded");
    levelUp(maxes, std::vector<Replicas>(n, kNoCap), deficit);
  }
  for (std::size_t i = 0; i < n; ++i) schedule.limits[i].max = maxes[i];
}

}  // namespace

void fitMaxToSpec(Schedule& schedule, const std::vector<ClusterView>& views,
                  const FederatedSpec& spec) {
  const std::vector<Limits> before = schedule.limits;
  const Replicas total = sum(schedule.maxes());
  const Replicas federated = spec.limits.max;
  if (total > federated) {
    lowerMax(schedule, views, total - federated);
    explainChanges(schedule, before, "federated max lowered to " + str(federated));
  } else if (total < federated) {
    raiseMax(schedule, views, federated, federated - total);
    explainChanges(schedule, before, "federated max raised to " + str(federated));
  }
}

void admitNewClusters(Schedule& schedule, const std::vector<ClusterView>& views,
                      const FederatedSpec& spec) {
  const std::size_t n = views.size();
  if (std::all_of(views.begin(), views.end(), [](const ClusterView& v) { return v.present; })) return;
  const std::vector<Replicas>& fair = fairSharesOf(schedule, views, spec.limits.max);
  std::vector<Replicas> wants = zeros(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!views[i].present) wants[i] = std::max<Replicas>(0, fair[i] - schedule.limits[i].max);
  }
  if (sum(wants) == 0) return;

  const Exchange ex = exchangeByTier(views, maxSpares(schedule, views, true), wants);
  if (ex.amount == 0) {
    schedule.notes.push_back("a new cluster waits: no cluster has unused max to give");
    return;
  }
  applyMaxDelta(schedule, ex.given, -1);
  applyMaxDelta(schedule, ex.received, +1);
  explainExchange(
      schedule, views, ex, "max", [](std::string& text, std::size_t) { text += "new cluster"; },
      [&](std::string& text, std::size_t i) {
        unusedMax(text, views[i], spec.targetCPUUtilizationPercent);
      });
}

void placeWithinSpec(Schedule& schedule, const std::vector<ClusterView>& views,
                     const FederatedSpec& spec) {
  if (nothingPlacedYet(views)) {
    spreadInitially(schedule, views, spec);
    return;
  }
  fitMaxToSpec(schedule, views, spec);
  admitNewClusters(schedule, views, spec);
}

void moveMaxToSaturated(Schedule& schedule, const std::vector<ClusterView>& views,
                        const FederatedSpec& spec) {
  const std::size_t n = views.size();
  const auto target = spec.targetCPUUtilizationPercent;
  std::vector<Replicas> wants = zeros(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ClusterView& v = views[i];
    if (!v.saturated) continue;
    const Replicas stillNeeded = v.limits.max + v.maxNeeded - schedule.limits[i].max;
    wants[i] = std::clamp<Replicas>(v.preferredCap - schedule.limits[i].max, 0, stillNeeded);
  }
  if (sum(wants) == 0) return;

  const auto receiverWhy = [&](std::string& text, std::size_t i) {
    text += "saturated (";
    views[i].appendUsage(text, target);
    text += ')';
  };
  // 1. max the donors do not use.
  const Exchange ex = exchangeByTier(views, maxSpares(schedule, views, true), wants);
  if (ex.amount > 0) {
    applyMaxDelta(schedule, ex.given, -1);
    applyMaxDelta(schedule, ex.received, +1);
    explainExchange(schedule, views, ex, "max", receiverWhy,
                    [&](std::string& text, std::size_t i) { unusedMax(text, views[i], target); });
    for (std::size_t i = 0; i < n; ++i) wants[i] -= ex.received[i];
  }
  // 2. Reclaim: max held for replicas the donors' metrics say they no longer need.
  std::vector<Replicas> reclaimable = zeros(n);
  if (sum(wants) > 0) {
    for (std::size_t i = 0; i < n; ++i) {
      const ClusterView& v = views[i];
      if (!v.present || v.saturated || !v.mayGive) continue;
      reclaimable[i] = std::max<Replicas>(0, schedule.limits[i].max - v.maxKeptUnderPressure);
    }
  }
  const Exchange reclaim = exchangeByTier(views, reclaimable, wants);
  if (reclaim.amount > 0) {
    applyMaxDelta(schedule, reclaim.given, -1);
    applyMaxDelta(schedule, reclaim.received, +1);
    explainExchange(schedule, views, reclaim, "max", receiverWhy,
                    [&](std::string& text, std::size_t i) {
                      const ClusterView& v = views[i];
                      text += "holds more than it needs (";
                      v.appendUsage(text, target);
                      text += "; keeps need ";
                      appendNumber(text, v.need.value_or(0));
                      text += " + margin ";
                      appendNumber(text, reclaimMargin(v.need.value_or(0)));
                      text += ')';
                    });
    for (std::size_t i = 0; i < n; ++i) wants[i] -= reclaim.received[i];
  }
  // One note for the saturated clusters that got nothing: the first by name in full, a count for
  // the rest (a note per cluster would cost an allocation per cluster on every reconcile).
  std::size_t leftOut = 0;
  std::string note;
  for (std::size_t i = 0; i < n; ++i) {
    if (wants[i] == 0 || ex.received[i] > 0 || reclaim.received[i] > 0) continue;
    if (leftOut++ == 0) {
      note = views[i].name;
      note += " saturated (";
      views[i].appendUsage(note, target);
      note += ')';
    }
  }
  if (leftOut > 1) {
    note += " and ";
    appendNumber(note, static_cast<Replicas>(leftOut - 1));
    note += " more saturated cluster(s)";
  }
  if (leftOut > 0) {
    note += " but no cluster has unused max to give";
    schedule.notes.push_back(std::move(note));
  }
}

void moveMinToSaturated(Schedule& schedule, const std::vector<ClusterView>& views) {
  const std::size_t n = views.size();
  std::vector<Replicas> wants = zeros(n), spares = zeros(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ClusterView& v = views[i];
    const Limits& l = schedule.limits[i];
    if (v.saturated) wants[i] = std::max<Replicas>(0, std::min(v.status.current, l.max) - l.min);
    if (v.present && v.mayGive && !v.saturated && l.max > 0) {
      spares[i] = std::max<Replicas>(0, l.min - v.minToKeep);
    }
  }
  if (sum(wants) == 0 || sum(spares) == 0) return;

  const Exchange ex = exchange(spares, wants);
  for (std::size_t i = 0; i < n; ++i) {
    schedule.limits[i].min += ex.received[i] - ex.given[i];
  }
  explainExchange(
      schedule, views, ex, "min", [](std::string& text, std::size_t) { text += "saturated"; },
      [](std::string& text, std::size_t) { text += "idle at its min"; });
}

void fitMinToSpec(Schedule& schedule, const std::vector<ClusterView>& views,
                  const FederatedSpec& spec) {
  const std::size_t n = views.size();
  const std::vector<Limits> before = schedule.limits;
  std::vector<Replicas> mins(n), floors(n), caps(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Limits& l = schedule.limits[i];
    caps[i] = l.max;
    floors[i] = l.max > 0 ? std::min(l.max, std::max<Replicas>(1, views[i].preferredFloor)) : 0;
    mins[i] = std::clamp(l.min, floors[i], caps[i]);
  }
  const Replicas total = sum(mins);
  if (total < spec.limits.min) levelUp(mins, caps, spec.limits.min - total);
  if (total > spec.limits.min) levelDown(mins, floors, total - spec.limits.min);
  for (std::size_t i = 0; i < n; ++i) schedule.limits[i].min = mins[i];

  for (std::size_t i = 0; i < n; ++i) {
    const Limits& now = schedule.limits[i];
    if (now.min == before[i].min || now.max == 0 || !views[i].present) continue;
    std::string& reason = schedule.reasons[i];
    if (reason.empty()) reason.reserve(Schedule::kReasonCapacity);
    if (!reason.empty()) reason += "; ";
    reason += "federated min ";
    appendNumber(reason, spec.limits.min);
    reason += ": min ";
    appendNumber(reason, before[i].min);
    reason += " -> ";
    appendNumber(reason, now.min);
  }
}

}  // namespace fedhpa::partitioner
