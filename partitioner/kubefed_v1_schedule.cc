#include "partitioner/kubefed_v1_schedule.h"

#include <algorithm>
#include <numeric>

namespace fedhpa::partitioner {

void NameOrder::arrange(std::vector<std::size_t>& clusters, const std::set<std::size_t>& givers) {
  std::stable_partition(clusters.begin(), clusters.end(),
                        [&](std::size_t c) { return givers.count(c) > 0; });
}

std::size_t NameOrder::pick(const std::set<std::size_t>& set, std::size_t receiver) {
  return set.count(receiver) ? receiver : *set.begin();
}

namespace {

// The predicates of hpa.go, over what the local HPA reports.
bool isScaleable(const ClusterView& v) { return v.status->lastScaleTime && !v.inForbiddenWindow; }

bool maxReplicasReducible(const ClusterView& v) {
  if (v.limits.max - 1 - v.limits.min < 0) return false;
  if (v.pristine) return true;
  if (!isScaleable(v)) return false;
  return v.status->desired < v.status->current ||
         (v.status->desired == v.status->current && v.status->desired < v.limits.max);
}

bool minReplicasReducible(const ClusterView& v) {
  if (v.pristine && v.limits.min > 1 && v.limits.min <= v.limits.max) return true;
  if (!isScaleable(v)) return false;
  return v.limits.min > 1 && v.status->desired == v.status->current &&
         v.status->current == v.limits.min;
}

bool maxReplicasNeeded(const ClusterView& v) {
  return isScaleable(v) && v.status->current == v.status->desired &&
         v.status->current == v.limits.max;
}

bool minReplicasAdjustable(const ClusterView& v) {
  if (!isScaleable(v) || v.limits.min + 1 > v.limits.max) return false;
  return v.status->desired > v.limits.min;
}

struct Nums {
  Replicas min = 0;
  Replicas max = 0;
};

class Run {
 public:
  Run(const FederatedSpec& spec, std::span<const ClusterView> views, IterationOrder& order)
      : views_(views), order_(order), scheduled_(views.size()) {
    const auto n = static_cast<Replicas>(views.size());
    requested_ = {spec.limits.min, spec.limits.max};
    rdc_ = {std::max<Replicas>(1, requested_.min / n), std::max<Replicas>(2, requested_.max / n)};
  }

  std::optional<KubefedResult> schedule() {
    const Nums current = prepareForScheduling();
    Nums remaining{requested_.min - current.min, requested_.max - current.max};
    // Pass 1: reductions when the federated spec shrank.
    if (!reduceMin(remaining.min) || !reduceMax(remaining.max)) return std::nullopt;
    // Pass 2: max, then min into the clusters that got max.
    Nums toDistribute{remaining.min + static_cast<Replicas>(availableMin_.size()),
                      remaining.max + static_cast<Replicas>(availableMax_.size())};
    if (!distributeMax(toDistribute.max) || !distributeMin(toDistribute.min)) return std::nullopt;
    return finalise();
  }

 private:
  Nums prepareForScheduling() {
    Nums total;
    for (std::size_t c = 0; c < views_.size(); ++c) {
      const ClusterView& v = views_[c];
      if (!v.present) {
        noHpa_.insert(c);
        continue;
      }
      if (maxReplicasReducible(v)) availableMax_.insert(c);
      if (minReplicasReducible(v)) availableMin_.insert(c);
      scheduled_[c] = Nums{v.limits.min, v.limits.max};
      total.min += v.limits.min;
      total.max += v.limits.max;
    }
    return total;
  }

  std::vector<std::size_t> arranged(const std::vector<std::size_t>& clusters,
                                    const std::set<std::size_t>& givers) {
    std::vector<std::size_t> order = clusters;
    order_.arrange(order, givers);
    return order;
  }
  std::vector<std::size_t> all() const {
    std::vector<std::size_t> clusters(views_.size());
    std::iota(clusters.begin(), clusters.end(), 0);
    return clusters;
  }
  static std::vector<std::size_t> list(const std::set<std::size_t>& set) {
    return {set.begin(), set.end()};
  }
  std::size_t pop(std::set<std::size_t>& set, std::size_t receiver) {
    const std::size_t popped = order_.pick(set, receiver);
    set.erase(popped);
    return popped;
  }

  // Go's `for remaining < 0 { for _, r := range scheduled { if ok(r) { r.x--; remaining++ ... } } }`:
  // every round takes one from each cluster above its floor, so all full rounds are the same
  // whatever the order and are taken at once; only the last, partial round depends on order.
  // Returns false when the loop would never end (nothing left to take).
  bool roundRobinTake(Replicas& remaining, Replicas Nums::*field,
                      const std::vector<Replicas>& floors) {
    std::vector<std::size_t> active;
    for (std::size_t c = 0; c < views_.size(); ++c) {
      if (scheduled_[c] && (*scheduled_[c]).*field > floors[c]) active.push_back(c);
    }
    auto gap = [&](std::size_t c) { return (*scheduled_[c]).*field - floors[c]; };
    std::sort(active.begin(), active.end(),
              [&](std::size_t a, std::size_t b) { return gap(a) < gap(b); });
    Replicas lowered = 0;
    std::size_t first = 0;
    while (first < active.size()) {
      const auto count = static_cast<Replicas>(active.size() - first);
      const Replicas wanted = -remaining;
      if (wanted < count) break;
      const Replicas rounds = std::min(gap(active[first]) - lowered, wanted / count);
      lowered += rounds;
      remaining += rounds * count;
      while (first < active.size() && gap(active[first]) == lowered) ++first;
    }
    for (std::size_t c : active) (*scheduled_[c]).*field -= std::min(lowered, gap(c));
    if (remaining < 0) {
      for (std::size_t c : arranged(all(), {})) {
        if (remaining == 0) break;
        if (scheduled_[c] && (*scheduled_[c]).*field > floors[c]) {
          (*scheduled_[c]).*field -= 1;
          ++remaining;
        }
      }
    }
    return remaining == 0;
  }

