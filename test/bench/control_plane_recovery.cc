#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <cpprest/http_client.h>

#include "clusters/client/rest_client.h"
#include "test/bench/bench_load.h"
#include "test/bench/bench_processes.h"
#include "test/bench/control_plane_phases.h"

namespace fedhpa::bench {

using clusters::RestClient;

// ---------------------------------------------------------------------------------------------
// 6. Recovery (issue 31): 10 member-sims at --latency 200ms, the controller-manager's default
// resync (30 s) and a probe every second. Reaction trials on one federated HPA among idle ones,
// then one member's outage (a freeze: nothing answered, connections held), federated HPAs created
// while it lasts, and how long the member takes, once it answers again, to hold them.

namespace {

constexpr int kRecoveryMembers = 10;
constexpr int kRecoveryLatencyMs = 200;
// The probe period startController gives the controller-manager (--cluster-probe-period 1s).
constexpr int kProbePeriodMs = 1000;

std::string recoveryLatencyFlag() { return std::to_string(kRecoveryLatencyMs) + "ms"; }

// POST /debug/freeze or /debug/unfreeze to a member-sim (network_faults.h): never delayed nor held.
void postDebug(const std::string& memberUrl, const std::string& path) {
  web::http::client::http_client client(memberUrl);
  const auto response = client.request(web::http::methods::POST, path).get();
  if (response.status_code() != 200) throw BenchError(memberUrl + path + ": HTTP " + std::to_string(response.status_code()));
}

// The Cluster's Ready condition status ("True", "False"), "" when it has none yet.
std::string readyStatus(RestClient& federation, const std::string& cluster) {
  const json object = federation.get(kClusters, "", cluster);
  for (const auto& condition : object.value("status", json::object()).value("conditions", json::array()))
    if (condition.value("type", "") == "Ready") return condition.value("status", "");
  return "";
}

void waitReadyStatus(RestClient& federation, const std::string& cluster, const std::string& status, Clock::time_point deadline) {
  while (readyStatus(federation, cluster) != status) {
    if (Clock::now() >= deadline) throw BenchError("cluster " + cluster + " did not turn Ready=" + status + " in time");
    std::this_thread::sleep_for(milliseconds(50));
  }
}

}  // namespace

void recovery(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.recoveryHpas, members = kRecoveryMembers;
  progress("recovery: apiserver, " + std::to_string(members) + " member-sims --latency " + recoveryLatencyFlag() +
           ", controller-manager, " + std::to_string(n) + " idle federated HPAs");
  TempDir dir("fedhpa-bench-recovery");
  Federation f = startFederation(dir, members, {"--hpa-sync-period", "1h", "--latency", recoveryLatencyFlag()},
                                 {"--hpa-scale-forbidden-window", "0"});
  // Federated max 3 per member, min 1 per member: every member starts at {1,3}.
  MemberMirror mirror(f.members, 3 * members);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("idle", i));
  const auto start = Clock::now();
  createHpas(f.federation, names, members, 3 * members, sizes.loadThreads);
  const std::string name = "reaction";
  RestClient federation(f.federation);
  federation.create(kHpas, "default", hpaObject(name, members, 3 * members));
  mirror.waitUntil([n](const MemberMirror& m) { return m.correct() == static_cast<std::size_t>(n) + 1; },
                   start + seconds(60) + milliseconds(200) * n,
                   std::to_string(members * (n + 1)) + " local HPAs at " + recoveryLatencyFlag());
  progress("converged in " + fixed(secondsSince(start), 2) + " s");
  waitInitialSpread(mirror, name, members, milliseconds(1000), seconds(30));

