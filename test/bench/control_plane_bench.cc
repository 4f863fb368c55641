// The control plane's benchmark: real `fedhpa` processes on loopback, driven
// through fedhpa's own RestClient, every figure shown as a ratio to a reference measured in the
// same run on the same machine. Prints one table on stdout; progress goes to stderr.
//
//   control_plane_bench [--smoke] [--tsv] [--only PHASE[,PHASE...]] [--scale-hpas N] [--scale-members M]
//   phases: convergence reaction apiserver memory latency reaction-latency watchers apiserver-memory scale recovery
//
// Every wait is bounded: a phase that does not finish in time fails with a message and exit 1,
// and every process it started is killed on the way out.
#include <algorithm>
#include <array>
#include <charconv>
#include <ctime>
#include <optional>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clusters/client/rest_client.h"
#include "test/bench/bench_load.h"
#include "test/bench/bench_processes.h"
#include "test/bench/control_plane_phases.h"

namespace fedhpa::bench {

using clusters::ListOptions;
using clusters::RestClient;

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers.

std::string rfc3339Now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// ---------------------------------------------------------------------------------------------
// The table.

// --tsv: the rows alone, tab-separated, for run_bench.py (make bench) to merge into its table.
void printTable(const std::vector<Row>& rows, bool tsv) {
  if (tsv) {
    for (const auto& row : rows) std::cout << row.benchmark << '\t' << row.value << '\t' << row.reference << '\t' << row.ratio << '\n';
    std::cout.flush();
    return;
  }
  std::size_t widths[3] = {9, 5, 20};
  for (const auto& row : rows) {
    widths[0] = std::max(widths[0], row.benchmark.size());
    widths[1] = std::max(widths[1], row.value.size());
    widths[2] = std::max(widths[2], row.reference.size());
  }
  const auto pad = [](const std::string& text, std::size_t width) { return text + std::string(width - text.size() + 3, ' '); };
  std::cout << pad("BENCHMARK", widths[0]) << pad("VALUE", widths[1]) << pad("REFERENCE (same run)", widths[2]) << "RATIO\n";
  for (const auto& row : rows)
    std::cout << pad(row.benchmark, widths[0]) << pad(row.value, widths[1]) << pad(row.reference, widths[2]) << row.ratio << "\n";
  std::cout.flush();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. Convergence: N federated HPAs to 3N correct local HPAs, against the members' raw create rate
// (the controller-manager with its default --workers, apiserver and member-sims as processes).
//
// Timed from the controller-manager's start with the N federated HPAs already stored: the time
// the controller needs to converge them, cache sync and probe round included. Timed from the
// first federated create instead, the figure would be the federation API's create rate for this
// benchmark's clients (a durable write each), which is not the controller's to improve; that
// figure is the second row, against the same creates with no controller running.

namespace {

// Waits until the members hold the N HPAs, checks it with plain lists (not timed), and returns
// the seconds from start until the last one became correct.
double convergedAfter(MemberMirror& mirror, const std::vector<RestConfig>& members, int n, Clock::time_point start,
                      const std::string& what) {
  mirror.waitUntil([n](const MemberMirror& m) { return m.correct() == static_cast<std::size_t>(n); },
                   start + seconds(60) + milliseconds(60) * n, std::to_string(3 * n) + " correct local HPAs " + what);
  for (std::size_t m = 0; m < members.size(); ++m) {
    RestClient member(members[m]);
    ListOptions options;
    options.labelSelector = kManagedSelector;
    const auto items = member.list(kHpas, "default", options).value("items", json::array());
    if (items.size() != static_cast<std::size_t>(n))
      throw BenchError("member" + std::to_string(m + 1) + " lists " + std::to_string(items.size()) + " managed HPAs, want " +
                       std::to_string(n) + " " + what);
  }
  return std::chrono::duration<double>(mirror.completedAt() - start).count();
}

std::string cpuSince(const std::vector<const Process*>& processes, const std::vector<double>& before) {
  std::string cpu;
  for (std::size_t i = 0; i < processes.size(); ++i)
    cpu += (i ? ", " : "") + processes[i]->name() + " " + fixed(cpuSeconds(processes[i]->pid()) - before[i], 2);
  return cpu;
}

// Reconciles per federated HPA and their mean duration, from the controller's /metrics since its start.
std::string reconcileSummary(const std::map<std::string, double>& metrics, int n) {
  const auto value = [&](const std::string& key) {
    const auto it = metrics.find(key);
    return it == metrics.end() ? 0.0 : it->second;
  };
  const double reconciles = value("fedhpa_reconcile_duration_seconds_count");
  return fixed(reconciles, 0) + " reconciles (" + fixed(reconciles / n, 2) + " per federated HPA), mean " +
         fixed(1000 * value("fedhpa_reconcile_duration_seconds_sum") / std::max(reconciles, 1.0), 1) + " ms, " +
         fixed(value("fedhpa_reconcile_errors_total"), 0) + " failed";
}

// Requests served per federated HPA between two scrapes of each server's /metrics, by verb and
// resource ("update horizontalpodautoscalers/status 1.00"): watches, probes and /metrics left out.
std::string requestsPerHpa(const std::vector<std::map<std::pair<std::string, std::string>, long long>>& before,
                           const std::vector<std::string>& urls, const std::vector<std::string>& names, int n) {
  std::string text;
  for (std::size_t s = 0; s < urls.size(); ++s) {
    text += (s ? "; " : "") + names[s] + ":";
    for (const auto& [key, count] : requestCounts(urls[s])) {
      const auto& [verb, resource] = key;
      if (verb == "watch" || resource.empty() || resource[0] == '/') continue;
      const auto it = before[s].find(key);
      const long long delta = count - (it == before[s].end() ? 0 : it->second);
      if (200 * delta >= n) text += " " + verb + " " + resource + " " + fixed(static_cast<double>(delta) / n, 2);  // 0.01 or more
    }
  }
  return text;
}

}  // namespace

void convergence(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.convergenceHpas;
  progress("convergence: apiserver, 3 member-sims, N=" + std::to_string(n) + " federated HPAs, then controller-manager");
  TempDir dir("fedhpa-bench-convergence");
  // The members' simulated HPA controllers sync hourly: while this runs, only the federation
  // controller writes to them.
  Federation f = startFederationWithoutController(dir, kMembers, {"--hpa-sync-period", "1h"});

  // Reference: plain HPAs straight into member1, one after another on one connection; then
  // removed so the two runs see the same member.
  double rawRate = 0;
  {
    RestClient member(f.members[0]);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.push_back(hpaName("raw", i));
    const auto start = Clock::now();
    for (const auto& name : names) member.create(kHpas, "default", hpaObject(name, 1, 10));
    const double elapsed = secondsSince(start);
    rawRate = n / elapsed;
    progress("raw member create: " + std::to_string(n) + " in " + fixed(elapsed, 2) + " s");
    for (const auto& name : names) member.remove(kHpas, "default", name);
  }

  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("conv", i));
  const double createAlone = createHpas(f.federation, names, 1, 10, sizes.loadThreads);
  progress("federation create, no controller running: " + std::to_string(n) + " in " + fixed(createAlone, 2) + " s (" +
           std::to_string(sizes.loadThreads) + " clients)");

  MemberMirror mirror(f.members, 10);
  const Revisions revisionsBefore = revisions(f.federation, f.members);
  std::vector<const Process*> processes = {f.apiserver.get(), f.sims[0].get(), f.sims[1].get(), f.sims[2].get()};
  std::vector<std::string> servers = {f.federationUrl}, serverNames = {"federation"};
  for (std::size_t m = 0; m < f.memberUrls.size(); ++m) {
    servers.push_back(f.memberUrls[m]);
    serverNames.push_back("member" + std::to_string(m + 1));
  }
  std::vector<std::map<std::pair<std::string, std::string>, long long>> requestsBefore;
  for (const auto& url : servers) requestsBefore.push_back(requestCounts(url));
  std::vector<double> cpuBefore;
  for (const auto* process : processes) cpuBefore.push_back(cpuSeconds(process->pid()));
  const auto start = Clock::now();
  startController(f, dir, {"--hpa-scale-forbidden-window", "30s", "--resync-period", "30s"}, false);
  mirror.waitUntil([](const MemberMirror& m) { return m.correct() > 0; }, start + seconds(60), "the first local HPAs");
  progress("the first federated HPA converged " + fixed(secondsSince(start), 2) + " s after the controller-manager's start");
  const double elapsed = convergedAfter(mirror, f.members, n, start, "from the stored federated HPAs");
  processes.push_back(f.controller.get());
  cpuBefore.push_back(0);
  progress("CPU s until converged: " + cpuSince(processes, cpuBefore) + "; " +
           writesPerHpa(revisionsBefore, revisions(f.federation, f.members), n));
  progress("controller-manager: " + reconcileSummary(scrapeMetrics(f.controllerUrl), n));
  progress("requests per federated HPA until converged: " + requestsPerHpa(requestsBefore, servers, serverNames, n));
  const double rate = 3.0 * n / elapsed;
  progress("converged: " + std::to_string(3 * n) + " local HPAs in " + fixed(elapsed, 2) + " s from the controller-manager's start");
  rows.push_back({"convergence N=" + std::to_string(n) + " x3 (stored, started)",
                  std::to_string(3 * n) + " local HPAs in " + fixed(elapsed, 2) + " s (" + fixed(rate, 0) + "/s)",
                  "raw member create " + fixed(rawRate, 0) + "/s", fixed(rate / rawRate, 2)});

  // The same while the federated HPAs are being created, the controller running.
  std::vector<std::string> more;
  for (int i = 0; i < n; ++i) more.push_back(hpaName("live", i));
  MemberMirror liveMirror(f.members, 10);
  for (std::size_t i = 0; i < processes.size(); ++i) cpuBefore[i] = cpuSeconds(processes[i]->pid());
  const auto liveStart = Clock::now();
  const double createLive = createHpas(f.federation, more, 1, 10, sizes.loadThreads);
  const double live = convergedAfter(liveMirror, f.members, 2 * n, liveStart, "as they are created");
  progress("as created: " + std::to_string(3 * n) + " more local HPAs in " + fixed(live, 2) + " s, " + fixed(live - createLive, 2) +
           " s after the last federated create returned (the creates took " + fixed(createLive, 2) + " s); CPU s: " +
           cpuSince(processes, cpuBefore));
  rows.push_back({"convergence N=" + std::to_string(n) + " x3 as created",
                  std::to_string(3 * n) + " local HPAs in " + fixed(live, 2) + " s from the first create",
                  "creates alone " + fixed(createAlone, 2) + " s", fixed(live / createAlone, 2)});
}

// ---------------------------------------------------------------------------------------------
// 2. Reaction: a member's HPA turns saturated -> its max is raised.

namespace {

json cpuMetric(int utilization) {
  return json::array({{{"type", "Resource"}, {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", utilization}}}}}}});
}

json saturatedStatus(int replicas) {
  const std::string now = rfc3339Now();
  return {{"status",
           {{"currentReplicas", replicas},
            {"desiredReplicas", replicas},
            {"currentMetrics", cpuMetric(100)},
            {"conditions", json::array({{{"type", "AbleToScale"}, {"status", "True"}, {"reason", "ReadyForNewScale"}, {"lastTransitionTime", now}},
                                        {{"type", "ScalingActive"}, {"status", "True"}, {"reason", "ValidMetricFound"}, {"lastTransitionTime", now}},
                                        {{"type", "ScalingLimited"}, {"status", "True"}, {"reason", "TooManyReplicas"},
                                         {"message", "the desired replica count is more than the maximum replica count"},
                                         {"lastTransitionTime", now}}})}}}};
}

json idleStatus() {
  const std::string now = rfc3339Now();
  return {{"status",
           {{"currentReplicas", 1},
            {"desiredReplicas", 1},
            {"currentMetrics", cpuMetric(10)},
            {"conditions", json::array({{{"type", "AbleToScale"}, {"status", "True"}, {"reason", "ReadyForNewScale"}, {"lastTransitionTime", now}},
                                        {{"type", "ScalingActive"}, {"status", "True"}, {"reason", "ValidMetricFound"}, {"lastTransitionTime", now}},
                                        {{"type", "ScalingLimited"}, {"status", "False"}, {"reason", "DesiredWithinRange"},
                                         {"lastTransitionTime", now}}})}}}};
}

}  // namespace

Trials reactionTrials(MemberMirror& mirror, const std::vector<RestConfig>& configs, const std::string& name, int count,
                      milliseconds timeout, milliseconds quiet) {
  std::vector<std::unique_ptr<RestClient>> members;
  for (const auto& config : configs) members.push_back(std::make_unique<RestClient>(config));
  const int size = static_cast<int>(members.size());
  std::vector<double> latencies, writeRtts, sinceStored, toLowered;
  int last = size - 1;
  for (int trial = 0; trial < count; ++trial) {
    // The member with the least max saturates (the others then always have max to give).
    const auto before = *mirror.snapshot(name);
    int k = -1;
    for (int step = 1; step <= size; ++step) {
      const int candidate = (last + step) % size;
      if (k < 0 || before.max[candidate] < before.max[k]) k = candidate;
    }
    last = k;
    const int max = before.max[k];
    const auto start = Clock::now();
    members[k]->mergePatch(kHpas, "default", name, saturatedStatus(max), "status");
    const auto stored = Clock::now();
    writeRtts.push_back(std::chrono::duration<double, std::milli>(stored - start).count());
    Clock::time_point raisedAt;
    mirror.waitUntil(
        [&](const MemberMirror& m) {
          const auto e = m.entry(name);
          raisedAt = e->changedAt[k];
          return e->max[k] > max;
        },
        start + timeout,
        "trial " + std::to_string(trial) + ": member" + std::to_string(k + 1) + " saturated at max " + std::to_string(max) +
            " gets more");
    latencies.push_back(std::chrono::duration<double, std::milli>(raisedAt - start).count());
    sinceStored.push_back(std::chrono::duration<double, std::milli>(raisedAt - stored).count());
    // The first half of the reaction: until the first lowering the raise waited for.
    const auto after = *mirror.snapshot(name);
    std::optional<Clock::time_point> loweredAt;
    for (int m = 0; m < size; ++m)
      if (after.max[m] < before.max[m] && (!loweredAt || after.changedAt[m] < *loweredAt)) loweredAt = after.changedAt[m];
    if (loweredAt) toLowered.push_back(std::chrono::duration<double, std::milli>(*loweredAt - stored).count());
    const auto reset = Clock::now();
    members[k]->mergePatch(kHpas, "default", name, idleStatus(), "status");
    writeRtts.push_back(secondsSince(reset) * 1000);
    mirror.waitQuiet(quiet, Clock::now() + seconds(10), "trial " + std::to_string(trial) + " settling");
  }
  return {latencies, writeRtts, sinceStored, toLowered};
}

void waitInitialSpread(MemberMirror& mirror, const std::string& name, int members, milliseconds quiet, seconds quietWithin) {
  mirror.waitUntil(
      [&](const MemberMirror& m) {
        const auto e = m.entry(name);
        return e && e->max == std::vector<int>(members, 3);
      },
      Clock::now() + seconds(30), "the initial spread {1,3} x " + std::to_string(members));
  mirror.waitQuiet(quiet, Clock::now() + quietWithin, "after the initial spread");
}

void reaction(const Sizes& sizes, std::vector<Row>& rows) {
  progress("reaction: fedhpa up, " + std::to_string(sizes.reactionTrials) + " trials");
  TempDir dir("fedhpa-bench-reaction");
  Up up = startUp(dir, "up-reaction", {"--hpa-sync-period", "1h", "--hpa-scale-forbidden-window", "0"});
  MemberMirror mirror(up.members, 9);
  const std::string name = "reaction";
  RestClient(up.federation).create(kHpas, "default", hpaObject(name, 3, 9));
  waitInitialSpread(mirror, name, kMembers, milliseconds(200), seconds(10));

  const Trials measured = reactionTrials(mirror, up.members, name, sizes.reactionTrials, seconds(10));
  const auto& latencies = measured.latencies;
  const auto& writeRtts = measured.writeRtts;
  const double p50 = percentile(latencies, 50), p99 = percentile(latencies, 99), rtt = percentile(writeRtts, 50);
  progress("reaction: p50 " + fixed(p50, 1) + " ms, p99 " + fixed(p99, 1) + " ms, max " + fixed(percentile(latencies, 100), 1) +
           " ms; status write p50 " + fixed(rtt, 2) + " ms");
  const std::string trials = std::to_string(sizes.reactionTrials) + " trials";
  rows.push_back({"reaction p50 (" + trials + ")", fixed(p50, 1) + " ms saturated -> max raised",
                  "status write RTT p50 " + fixed(rtt, 2) + " ms", fixed(p50 / rtt, 1)});
  rows.push_back({"reaction p99 (" + trials + ")", fixed(p99, 1) + " ms (goal <= 50 ms)",
                  "status write RTT p50 " + fixed(rtt, 2) + " ms", fixed(p99 / rtt, 1)});
}

// ---------------------------------------------------------------------------------------------
// 4. Memory: the controller-manager's RSS, its own process, at N federated HPAs x 3 members.

void memory(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.memoryHpas;
  progress("memory: apiserver, 3 member-sims, controller-manager, N=" + std::to_string(n));
  TempDir dir("fedhpa-bench-memory");
  std::unique_ptr<Process> apiserver;
  std::array<std::unique_ptr<Process>, kMembers> sims;
  const std::string federationUrl = startServing(
      apiserver, "apiserver", {FEDHPA_BINARY, "apiserver", "--listen", "127.0.0.1:0", "--data-dir", (dir.path() / "data").string()}, dir);
  std::vector<std::pair<std::string, std::string>> servers = {{"federation-cluster", federationUrl}};
  std::vector<RestConfig> members;
  for (int m = 1; m <= kMembers; ++m) {
    const std::string name = "member" + std::to_string(m);
    servers.push_back({name, startServing(sims[m - 1], name,
                                          {FEDHPA_BINARY, "member-sim", "--listen", "127.0.0.1:0", "--name", name, "--hpa-sync-period", "1h"},
                                          dir)});
    members.push_back(serverConfig(servers.back().second));
  }
  const auto kubeconfig = dir.path() / "kubeconfig";
  writeKubeconfig(kubeconfig, servers);
  for (int m = 1; m <= kMembers; ++m) {
    const std::string name = "member" + std::to_string(m);
    Process join("join-" + name, {FEDHPA_BINARY, "join", name, "--cluster-context", name, "--kubeconfig", kubeconfig.string()}, dir.path());
    if (const int status = join.waitExit(seconds(30)); status != 0)
      throw BenchError("fedhpa join " + name + " exited " + std::to_string(status) + ": " + join.stderrTail());
  }
  Process controller("controller-manager",
                     {FEDHPA_BINARY, "controller-manager", "--kubeconfig", kubeconfig.string(), "--context", "federation-cluster",
                      "--address", "127.0.0.1:0", "--leader-elect=false", "--cluster-probe-period", "1s", "--workers", std::to_string(kControllerWorkers)},
                     dir.path());
  const RestConfig federation = serverConfig(federationUrl);
  waitClustersReady(federation, kMembers, seconds(30));
  std::this_thread::sleep_for(seconds(1));  // its informers have listed the (empty) members
  const std::size_t idleRss = residentBytes(controller.pid());

  MemberMirror mirror(members, 10);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("mem", i));
  const Revisions revisionsBefore = revisions(federation, members);
  std::vector<const Process*> processes = {apiserver.get(), sims[0].get(), sims[1].get(), sims[2].get(), &controller};
  std::vector<double> cpuBefore;
  for (const auto* process : processes) cpuBefore.push_back(cpuSeconds(process->pid()));
  const auto start = Clock::now();
  const double createSeconds = createHpas(federation, names, 1, 10, sizes.loadThreads);
  progress("federation create: " + std::to_string(n) + " in " + fixed(createSeconds, 2) + " s");
  mirror.waitUntil([n](const MemberMirror& m) { return m.correct() == static_cast<std::size_t>(n); },
                   start + seconds(60) + milliseconds(60) * n, std::to_string(3 * n) + " local HPAs for the memory run");
  const double elapsed = std::chrono::duration<double>(mirror.completedAt() - start).count();
  const std::size_t loadedRss = residentBytes(controller.pid());
  std::string cpu = "CPU s until converged:";
  for (std::size_t i = 0; i < processes.size(); ++i)
    cpu += " " + processes[i]->name() + " " + fixed(cpuSeconds(processes[i]->pid()) - cpuBefore[i], 1);
  progress(cpu + "; " + writesPerHpa(revisionsBefore, revisions(federation, members), n));
  progress("memory: converged in " + fixed(elapsed, 1) + " s (" + fixed(3.0 * n / elapsed, 0) + " local HPAs/s); RSS " +
           std::to_string(idleRss) + " -> " + std::to_string(loadedRss) + " bytes");
  const double mib = 1024.0 * 1024.0;
  const double perHpa = (static_cast<double>(loadedRss) - static_cast<double>(idleRss)) / n;
  rows.push_back({"controller RSS, " + std::to_string(n) + " HPAs x 3",
                  fixed(loadedRss / mib, 1) + " MiB (+" + fixed(perHpa / 1024.0, 2) + " KiB per federated HPA)",
                  "RSS synced, 0 HPAs " + fixed(idleRss / mib, 1) + " MiB", fixed(static_cast<double>(loadedRss) / idleRss, 2)});
}

namespace {

// A count flag's value; 0 (refused by the caller) when it is not a positive number.
int positive(const std::string& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value > 0 ? value : 0;
}

int run(int argc, char** argv) {
  Sizes sizes;
  std::string only;
  bool tsv = false;
  std::optional<int> scaleHpas, scaleMembers;  // after --smoke, whichever order they came in
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      sizes = Sizes{true, 10, 5, 20, 5, 20, 50, 4, milliseconds(300), 10, 3, milliseconds(1000), 3, 30, 10, 3, 5, 3, milliseconds(3000)};
    } else if (arg == "--tsv") {
      tsv = true;
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (arg == "--scale-hpas" && i + 1 < argc) {
      scaleHpas = positive(argv[++i]);
    } else if (arg == "--scale-members" && i + 1 < argc) {
      scaleMembers = positive(argv[++i]);
    } else {
      std::cerr << "usage: control_plane_bench [--smoke] [--tsv] [--only PHASE[,PHASE...]] [--scale-hpas N] [--scale-members M] "
                   "(phases: convergence reaction apiserver memory latency reaction-latency watchers apiserver-memory scale recovery)\n";
      return 2;
    }
  }
  const std::vector<std::pair<std::string, std::function<void(const Sizes&, std::vector<Row>&)>>> phases = {
      {"convergence", convergence}, {"reaction", reaction}, {"apiserver", apiserverBench}, {"memory", memory},
      {"latency", latencyConvergence}, {"reaction-latency", reactionLatency}, {"watchers", watchersBench},
      {"apiserver-memory", apiserverMemory}, {"scale", scale}, {"recovery", recovery}};
  if (scaleHpas) sizes.scaleHpas = *scaleHpas;
  if (scaleMembers) sizes.scaleMembers = *scaleMembers;
  if (sizes.scaleHpas < 1 || sizes.scaleMembers < 1) {
    std::cerr << "control_plane_bench: --scale-hpas and --scale-members take a positive count\n";
    return 2;
  }
  std::vector<Row> rows;
  const auto start = Clock::now();
  try {
    for (const auto& [name, phase] : phases)
      if (only.empty() || ("," + only + ",").find("," + name + ",") != std::string::npos) phase(sizes, rows);
  } catch (const std::exception& error) {
    std::cerr << "control_plane_bench: FAILED: " << error.what() << std::endl;
    if (!rows.empty()) printTable(rows, tsv);
    return 1;
  }
  printTable(rows, tsv);
  progress("done in " + fixed(secondsSince(start), 1) + " s");
  return 0;
}

}  // namespace
}  // namespace fedhpa::bench

int main(int argc, char** argv) {
  fedhpa::bench::installSignalCleanup();  // blocks SIGINT/SIGTERM before any thread starts
  fedhpa::clusters::initializeHttpClientPool(4);
  return fedhpa::bench::run(argc, argv);
}