  bool reduceMin(Replicas& remaining) {
    if (remaining < 0) {
      for (std::size_t c : list(availableMin_)) {
        Nums& r = *scheduled_[c];
        if (r.min - 1 != 0) {
          r.min--;
          availableMin_.erase(c);
          if (++remaining == 0) break;
        }
      }
    }
    // The abrupt pass: one from every min >= 1, round after round, possibly down to 0.
    return remaining >= 0 || roundRobinTake(remaining, &Nums::min, std::vector<Replicas>(views_.size(), 0));
  }

  bool reduceMax(Replicas& remaining) {
    if (remaining < 0) {
      for (std::size_t c : list(availableMax_)) {
        Nums& r = *scheduled_[c];
        if (r.max - r.min >= 0) {
          r.max--;
          availableMax_.erase(c);
          if (++remaining == 0) break;
        }
      }
    }
    if (remaining >= 0) return true;
    // The abrupt pass takes max while max >= min, so down to min - 1.
    std::vector<Replicas> floors(views_.size(), 0);
    for (std::size_t c = 0; c < views_.size(); ++c) {
      if (scheduled_[c]) floors[c] = scheduled_[c]->min - 1;
    }
    return roundRobinTake(remaining, &Nums::max, floors);
  }

  bool distributeMax(Replicas& toDistribute) {
    for (std::size_t c : arranged(all(), {})) {
      if (toDistribute == 0) break;
      if (!scheduled_[c]) continue;
      if (maxReplicasNeeded(views_[c])) {
        scheduled_[c]->max++;
        if (!availableMax_.empty()) scheduled_[pop(availableMax_, c)]->max--;
        toDistribute--;
      }
    }
    // New clusters get everything first; without any, the current ones do. Note that neither
    // loop checks toDistribute before a pop, so it can go negative (and a max with it).
    const std::vector<std::size_t> receivers = noHpa_.empty() ? all() : list(noHpa_);
    const std::size_t guard = 8 * views_.size() + 64;  // provably more rounds than needed
    for (std::size_t round = 0; toDistribute > 0; ++round) {
      if (round > guard) return false;
      for (std::size_t c : arranged(receivers, availableMax_)) {
        if (!scheduled_[c]) scheduled_[c] = Nums{};
        Nums& r = *scheduled_[c];
        if (!availableMax_.empty()) {
          r.max++;
          scheduled_[pop(availableMax_, c)]->max--;
          toDistribute--;
          continue;
        }
        if (toDistribute < rdc_.max) {
          r.max += toDistribute;
          toDistribute = 0;
          break;
        }
        r.max += rdc_.max;
        toDistribute -= rdc_.max;
      }
    }
    return true;
  }

  bool distributeMin(Replicas& toDistribute) {
    for (std::size_t c : arranged(all(), {})) {
      if (toDistribute == 0) break;
      if (!scheduled_[c] || !views_[c].present) continue;
      if (minReplicasAdjustable(views_[c]) && !availableMin_.empty()) {
        scheduled_[pop(availableMin_, c)]->min--;
        scheduled_[c]->min++;
        toDistribute--;
      }
    }
    const std::vector<std::size_t> receivers = noHpa_.empty() ? all() : list(noHpa_);
    while (toDistribute > 0) {
      const Replicas before = toDistribute;
      for (std::size_t c : arranged(receivers, availableMin_)) {
        if (!scheduled_[c]) continue;  // got no max: stays without an HPA
        Nums& r = *scheduled_[c];
        const Replicas replicaNum = std::min(toDistribute, rdc_.min);
        if (r.max - replicaNum < r.min) continue;  // would pass its max
        if (!availableMin_.empty()) {
          scheduled_[pop(availableMin_, c)]->min--;
          r.min++;
          toDistribute--;
          continue;
        }
        r.min += replicaNum;
        toDistribute -= replicaNum;
      }
      // A round that changed nothing repeats forever: every cluster was skipped, and the skips
      // depend on the state only, not on the order. This is the hang kubefed v1's TODO asks about.
      if (toDistribute == before) return false;
    }
    return true;
  }

  KubefedResult finalise() const {
    KubefedResult result(views_.size());
    for (std::size_t c = 0; c < views_.size(); ++c) {
      if (!scheduled_[c] || scheduled_[c]->max <= 0) continue;
      result[c] = Limits{std::max<Replicas>(1, scheduled_[c]->min), scheduled_[c]->max};
    }
    return result;
  }

  std::span<const ClusterView> views_;
  IterationOrder& order_;
  std::vector<std::optional<Nums>> scheduled_;
  std::set<std::size_t> availableMax_, availableMin_, noHpa_;
  Nums requested_, rdc_;
};

}  // namespace

std::optional<KubefedResult> kubefedV1Schedule(const FederatedSpec& spec,
                                               std::span<const ClusterView> views,
                                               IterationOrder& order) {
  if (views.empty()) return KubefedResult{};
  return Run(spec, views, order).schedule();
}

}  // namespace fedhpa::partitioner
