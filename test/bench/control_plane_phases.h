// The phases of control_plane_bench, each of which starts its own processes, measures, and adds
// its rows to the table. Convergence, reaction and memory are in control_plane_bench.cc with the
// table and main(), the API server's phase in control_plane_apiserver.cc, the phases at member
// latency in control_plane_latency.cc, the API server's memory (watchers, watch cache) in
// control_plane_watchers.cc, the phase at scale in control_plane_scale.cc, and recovery (reaction
// at 200 ms, a restored member) in control_plane_recovery.cc.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "clusters/client/kubeconfig.h"
#include "test/bench/bench_load.h"

namespace fedhpa::bench {

struct Sizes {
  bool smoke = false;
  int convergenceHpas = 1000;
  int reactionTrials = 200;
  int listHpas = 1000;
  int watchers = 100;
  int watchUpdates = 1000;
  int memoryHpas = 10000;
  int loadThreads = 4;
  std::chrono::milliseconds rateDuration{2000};
  // The phases at member latency (issue 10).
  int latencyHpas = 1000;       // federated HPAs over 10 members, and idle behind the reaction trials
  int latencyReactionTrials = 50;
  std::chrono::milliseconds idleWindow{10000};
  // Watchers that never read (issue 31), and the 32 KiB writes they are sent: more than the
  // watch cache's history of 1,000 events.
  int stalledWatchers = 50;
  int stalledWrites = 1100;
  // At scale (issue 31): federated HPAs over this many member-sims (--scale-hpas, --scale-members).
  int scaleHpas = 10000;
  int scaleMembers = 20;
  // Recovery at 200 ms over 10 members (issue 31).
  int recoveryHpas = 100;  // idle federated HPAs beside the reaction trials' one
  int recoveryReactionTrials = 100;
  std::chrono::milliseconds outage{60000};  // how long the restored member was frozen
};

struct Row {
  std::string benchmark, value, reference, ratio;
};

inline constexpr int kControllerWorkers = 16;  // the controller-manager's default --workers

// The phases, in the order a full run takes them.
void convergence(const Sizes& sizes, std::vector<Row>& rows);
void reaction(const Sizes& sizes, std::vector<Row>& rows);
void apiserverBench(const Sizes& sizes, std::vector<Row>& rows);
void memory(const Sizes& sizes, std::vector<Row>& rows);
void latencyConvergence(const Sizes& sizes, std::vector<Row>& rows);
void reactionLatency(const Sizes& sizes, std::vector<Row>& rows);
// control_plane_watchers.cc: non-reading watchers' RSS; the API server's RSS with memoryHpas HPAs
// in its watch cache.
void watchersBench(const Sizes& sizes, std::vector<Row>& rows);
void apiserverMemory(const Sizes& sizes, std::vector<Row>& rows);
void scale(const Sizes& sizes, std::vector<Row>& rows);
void recovery(const Sizes& sizes, std::vector<Row>& rows);

// The reaction trials of phase 2, which reactionLatency runs again at member latency, and the
// wait that comes before them.
struct Trials {
  std::vector<double> latencies, writeRtts;  // ms; latencies from just before the status write
  std::vector<double> sinceStored;           // ms from the status write's response (the member had stored it)
  std::vector<double> toLowered;             // ms from that response until another member's max was lowered
};

// `count` trials on the federated HPA `name`: the member holding the least max (round robin
// among equals) has its local HPA's status written saturated; timed until the mirror sees its
// max raised, then the status goes back to idle and the members settle: no member HPA changes
// for `quiet`, which must be longer than a round trip to a member, or the next trial may begin
// while the controller still writes the last one's phases and wait behind them.
Trials reactionTrials(MemberMirror& mirror, const std::vector<clusters::RestConfig>& configs, const std::string& name, int count,
                      std::chrono::milliseconds timeout, std::chrono::milliseconds quiet = std::chrono::milliseconds(100));

// Until each of the `members` members holds the federated HPA `name` (created with min 1 and
// max 3 per member) at its initial spread {1,3}, and then until no member HPA changed for `quiet`
// (within `quietWithin`).
void waitInitialSpread(MemberMirror& mirror, const std::string& name, int members, std::chrono::milliseconds quiet,
                       std::chrono::seconds quietWithin);

}  // namespace fedhpa::bench
