// The working state both policies build a plan in: one Limits per cluster ({0, 0} = no HPA)
// and, per cluster, the reasons for what happened to it (written only for clusters that move).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/scratch.h"
#include "partitioner/spread.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner {

struct Schedule {
  std::vector<Limits> limits;
  // A reason is one allocation: room for a typical one ("saturated (4/4 replicas at 92% > 50%
  // target ...): received max 2 from member2, 1 from member3") from the first write.
  static constexpr std::size_t kReasonCapacity = 160;
  std::vector<std::string> reasons;  // per cluster, "; "-joined in the order they arose
  // Plan-wide remarks for the summary: the first noteCount; the rest keep their memory.
  std::vector<std::string> notes;
  std::size_t noteCount = 0;
  // Each cluster's fair share of the federated max (steps.h fairShares), computed at most once
  // per plan by the first step that asks (fairSharesOf).
  std::vector<Replicas> fair;
  bool fairKnown = false;
  // The steps' working arrays and the donor/receiver pairs of an exchange's reasons; kept with
  // the schedule so that the next plan reuses them.
  Scratch scratch;
  std::vector<Transfer> transfers;

  // Starts a plan from the current limits. Reasons keep their memory for the next plan.
  void reset(const std::vector<ClusterView>& views) {
    limits.clear();
    for (const ClusterView& view : views) limits.push_back(view.limits);
    reasons.resize(views.size());
    for (std::string& reason : reasons) reason.clear();
    noteCount = 0;
    fairKnown = false;
  }

  Scratch::Array maxes() {
    Scratch::Array values = scratch.overwritten(limits.size());
    for (std::size_t i = 0; i < limits.size(); ++i) values[i] = limits[i].max;
    return values;
  }
  // A new, empty note to write into.
  std::string& addNote() {
    if (noteCount == notes.size()) notes.emplace_back();
    std::string& note = notes[noteCount++];
    note.clear();
    return note;
  }
  void because(std::size_t cluster, std::string_view reason) {
    std::string& text = reasons[cluster];
    if (text.empty()) text.reserve(kReasonCapacity);
    if (!text.empty()) text += "; ";
    text += reason;
  }
};

}  // namespace fedhpa::partitioner
