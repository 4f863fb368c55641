#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clusters/client/rest_client.h"
#include "test/bench/bench_load.h"
#include "test/bench/bench_processes.h"
#include "test/bench/control_plane_phases.h"

namespace fedhpa::bench {

using clusters::RestClient;

// ---------------------------------------------------------------------------------------------
// 5. At member latency (issue 10): separate processes, every member-sim with --latency 50ms.

namespace {

// How many writes MemberCalls lets be in flight to one member (MemberCallOptions::perMember).
constexpr int kPerMemberConcurrency = 8;
constexpr int kLatencyMs = 50;

std::string latencyFlag() { return std::to_string(kLatencyMs) + "ms"; }

}  // namespace

// Convergence of N federated HPAs (max 10) over 10 members: 10N local HPAs, against the bound
// of writes in parallel (N writes per member × latency / per-member concurrency) and against the
// raw create rate of one such member with as many parallel clients.
void latencyConvergence(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.latencyHpas, memberCount = 10;
  progress("latency: apiserver, " + std::to_string(memberCount) + " member-sims --latency " + latencyFlag() +
           ", controller-manager, N=" + std::to_string(n));
  TempDir dir("fedhpa-bench-latency");
  Federation f = startFederation(dir, memberCount, {"--hpa-sync-period", "1h", "--latency", latencyFlag()}, {});

  // Reference: unmanaged HPAs into member1 from kPerMemberConcurrency clients in parallel. They stay
  // (outside the managed-by selector, nothing of the federation sees them).
  std::vector<std::string> rawNames;
  for (int i = 0; i < n; ++i) rawNames.push_back(hpaName("raw", i));
  const double rawSeconds = createHpas(f.members[0], rawNames, 1, 10, kPerMemberConcurrency);
  const double rawRate = n / rawSeconds;
  progress("raw member create at " + latencyFlag() + ": " + std::to_string(n) + " in " + fixed(rawSeconds, 2) + " s (" +
           std::to_string(kPerMemberConcurrency) + " clients)");

  MemberMirror mirror(f.members, 10);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("lat", i));
  const Revisions revisionsBefore = revisions(f.federation, f.members);
  const double cpuBefore = cpuSeconds(f.controller->pid());
  const auto metricsBefore = scrapeMetrics(f.controllerUrl);
  const auto start = Clock::now();
  const double createSeconds = createHpas(f.federation, names, 1, 10, sizes.loadThreads);
  progress("federation create: " + std::to_string(n) + " in " + fixed(createSeconds, 2) + " s");
  mirror.waitUntil([n](const MemberMirror& m) { return m.correct() == static_cast<std::size_t>(n); },
                   start + seconds(60) + milliseconds(200) * n, std::to_string(memberCount * n) + " correct local HPAs at " + latencyFlag());
  const double elapsed = std::chrono::duration<double>(mirror.completedAt() - start).count();
  const auto metricsAfter = scrapeMetrics(f.controllerUrl);
  const auto delta = [&](const std::string& key) {
    const auto before = metricsBefore.find(key);
    const auto after = metricsAfter.find(key);
    return (after == metricsAfter.end() ? 0.0 : after->second) - (before == metricsBefore.end() ? 0.0 : before->second);
  };
  const double reconciles = delta("fedhpa_reconcile_duration_seconds_count");
  progress("controller-manager: " + fixed(reconciles, 0) + " reconciles (" + fixed(reconciles / n, 2) +
           " per federated HPA), mean " + fixed(1000 * delta("fedhpa_reconcile_duration_seconds_sum") / std::max(reconciles, 1.0), 1) +
           " ms, " + fixed(delta("fedhpa_reconcile_errors_total"), 0) + " failed; reconcile-seconds / " +
           std::to_string(kControllerWorkers) + " workers = " +
           fixed(delta("fedhpa_reconcile_duration_seconds_sum") / kControllerWorkers, 2) + " s");
  const Revisions revisionsAfter = revisions(f.federation, f.members);
  long long maxWrites = 0;
  for (int m = 0; m < memberCount; ++m) maxWrites = std::max(maxWrites, revisionsAfter.members[m] - revisionsBefore.members[m]);
  progress("controller-manager used " + fixed(cpuSeconds(f.controller->pid()) - cpuBefore, 2) + " CPU s; " +
           writesPerHpa(revisionsBefore, revisionsAfter, n));
  // The bound: every member needs one create per federated HPA, kPerMemberConcurrency at a time.
  const double bound = static_cast<double>(n) * kLatencyMs / 1000.0 / kPerMemberConcurrency;
  const double perMemberRate = n / elapsed;
  progress("converged at " + latencyFlag() + ": " + std::to_string(memberCount * n) + " local HPAs in " + fixed(elapsed, 2) +
           " s (" + fixed(elapsed - createSeconds, 2) + " s after the last federated create returned); bound " + fixed(bound, 2) +
           " s; most writes to one member " + std::to_string(maxWrites));
  const std::string label = "convergence N=" + std::to_string(n) + " x10 at " + latencyFlag();
  rows.push_back({label, std::to_string(memberCount * n) + " local HPAs in " + fixed(elapsed, 2) + " s (goal ratio <= 2)",
                  "bound " + std::to_string(n) + " x " + latencyFlag() + " / " + std::to_string(kPerMemberConcurrency) + " = " +
                      fixed(bound, 2) + " s",
                  fixed(elapsed / bound, 2)});
  rows.push_back({label + ", per member", fixed(perMemberRate, 0) + " HPAs/s into each member",
                  "raw create, 1 member, " + std::to_string(kPerMemberConcurrency) + " clients " + fixed(rawRate, 0) + "/s",
                  fixed(perMemberRate / rawRate, 2)});
}

