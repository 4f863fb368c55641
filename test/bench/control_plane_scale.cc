#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "clusters/client/rest_client.h"
#include "test/bench/bench_load.h"
#include "test/bench/bench_processes.h"
#include "test/bench/control_plane_phases.h"

namespace fedhpa::bench {

using clusters::RestClient;

// ---------------------------------------------------------------------------------------------
// 6. At scale (issue 31): N federated HPAs over M member-sims at --latency 50ms, separate
// processes. Convergence against the parallel-write bound, with the members' round trip measured
// in this run; then, once the controller has settled, its RSS per cached object (N federated HPAs
// and N × M members' copies in its informers) and the federation API server's RSS.

namespace {

constexpr int kScalePerMemberConcurrency = 8;  // MemberCalls' writes in flight to one member
constexpr int kScaleLatencyMs = 50;
constexpr double kCachedObjectGoalBytes = 4 * 1024.0;
constexpr double kApiserverGoalBytes = 300e6;

// The members' round trip as the controller sees it: p50 of sequential probes of each member.
double memberRoundTripMs(const std::vector<RestConfig>& members) {
  std::vector<double> samples;
  for (const auto& config : members) {
    RestClient member(config);
    for (int i = 0; i < 5; ++i) {
      const auto start = Clock::now();
      if (member.probe("/readyz") != 200) throw BenchError("a member's /readyz did not answer 200");
      samples.push_back(secondsSince(start) * 1000);
    }
  }
  return percentile(samples, 50);
}

}  // namespace

void scale(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.scaleHpas, memberCount = sizes.scaleMembers;
  const std::string latency = std::to_string(kScaleLatencyMs) + "ms";
  const std::string shape = std::to_string(n) + " x" + std::to_string(memberCount);
  progress("scale: apiserver, " + std::to_string(memberCount) + " member-sims --latency " + latency + ", controller-manager, N=" +
           std::to_string(n));
  TempDir dir("fedhpa-bench-scale");
  Federation f = startFederation(dir, memberCount, {"--hpa-sync-period", "1h", "--latency", latency}, {});
  const double rttMs = memberRoundTripMs(f.members);
  std::this_thread::sleep_for(seconds(2));  // its member informers have listed the (empty) members
  const std::size_t idleRss = residentBytes(f.controller->pid());
  const std::size_t apiserverIdleRss = residentBytes(f.apiserver->pid());

  // Min 1 and max 2 per member: every member holds a copy of every federated HPA.
  MemberMirror mirror(f.members, 2 * memberCount);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("scale", i));
  const double cpuBefore = cpuSeconds(f.controller->pid());
  const auto start = Clock::now();
  const double createSeconds = createHpas(f.federation, names, memberCount, 2 * memberCount, sizes.loadThreads);
  progress("federation create: " + std::to_string(n) + " in " + fixed(createSeconds, 2) + " s");
  mirror.waitUntil([n](const MemberMirror& m) { return m.correct() == static_cast<std::size_t>(n); },
                   start + seconds(120) + milliseconds(40) * n * memberCount,
                   std::to_string(memberCount * n) + " correct local HPAs at scale");
  const double elapsed = std::chrono::duration<double>(mirror.completedAt() - start).count();
  const std::size_t convergedRss = residentBytes(f.controller->pid());
  progress("converged: " + std::to_string(memberCount * n) + " local HPAs in " + fixed(elapsed, 1) + " s; controller-manager " +
           fixed(cpuSeconds(f.controller->pid()) - cpuBefore, 1) + " CPU s, RSS " + fixed(convergedRss / 1048576.0, 1) + " MiB");
  // Settled: the status writes behind the placements done, and what the allocator held for them
  // handed back (jemalloc returns dirty pages after 10 s).
  mirror.waitQuiet(seconds(5), Clock::now() + seconds(120), "the members after convergence");
  std::this_thread::sleep_for(seconds(sizes.smoke ? 1 : 12));
  const std::size_t settledRss = residentBytes(f.controller->pid());
  const std::size_t apiserverRss = residentBytes(f.apiserver->pid());
  const double cached = static_cast<double>(n) * (memberCount + 1);
  const double perObject = (static_cast<double>(settledRss) - static_cast<double>(idleRss)) / cached;
  progress("controller-manager RSS: synced with nothing " + fixed(idleRss / 1048576.0, 1) + " MiB, at convergence " +
           fixed(convergedRss / 1048576.0, 1) + " MiB, settled " + fixed(settledRss / 1048576.0, 1) + " MiB: " +
           fixed(perObject, 0) + " bytes per cached object over " + fixed(cached, 0) + "; apiserver RSS " +
           fixed(apiserverIdleRss / 1048576.0, 1) + " -> " + fixed(apiserverRss / 1048576.0, 1) + " MiB");

  const double bound = static_cast<double>(n) * rttMs / 1000.0 / kScalePerMemberConcurrency;
  rows.push_back({"convergence N=" + shape + " at " + latency,
                  std::to_string(memberCount * n) + " local HPAs in " + fixed(elapsed, 1) + " s (goal ratio <= 2)",
                  "bound " + std::to_string(n) + " x RTT " + fixed(rttMs, 1) + " ms / " + std::to_string(kScalePerMemberConcurrency) +
                      " = " + fixed(bound, 1) + " s",
                  fixed(elapsed / bound, 2)});
  rows.push_back({"controller RSS per cached object, " + shape,
                  fixed(perObject / 1024.0, 2) + " KiB (" + fixed(settledRss / 1048576.0, 1) + " MiB, " + fixed(cached, 0) + " objects)",
                  "goal 4 KiB; synced, 0 HPAs " + fixed(idleRss / 1048576.0, 1) + " MiB", fixed(perObject / kCachedObjectGoalBytes, 2)});
  rows.push_back({"apiserver RSS, " + std::to_string(n) + " HPAs (watch cache), " + shape,
                  fixed(apiserverRss / 1e6, 1) + " MB (" + fixed(apiserverIdleRss / 1e6, 1) + " MB with none)", "goal 300 MB",
                  fixed(apiserverRss / kApiserverGoalBytes, 2)});
}

}  // namespace fedhpa::bench
