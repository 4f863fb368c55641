#include "partitioner/spread.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace fedhpa::partitioner {
namespace {

using Wide = __int128;  // products of two replica counts

enum class TieOrder { LowerIndexFirst, HigherIndexFirst };

// The shared engine of levelDown and levelUp: lowers the highest values first, never below
// floors, by `amount` in total. Sweeps the breakpoints (each value and each floor) from the top,
// so it costs a sort, whatever the sizes of the numbers. With sign -1 it works on the negated
// values and floors (raising the lowest first is lowering the highest first of the negated
// values), read and written through the sign, so no negated copies are made.
// Sorts plain integers, largest first, without comparing them where it need not: for more than
// a few of them, nothing to do when they are in order already (every cluster stops at the same level), one counting pass when
// they span fewer values than four per element (small replica counts), a comparison sort
// otherwise. Either way O(n log n) at most, whatever the numbers.
void sortDescending(Replicas* first, Replicas* last, Scratch& scratch) {
  const auto count = static_cast<Replicas>(last - first);
  if (count < 32) {  // a few clusters: insertion sort, inline (std::sort's setup costs more)
    for (Replicas* next = first + (count > 0 ? 1 : 0); next < last; ++next) {
      const Replicas value = *next;
      Replicas* at = next;
      for (; at != first && *(at - 1) < value; --at) *at = *(at - 1);
      *at = value;
    }
    return;
  }
  if (std::is_sorted(first, last, std::greater<>())) return;
  const auto [low, high] = std::minmax_element(first, last);
  const Replicas lowest = *low;
  const Replicas span = *high - lowest;  // levels stay within +-2 * kNoCap: no overflow
  if (span >= 4 * count) {
    std::sort(first, last, std::greater<>());
    return;
  }
  Scratch::Array counts = scratch.zeros(static_cast<std::size_t>(span) + 1);
  for (auto it = first; it != last; ++it) ++counts[static_cast<std::size_t>(*it - lowest)];
  auto out = first;
  for (std::size_t v = counts.size(); v-- > 0;) {
    out = std::fill_n(out, counts[v], lowest + static_cast<Replicas>(v));
  }
}

// The sign and the tie order are template arguments: known when compiled, they cost nothing in the
// passes over the clusters.
template <Replicas sign, TieOrder ties>
Replicas lowerHighestFirst(std::span<Replicas> values, std::span<const Replicas> floors,
                           Replicas amount, Scratch& scratch) {
  const std::size_t n = values.size();
  const auto value = [&](std::size_t i) { return sign * values[i]; };
  const auto floorOf = [&](std::size_t i) { return sign * floors[i]; };
  if (amount <= 0) return 0;
  // One pass for what the clusters can give, how many give, and whether they start level and
  // stop level.
  Replicas available = 0;
  std::size_t givers = 0;
  bool sameStart = true;
  bool sameStop = true;
  Replicas start = 0;
  Replicas stop = 0;
  std::size_t firstGiver = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (value(i) <= floorOf(i)) continue;
    available += value(i) - floorOf(i);
    if (givers++ == 0) {
      start = value(i);
      stop = floorOf(i);
      firstGiver = i;
    }
    sameStart = sameStart && value(i) == start;
    sameStop = sameStop && floorOf(i) == stop;
  }
  if (available == 0) return 0;
  if (available <= amount) {
    for (std::size_t i = 0; i < n; ++i) values[i] = sign * std::min(value(i), floorOf(i));
    return available;
  }
  if (givers == 1) {  // it gives all of `amount` and stays above its floor: no pass to find it
    values[firstGiver] = sign * (start - amount);
    return amount;
  }

  // `active` counts clusters (it fits 64 bits); only a step's cost needs 128.
  Replicas taken = 0;
  Replicas level = start;
  auto active = static_cast<Replicas>(givers);
  // Every giving cluster starts at one value and stops at one floor (an even split, the common
  // case): all of them give from the start down, and no floor is reached (available > amount).
  // Otherwise the levels are swept.
  if (!(sameStart && sameStop)) {
    const Scratch::Mark mark(scratch);  // here, not on entry: the cases above lease nothing
    // Events: going down, cluster i starts giving at value(i) and stops at floorOf(i). Each is
    // one packed integer, 2 * level + 1 for a start and 2 * level for a stop (levels stay within
    // +-kNoCap, far from overflow), so sorting them is sorting plain integers. The starts come
    // first: when every giving cluster starts at the same value (levelUp from zero, the common
    // case), they are already in order above every stop, and only the stops are sorted.
    Scratch::Array packed = scratch.overwritten(2 * givers);
    for (std::size_t i = 0, k = 0; i < n; ++i) {
      if (value(i) > floorOf(i)) {
        packed[k] = 2 * value(i) + 1;
        packed[givers + k++] = 2 * floorOf(i);
      }
    }
    sortDescending(packed.data() + (sameStart ? givers : 0), packed.data() + packed.size(), scratch);
    const auto levelOf = [](Replicas event) { return event >> 1; };  // floor(event / 2)
    const auto deltaOf = [](Replicas event) { return (event & 1) != 0 ? 1 : -1; };
    level = levelOf(packed[0]);
    active = 0;
    for (std::size_t e = 0; e < packed.size();) {
      const Replicas next = levelOf(packed[e]);
      const Wide cost = static_cast<Wide>(active) * static_cast<Wide>(level - next);
      if (active > 0 && static_cast<Wide>(taken) + cost >= amount) break;
      taken += static_cast<Replicas>(cost);
      level = next;
      for (; e < packed.size() && levelOf(packed[e]) == next; ++e) active += deltaOf(packed[e]);
    }
  }
  const Replicas need = amount - taken;
  const Replicas finalLevel = level - need / active;
  Replicas extra = need % active;  // give one replica more

