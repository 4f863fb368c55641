// Integer arithmetic for dividing replicas among clusters. Every function here is
// O(n log n) in the number of clusters and independent of the replica counts, so a federated
// max of 2,000,000,000 costs what a max of 10 costs. Ties always go by index (= cluster name
// order), which makes every result deterministic.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "partitioner/scratch.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner {

// Splits `total` in proportion to `weights` (largest remainder; the remainder goes to the
// largest fractional parts, ties to the lower index), never giving index i more than caps[i].
// Writes the shares into `shares` (as many as weights); their sum is min(total, sum of caps). All-zero weights count
// as equal. `scratch` lends the working arrays (here and below).
void spreadWeighted(Replicas total, std::span<const Replicas> weights,
                    std::span<const Replicas> caps, std::span<Replicas> shares, Scratch& scratch);

// Lowers values by `amount` in total, always taking from the currently highest value first
// (ties: the higher index gives first), never below floors[i]. Returns what was taken.
Replicas levelDown(std::span<Replicas> values, std::span<const Replicas> floors, Replicas amount,
                   Scratch& scratch);

// Raises values by `amount` in total, always giving to the currently lowest value first
// (ties: the lower index receives first), never above caps[i]. Returns what was given.
Replicas levelUp(std::span<Replicas> values, std::span<const Replicas> caps, Replicas amount,
                 Scratch& scratch);

// Replicas moved from donors to receivers, paired for the reasons only (the amounts per cluster
// are decided elsewhere): takes[i] left cluster i, gives[j] arrived at cluster j. Appended to
// `transfers` in one sweep of both in index order, so each cluster's transfers on either side
// are consecutive.
void pairTransfers(std::span<const Replicas> takes, std::span<const Replicas> gives,
                   std::vector<Transfer>& transfers);
// The same, calling onPair(k) as transfers[k] is appended (a caller records what the pairs mean
// in the same sweep).
template <typename OnPair>
void pairTransfers(std::span<const Replicas> takes, std::span<const Replicas> gives,
                   std::vector<Transfer>& transfers, OnPair&& onPair) {
  std::size_t from = 0;
  std::size_t to = 0;
  Replicas leftFrom = takes.empty() ? 0 : takes[0];
  Replicas leftTo = gives.empty() ? 0 : gives[0];
  for (;;) {
    while (leftFrom <= 0) {
      if (++from >= takes.size()) return;
      leftFrom = takes[from];
    }
    while (leftTo <= 0) {
      if (++to >= gives.size()) return;
      leftTo = gives[to];
    }
    const Replicas amount = std::min(leftFrom, leftTo);
    transfers.push_back({from, to, amount});
    onPair(transfers.size() - 1);
    leftFrom -= amount;
    leftTo -= amount;
  }
}

// Inline, with four running sums: steps sum their arrays a dozen times per plan, and one add per
// element then does not wait for the one before.
inline Replicas sum(std::span<const Replicas> values) {
  const Replicas* at = values.data();
  const Replicas* const end = at + values.size();
  Replicas partial[4] = {0, 0, 0, 0};
  for (; end - at >= 4; at += 4) {
    for (int k = 0; k < 4; ++k) partial[k] += at[k];
  }
  for (; at != end; ++at) partial[0] += *at;
  return partial[0] + partial[1] + partial[2] + partial[3];
}

}  // namespace fedhpa::partitioner