namespace {

// Requests per second each member served over the idle window, beyond watches (long-running,
// verb watch), the prober (/readyz, /healthz) and this benchmark's /metrics scrapes.
struct IdleRates {
  std::vector<double> other;     // per member
  std::vector<double> expected;  // watches + probes, per member
  std::vector<std::string> otherKinds;
};

IdleRates idleRequestRates(const std::vector<std::string>& urls, milliseconds window) {
  std::vector<std::map<std::pair<std::string, std::string>, long long>> before;
  for (const auto& url : urls) before.push_back(requestCounts(url));
  const auto start = Clock::now();
  std::this_thread::sleep_for(window);
  std::vector<std::map<std::pair<std::string, std::string>, long long>> after;
  for (const auto& url : urls) after.push_back(requestCounts(url));
  const double seconds = secondsSince(start);
  IdleRates rates;
  for (std::size_t m = 0; m < urls.size(); ++m) {
    long long other = 0, expected = 0;
    std::string kinds;
    for (const auto& [key, count] : after[m]) {
      const auto it = before[m].find(key);
      const long long delta = count - (it == before[m].end() ? 0 : it->second);
      if (delta == 0) continue;
      const auto& [verb, resource] = key;
      if (resource == "/metrics") continue;
      if (verb == "watch" || resource == "/readyz" || resource == "/healthz") {
        expected += delta;
      } else {
        other += delta;
        kinds += " " + verb + " " + resource + " x" + std::to_string(delta);
      }
    }
    rates.other.push_back(static_cast<double>(other) / seconds);
    rates.expected.push_back(static_cast<double>(expected) / seconds);
    rates.otherKinds.push_back(kinds);
  }
  return rates;
}

}  // namespace