  // Clusters that reached their floor above `level` stop there; those still giving end at
  // finalLevel, and the first `extra` of them (in tie order) one lower; those whose value is
  // below `level` were never reached.
  const auto lower = [&](std::size_t i) {
    const Replicas v = value(i), f = floorOf(i);
    if (v <= f) return;
    const bool stillGiving = v >= level && f < level;
    Replicas lowered = std::min(v, std::max(finalLevel, f));
    if (stillGiving && extra > 0) {
      lowered -= 1;
      --extra;
    }
    values[i] = sign * lowered;
  };
  if constexpr (ties == TieOrder::LowerIndexFirst) {
    for (std::size_t i = 0; i < n; ++i) lower(i);
  } else {
    for (std::size_t i = n; i-- > 0;) lower(i);
  }
  return amount;
}

}  // namespace


void spreadWeighted(Replicas total, std::span<const Replicas> weights,
                    std::span<const Replicas> caps, std::span<Replicas> shares, Scratch& scratch) {
  const Scratch::Mark mark(scratch);
  const std::size_t n = weights.size();
  std::fill(shares.begin(), shares.end(), 0);
  if (n == 0 || total <= 0) return;

  // Equal weights and no cap that could bind (the common case: no preferences): total / n
  // each, the remainder to the lowest indices, which is what the general path below computes.
  const bool equalWeights = std::all_of(weights.begin(), weights.end(),
                                        [&](Replicas x) { return x > 0 && x == weights.front(); });
  if (equalWeights && std::all_of(caps.begin(), caps.end(), [&](Replicas c) { return c >= total; })) {
    const Replicas each = total / static_cast<Replicas>(n);
    const auto extra = static_cast<std::size_t>(total % static_cast<Replicas>(n));
    for (std::size_t i = 0; i < n; ++i) shares[i] = each + (i < extra ? 1 : 0);
    return;
  }

  Scratch::Array w = scratch.copy(weights);
  if (std::all_of(weights.begin(), weights.end(), [](Replicas x) { return x <= 0; })) {
    std::fill(w.begin(), w.end(), 1);
  }

  // Water-filling: clusters whose cap is below their proportional share get their cap, in order
  // of cap per weight; the rest share what is left in proportion.
  Scratch::Array order = scratch.overwritten(n);
  std::iota(order.begin(), order.end(), Replicas{0});
  const auto at = [](Replicas index) { return static_cast<std::size_t>(index); };
  std::sort(order.begin(), order.end(), [&](Replicas ia, Replicas ib) {
    const std::size_t a = at(ia), b = at(ib);
    if (w[a] <= 0 || w[b] <= 0) return w[a] > w[b];  // zero weights last
    const Wide lhs = static_cast<Wide>(caps[a]) * w[b];
    const Wide rhs = static_cast<Wide>(caps[b]) * w[a];
    return lhs != rhs ? lhs < rhs : a < b;
  });
  Replicas remaining = total;
  Wide weightLeft = 0;
  for (std::size_t i = 0; i < n; ++i) weightLeft += std::max<Replicas>(0, w[i]);
  std::size_t firstUncapped = 0;
  for (; firstUncapped < n; ++firstUncapped) {
    const std::size_t i = at(order[firstUncapped]);
    if (w[i] <= 0 || weightLeft == 0) break;
    if (static_cast<Wide>(caps[i]) * weightLeft > static_cast<Wide>(remaining) * w[i]) break;
    shares[i] = std::max<Replicas>(0, caps[i]);
    remaining -= shares[i];
    weightLeft -= w[i];
  }
  if (weightLeft == 0 || remaining <= 0) return;

  // Largest remainder over the uncapped clusters (the remainder is recomputed where compared:
  // cheaper than a second array of 128-bit numbers).
  Scratch::Array fractions = scratch.overwritten(n);
  std::size_t uncapped = 0;
  Replicas given = 0;
  for (std::size_t k = firstUncapped; k < n; ++k) {
    const std::size_t i = at(order[k]);
    if (w[i] <= 0) continue;
    shares[i] = static_cast<Replicas>(static_cast<Wide>(remaining) * w[i] / weightLeft);
    given += shares[i];
    fractions[uncapped++] = static_cast<Replicas>(i);
  }
  fractions = fractions.first(uncapped);
  const Replicas extra = remaining - given;
  if (extra == 0) return;
  const auto remainder = [&](Replicas i) { return static_cast<Wide>(remaining) * w[at(i)] % weightLeft; };
  const auto byRemainder = [&](Replicas a, Replicas b) {
    const Wide ra = remainder(a), rb = remainder(b);
    return ra != rb ? ra > rb : a < b;
  };
  std::nth_element(fractions.begin(), fractions.begin() + (extra - 1), fractions.end(), byRemainder);
  for (Replicas k = 0; k < extra; ++k) shares[at(fractions[at(k)])] += 1;
}

Replicas levelDown(std::span<Replicas> values, std::span<const Replicas> floors, Replicas amount,
                   Scratch& scratch) {
  return lowerHighestFirst<+1, TieOrder::HigherIndexFirst>(values, floors, amount, scratch);
}

Replicas levelUp(std::span<Replicas> values, std::span<const Replicas> caps, Replicas amount,
                 Scratch& scratch) {
  return lowerHighestFirst<-1, TieOrder::LowerIndexFirst>(values, caps, amount, scratch);
}

void pairTransfers(std::span<const Replicas> takes, std::span<const Replicas> gives,
                   std::vector<Transfer>& transfers) {
  pairTransfers(takes, gives, transfers, [](std::size_t) {});
}

}  // namespace fedhpa::partitioner
