#include "partitioner/exchange.h"

#include <algorithm>
#include <vector>

namespace fedhpa::partitioner {
namespace {

// The tiers in use, ascending.
Scratch::Array tiersOf(Scratch& scratch, std::span<const ClusterView> views) {
  const Scratch::Array tiers = scratch.overwritten(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) tiers[i] = views[i].tier;
  std::sort(tiers.begin(), tiers.end());
  return tiers.first(static_cast<std::size_t>(std::unique(tiers.begin(), tiers.end()) - tiers.begin()));
}

}  // namespace

std::optional<Exchange> exchangeAcrossTiers(Schedule& schedule, std::span<const ClusterView> views, Scratch::Array spares,
                                            std::span<const Replicas> wants) {
  Scratch& scratch = schedule.scratch;
  const std::size_t n = views.size();
  const Scratch::Array tiers = tiersOf(scratch, views);
  Exchange total{scratch.zeros(n), scratch.zeros(n), 0};
  Scratch::Array spareLeft = scratch.copy(spares);
  Scratch::Array tierWants = scratch.overwritten(n), tierSpares = scratch.overwritten(n);
  for (const Replicas receiverTier : tiers) {
    for (std::size_t i = 0; i < n; ++i) tierWants[i] = views[i].tier == receiverTier ? wants[i] : 0;
    for (std::size_t t = tiers.size(); t-- > 0;) {
      const Replicas donorTier = tiers[t];
      for (std::size_t i = 0; i < n; ++i) {
        tierSpares[i] = views[i].tier == donorTier ? spareLeft[i] : 0;
      }
      const Scratch::Mark mark(scratch);  // this pair of tiers' exchange is added up below
      const std::optional<Exchange> ex = exchange(scratch, scratch.copy(tierSpares), tierWants,
                                                  sum(tierSpares), sum(tierWants), false);
      if (!ex) continue;
      for (std::size_t i = 0; i < n; ++i) {
        total.given[i] += ex->given[i];
        spareLeft[i] -= ex->given[i];
        total.received[i] += ex->received[i];
        tierWants[i] -= ex->received[i];
      }
      total.amount += ex->amount;
    }
  }
  return total;
}

void explainExchange(Schedule& schedule, const Exchange& ex, Cause::Kind receiverKind, Cause::Kind donorKind) {
  std::vector<Transfer>& transfers = schedule.transfers;
  // The cause of the receiver and of the donor of the latest transfer, each extended while the
  // next transfer names the same cluster.
  Cause* receiver = nullptr;
  Cause* donor = nullptr;
  std::size_t receiverIndex = 0;
  std::size_t donorIndex = 0;
  pairTransfers(ex.given, ex.received, transfers, [&](std::size_t k) {
    const Transfer& t = transfers[k];
    if (receiver == nullptr || t.to != receiverIndex) {
      receiverIndex = t.to;
      receiver = &schedule.because(t.to, receiverKind);
      receiver->firstTransfer = k;
    }
    ++receiver->transferCount;
    if (donor == nullptr || t.from != donorIndex) {
      donorIndex = t.from;
      donor = &schedule.because(t.from, donorKind);
      donor->firstTransfer = k;
    }
    ++donor->transferCount;
  });
}

}  // namespace fedhpa::partitioner