// 3 members at --latency 50ms holding N idle federated HPAs (resync every 5 s, so the idle
// window sees resyncs): first the requests each member serves while nothing changes, then the
// reaction trials of phase 2 on one more HPA among them.
void reactionLatency(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.latencyHpas;
  progress("reaction-latency: apiserver, 3 member-sims --latency " + latencyFlag() + ", controller-manager, " + std::to_string(n) +
           " idle federated HPAs, " + std::to_string(sizes.latencyReactionTrials) + " trials");
  TempDir dir("fedhpa-bench-reaction-latency");
  Federation f = startFederation(dir, 3, {"--hpa-sync-period", "1h", "--latency", latencyFlag()},
                                 {"--hpa-scale-forbidden-window", "0", "--resync-period", "5s"});
  MemberMirror mirror(f.members, 9);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("idle", i));
  const auto start = Clock::now();
  createHpas(f.federation, names, 1, 9, sizes.loadThreads);
  const std::string name = "reaction";
  RestClient(f.federation).create(kHpas, "default", hpaObject(name, 3, 9));
  mirror.waitUntil([n](const MemberMirror& m) { return m.correct() == static_cast<std::size_t>(n) + 1; },
                   start + seconds(60) + milliseconds(100) * n, std::to_string(3 * (n + 1)) + " local HPAs at " + latencyFlag());
  progress("converged in " + fixed(secondsSince(start), 2) + " s");
  waitInitialSpread(mirror, name, kMembers, milliseconds(1000), seconds(30));

  // Idle: nothing changes anywhere; requests beyond watches and probes should be none.
  const IdleRates idle = idleRequestRates(f.memberUrls, sizes.idleWindow);
  double worst = 0, expected = 0;
  std::string each;
  for (std::size_t m = 0; m < idle.other.size(); ++m) {
    worst = std::max(worst, idle.other[m]);
    expected += idle.expected[m] / static_cast<double>(idle.other.size());
    each += (m ? ", " : "") + fixed(idle.other[m], 2);
    progress("idle member" + std::to_string(m + 1) + ": " + fixed(idle.other[m], 2) + " req/s beyond watches and probes," +
             (idle.otherKinds[m].empty() ? std::string(" none") : idle.otherKinds[m]) + "; watches+probes " +
             fixed(idle.expected[m], 2) + " req/s");
  }
  const std::string window = fixed(std::chrono::duration<double>(sizes.idleWindow).count(), 0) + " s";
  rows.push_back({"idle requests per member, " + std::to_string(n) + " HPAs", each + " req/s (goal 0; " + window + ", resync 5s)",
                  "watches+probes " + fixed(expected, 2) + " req/s per member", fixed(worst / std::max(expected, 1e-9), 2)});

  // Timed from the status write's response, when the member has stored it: the goal
  // counts the controller's two round trips (the decreases-first rule lowers another member and
  // waits for that before it raises) plus 50 ms. From before the write adds one more latency.
  const Trials trials = reactionTrials(mirror, f.members, name, sizes.latencyReactionTrials, seconds(10));
  const double p50 = percentile(trials.sinceStored, 50), p99 = percentile(trials.sinceStored, 99);
  const double rtt = percentile(trials.writeRtts, 50), goal = 2.0 * kLatencyMs + 50;
  std::vector<double> sorted = trials.sinceStored;
  std::sort(sorted.rbegin(), sorted.rend());
  std::string slowest;
  for (std::size_t i = 0; i < std::min<std::size_t>(5, sorted.size()); ++i) slowest += " " + fixed(sorted[i], 1);
  const auto over = std::count_if(sorted.begin(), sorted.end(), [goal](double ms) { return ms > goal; });
  progress("reaction at " + latencyFlag() + " from the status stored: p50 " + fixed(p50, 1) + " ms, p99 " + fixed(p99, 1) +
           " ms, slowest" + slowest + " ms, " + std::to_string(over) + " of " + std::to_string(sorted.size()) + " over " +
           fixed(goal, 0) + " ms; from before the status write: p50 " + fixed(percentile(trials.latencies, 50), 1) + " ms, p99 " +
           fixed(percentile(trials.latencies, 99), 1) + " ms; status write p50 " + fixed(rtt, 2) + " ms");
  rows.push_back({"reaction p99 at " + latencyFlag() + " (" + std::to_string(sizes.latencyReactionTrials) + " trials, " +
                      std::to_string(n) + " idle)",
                  fixed(p99, 1) + " ms status stored -> max raised (p50 " + fixed(p50, 1) + ")",
                  "goal 2 x " + latencyFlag() + " + 50 ms = " + fixed(goal, 0) + " ms", fixed(p99 / goal, 2)});
}

}  // namespace fedhpa::bench
