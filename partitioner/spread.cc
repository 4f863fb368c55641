#include "partitioner/spread.h"

#include <algorithm>
#include <numeric>

namespace fedhpa::partitioner {
namespace {

using Wide = __int128;  // products of two replica counts

enum class TieOrder { LowerIndexFirst, HigherIndexFirst };

// The shared engine of levelDown and levelUp: lowers the highest values first, never below
// floors, by `amount` in total. Sweeps the breakpoints (each value and each floor) from the top,
// so it costs a sort, whatever the sizes of the numbers.
Replicas lowerHighestFirst(std::vector<Replicas>& values, const std::vector<Replicas>& floors,
                           Replicas amount, TieOrder ties) {
  const std::size_t n = values.size();
  Replicas available = 0;
  for (std::size_t i = 0; i < n; ++i) available += std::max<Replicas>(0, values[i] - floors[i]);
  if (amount <= 0 || available == 0) return 0;
  if (available <= amount) {
    for (std::size_t i = 0; i < n; ++i) values[i] = std::min(values[i], floors[i]);
    return available;
  }

  // Events: going down, cluster i starts giving at values[i] and stops at floors[i].
  struct Event {
    Replicas level;
    int delta;
  };
  std::vector<Event> events;
  events.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] > floors[i]) {
      events.push_back({values[i], +1});
      events.push_back({floors[i], -1});
    }
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.level > b.level; });

  Replicas taken = 0;
  Replicas level = events.front().level;
  Wide active = 0;
  for (std::size_t e = 0; e < events.size();) {
    const Replicas next = events[e].level;
    const Wide cost = active * static_cast<Wide>(level - next);
    if (active > 0 && static_cast<Wide>(taken) + cost >= amount) break;
    taken += static_cast<Replicas>(cost);
    level = next;
    for (; e < events.size() && events[e].level == next; ++e) active += events[e].delta;
  }
  const Replicas need = amount - taken;
  const Replicas finalLevel = level - static_cast<Replicas>(need / active);
  const Replicas extra = static_cast<Replicas>(need % active);  // give one replica more

  // Clusters that reached their floor above `level` stop there; those still giving end at
  // finalLevel; those whose value is below `level` were never reached.
  std::vector<std::size_t> atLevel;
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] <= floors[i]) continue;
    const bool stillGiving = values[i] >= level && floors[i] < level;
    values[i] = std::min(values[i], std::max(finalLevel, floors[i]));
    if (stillGiving) atLevel.push_back(i);
  }
  if (ties == TieOrder::HigherIndexFirst) std::reverse(atLevel.begin(), atLevel.end());
  for (Replicas k = 0; k < extra; ++k) values[atLevel[static_cast<std::size_t>(k)]] -= 1;
  return amount;
}

}  // namespace

Replicas sum(const std::vector<Replicas>& values) {
  return std::accumulate(values.begin(), values.end(), Replicas{0});
}

std::vector<Replicas> spreadWeighted(Replicas total, const std::vector<Replicas>& weights,
                                     const std::vector<Replicas>& caps) {
  const std::size_t n = weights.size();
  std::vector<Replicas> shares(n, 0);
  if (n == 0 || total <= 0) return shares;

  std::vector<Replicas> w = weights;
  if (std::all_of(w.begin(), w.end(), [](Replicas x) { return x <= 0; })) {
    std::fill(w.begin(), w.end(), 1);
  }

  // Water-filling: clusters whose cap is below their proportional share get their cap, in order
  // of cap per weight; the rest share what is left in proportion.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
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
    const std::size_t i = order[firstUncapped];
    if (w[i] <= 0 || weightLeft == 0) break;
    if (static_cast<Wide>(caps[i]) * weightLeft > static_cast<Wide>(remaining) * w[i]) break;
    shares[i] = std::max<Replicas>(0, caps[i]);
    remaining -= shares[i];
    weightLeft -= w[i];
  }
  if (weightLeft == 0 || remaining <= 0) return shares;

  // Largest remainder over the uncapped clusters.
  struct Fraction {
    std::size_t index;
    Wide remainder;
  };
  std::vector<Fraction> fractions;
  Replicas given = 0;
  for (std::size_t k = firstUncapped; k < n; ++k) {
    const std::size_t i = order[k];
    if (w[i] <= 0) continue;
    const Wide exact = static_cast<Wide>(remaining) * w[i];
    shares[i] = static_cast<Replicas>(exact / weightLeft);
    given += shares[i];
    fractions.push_back({i, exact % weightLeft});
  }
  std::sort(fractions.begin(), fractions.end(), [](const Fraction& a, const Fraction& b) {
    return a.remainder != b.remainder ? a.remainder > b.remainder : a.index < b.index;
  });
  for (Replicas k = 0; k < remaining - given; ++k) shares[fractions[static_cast<std::size_t>(k)].index] += 1;
  return shares;
}

Replicas levelDown(std::vector<Replicas>& values, const std::vector<Replicas>& floors,
                   Replicas amount) {
  return lowerHighestFirst(values, floors, amount, TieOrder::HigherIndexFirst);
}

Replicas levelUp(std::vector<Replicas>& values, const std::vector<Replicas>& caps,
                 Replicas amount) {
  // Raising the lowest first is lowering the highest first of the negated values.
  std::vector<Replicas> negated(values.size());
  std::vector<Replicas> negatedCaps(caps.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    negated[i] = -values[i];
    negatedCaps[i] = -caps[i];
  }
  const Replicas given = lowerHighestFirst(negated, negatedCaps, amount, TieOrder::LowerIndexFirst);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = -negated[i];
  return given;
}

std::vector<Transfer> pairTransfers(const std::vector<Replicas>& takes,
                                    const std::vector<Replicas>& gives) {
  std::vector<Transfer> transfers;
  std::size_t from = 0;
  std::size_t to = 0;
  Replicas leftFrom = takes.empty() ? 0 : takes[0];
  Replicas leftTo = gives.empty() ? 0 : gives[0];
  while (from < takes.size() && to < gives.size()) {
    if (leftFrom <= 0) {
      if (++from < takes.size()) leftFrom = takes[from];
      continue;
    }
    if (leftTo <= 0) {
      if (++to < gives.size()) leftTo = gives[to];
      continue;
    }
    const Replicas amount = std::min(leftFrom, leftTo);
    transfers.push_back({from, to, amount});
    leftFrom -= amount;
    leftTo -= amount;
  }
  return transfers;
}

}  // namespace fedhpa::partitioner
