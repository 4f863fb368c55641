// The working state both policies build a plan in: one Limits per cluster ({0, 0} = no HPA)
// and, per cluster, the causes of what happened to it (recorded only for clusters that move).
#pragma once

#include <cstdint>
#include <vector>

#include "partitioner/cluster_view.h"
#include "partitioner/scratch.h"
#include "partitioner/spread.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner {

struct Schedule {
  // The causes, transfers and notes are written where `plan` holds them (both live in
  // partition.h's Workspace): the plan needs them handed over by no copy and no swap.
  explicit Schedule(Plan& plan) : causes(plan.causes), transfers(plan.transfers), notes(plan.notes) {}

  std::vector<Limits> limits;
  // Why each cluster moved, in the order its causes arose: cluster i's are the first
  // causeCount[i] of its kMaxCauses slots at causes[i * kMaxCauses]. A cluster gets at most one
  // cause per step and a plan has at most six steps (demand: fit max, admit, move max, reclaim,
  // move min, fit min).
  static constexpr std::size_t kMaxCauses = 6;
  std::vector<Cause>& causes;
  // Four bytes each, not one: any fill of bytes is a memset, whatever hides the value (scratch.h).
  std::vector<std::uint32_t> causeCount;
  // What the exchanges moved between clusters; the causes index into it.
  std::vector<Transfer>& transfers;
  // Plan-wide remarks for the summary: the first noteCount; the rest keep their memory until the
  // plan is complete (partition() then drops them).
  std::vector<Note>& notes;
  std::size_t noteCount = 0;
  // Each cluster's fair share of the federated max (steps.h fairShares), worked out at most once
  // per plan by the first step that asks (fairSharesOf).
  struct FairShares {
    // Without preferences (equal weights, no floors, caps or tiers) the shares are total / n each
    // and one more for the first `extra` by name: kept as those two numbers, not written out per
    // cluster (a pass of its own, a tenth of admitting a new cluster into a small federation).
    bool even = true;
    Replicas each = 0;
    std::size_t extra = 0;
    std::vector<Replicas> shaped;  // per cluster, when preferences shape them
    Replicas operator[](std::size_t i) const { return even ? each + (i < extra ? 1 : 0) : shaped[i]; }
  };
  FairShares fair;
  bool fairKnown = false;
  // The steps' working arrays; kept with the schedule so that the next plan reuses them.
  Scratch scratch;
  // What the steps ask of all clusters at once (classify gathers it as it writes the views).
  bool tiered = false;       // some cluster is in a tier other than 0
  bool allPresent = false;   // every cluster has a local HPA
  bool nonePresent = false;  // none has: the first placement of a federated HPA
  // At most one cluster is saturated / has no local HPA: max or min given to saturated / new
  // clusters then has at most one receiver, which takes it without levelling (steps.cc).
  bool oneSaturated = false;
  bool oneNew = false;
  bool preferencesSet = false;  // some cluster has a weight, floor, cap or tier of its own
  Replicas currentMax = 0;      // Σ of the current local max
  bool minHeldIdle = false;     // some cluster holds min it does not use (ClusterView::minToKeep)

  // Starts a plan from the current limits.
  void reset(std::span<const ClusterView> views, const Federation& federation) {
    const std::size_t n = views.size();
    limits.resize(n);
    causes.resize(n * kMaxCauses);  // slots are written before they are read
    causeCount.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      limits[i] = views[i].limits;
      causeCount[i] = 0;  // in the copy's pass: a pass of its own was one more per plan
    }
    currentMax = federation.currentMax;
    preferencesSet = federation.preferencesSet;
    tiered = federation.tiered;
    minHeldIdle = federation.minHeldIdle;
    allPresent = federation.present == n;
    nonePresent = federation.present == 0;
    oneSaturated = federation.saturated <= 1;
    oneNew = n - federation.present <= 1;
    transfers.clear();
    noteCount = 0;
    fairKnown = false;
    scratch.reset();
  }

  Scratch::Array maxes() {
    Scratch::Array values = scratch.overwritten(limits.size());
    for (std::size_t i = 0; i < limits.size(); ++i) values[i] = limits[i].max;
    return values;
  }
  // A new note to write into: its kind set, its cluster, count and text cleared (the text keeps
  // its memory); its usage may hold an earlier plan's values (a SaturatedUnserved note sets it).
  Note& addNote(Note::Kind kind) {
    if (noteCount == notes.size()) notes.emplace_back();
    Note& note = notes[noteCount++];
    note.kind = kind;
    note.cluster = 0;
    note.more = 0;
    note.text.clear();
    return note;
  }
  // Records why cluster i moved.
  Cause& because(std::size_t cluster, Cause::Kind kind) {
    std::uint32_t& count = causeCount[cluster];
    // More causes than steps cannot happen; the last slot would be overwritten if it did.
    if (count < kMaxCauses) ++count;
    Cause& cause = causes[cluster * kMaxCauses + count - 1];
    cause = Cause{};
    cause.kind = kind;
    return cause;
  }
};

}  // namespace fedhpa::partitioner