  // Reaction: from the saturated status stored until the raise shows; the goal is the two round
  // trips of decreases-first (lower another member, then raise this one) plus 50 ms.
  // Each trial begins once no member HPA has changed for two round trips: a phase of the last
  // trial's writes takes one, with nothing to see meanwhile.
  const Trials trials =
      reactionTrials(mirror, f.members, name, sizes.recoveryReactionTrials, seconds(10), milliseconds(2 * kRecoveryLatencyMs));
  const double p50 = percentile(trials.sinceStored, 50), p99 = percentile(trials.sinceStored, 99);
  const double goal = 2.0 * kRecoveryLatencyMs + 50;
  std::vector<double> sorted = trials.sinceStored;
  std::sort(sorted.rbegin(), sorted.rend());
  std::string slowest;
  for (std::size_t i = 0; i < std::min<std::size_t>(5, sorted.size()); ++i) slowest += " " + fixed(sorted[i], 1);
  const auto over = std::count_if(sorted.begin(), sorted.end(), [goal](double ms) { return ms > goal; });
  const auto p50p99 = [](const std::vector<double>& ms) {
    return ms.empty() ? std::string("none") : "p50 " + fixed(percentile(ms, 50), 1) + " ms, p99 " + fixed(percentile(ms, 99), 1) + " ms";
  };
  progress("reaction at " + recoveryLatencyFlag() + " x" + std::to_string(members) + " from the status stored: p50 " + fixed(p50, 1) +
           " ms, p99 " + fixed(p99, 1) + " ms, slowest" + slowest + " ms, " + std::to_string(over) + " of " +
           std::to_string(sorted.size()) + " over " + fixed(goal, 0) + " ms; until another member lowered: " + p50p99(trials.toLowered) +
           "; status write p50 " +
           fixed(percentile(trials.writeRtts, 50), 1) + " ms");
  const std::string label = "reaction at " + recoveryLatencyFlag() + " x" + std::to_string(members) + " (" +
                            std::to_string(sizes.recoveryReactionTrials) + " trials, " + std::to_string(n) + " idle)";
  const std::string goalText = "goal 2 x " + recoveryLatencyFlag() + " + 50 ms = " + fixed(goal, 0) + " ms";
  rows.push_back({label + " p50", fixed(p50, 1) + " ms status stored -> max raised", goalText, fixed(p50 / goal, 2)});
  rows.push_back({label + " p99", fixed(p99, 1) + " ms status stored -> max raised", goalText, fixed(p99 / goal, 2)});

  // The outage: the last member freezes. One federated HPA is created at once, while the controller
  // still counts the member Ready (its create is held, and times out), another once the member is
  // marked not Ready; the other members get both. When the outage ends, timed from the unfreeze
  // until the member holds its copies of both.
  const int k = members - 1;
  const std::string member = "member" + std::to_string(k + 1);
  const std::vector<std::string> created = {"outage-early", "outage-late"};
  const auto outageStart = Clock::now();
  postDebug(f.memberUrls[k], "/debug/freeze");
  federation.create(kHpas, "default", hpaObject(created[0], members, 3 * members));
  waitReadyStatus(federation, member, "False", outageStart + sizes.outage + seconds(60));
  const double noticed = secondsSince(outageStart);
  federation.create(kHpas, "default", hpaObject(created[1], members, 3 * members));
  const auto heldBy = [&](const MemberMirror& m, const std::string& hpa, int i) {
    const auto e = m.entry(hpa);
    return e && e->max[i] > 0;
  };
  mirror.waitUntil(
      [&](const MemberMirror& m) {
        for (const auto& hpa : created)
          for (int i = 0; i < members; ++i)
            if (i != k && !heldBy(m, hpa, i)) return false;
        return true;
      },
      Clock::now() + seconds(30), "the HPAs created during the outage on the " + std::to_string(members - 1) + " members answering");
  std::this_thread::sleep_for(std::max<Clock::duration>(Clock::duration::zero(), outageStart + sizes.outage - Clock::now()));
  const auto restored = Clock::now();
  postDebug(f.memberUrls[k], "/debug/unfreeze");
  mirror.waitUntil([&](const MemberMirror& m) { return heldBy(m, created[0], k) && heldBy(m, created[1], k); },
                   restored + seconds(120), member + " holds the HPAs created during its outage");
  std::vector<double> backs;
  for (const auto& hpa : created) backs.push_back(std::chrono::duration<double>(mirror.snapshot(hpa)->changedAt[k] - restored).count());
  const double back = *std::max_element(backs.begin(), backs.end());
  waitReadyStatus(federation, member, "True", Clock::now() + seconds(30));
  const double reference = (kProbePeriodMs + 5.0 * kRecoveryLatencyMs) / 1000.0;
  // As long as asked, or longer when the controller took longer to mark the member not Ready.
  const std::string outage = fixed(std::chrono::duration<double>(restored - outageStart).count(), 0) + " s";
  progress(member + " frozen for " + outage + " (not Ready after " + fixed(noticed, 1) + " s); holds the HPA created before that " +
           fixed(backs[0], 2) + " s and the one created after " + fixed(backs[1], 2) + " s after it answers again");
  rows.push_back({"restored member at " + recoveryLatencyFlag() + " x" + std::to_string(members) + " (" + outage + " outage)",
                  fixed(back, 2) + " s unfrozen -> its HPAs written",
                  "probe period 1 s + 5 x " + recoveryLatencyFlag() + " = " + fixed(reference, 2) + " s", fixed(back / reference, 2)});
}

}  // namespace fedhpa::bench
