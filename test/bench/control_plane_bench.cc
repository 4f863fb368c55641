// The control plane's benchmark: real `fedhpa` processes on loopback, driven
// through fedhpa's own RestClient, every figure shown as a ratio to a reference measured in the
// same run on the same machine. Prints one table on stdout; progress goes to stderr.
//
//   control_plane_bench [--smoke] [--tsv] [--only PHASE[,PHASE...]]
//   phases: convergence reaction apiserver memory latency reaction-latency
//
// Every wait is bounded: a phase that does not finish in time fails with a message and exit 1,
// and every process it started is killed on the way out.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <ctime>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "clusters/client/rest_client.h"
#include "test/bench/bench_processes.h"

namespace fedhpa::bench {
namespace {

using clusters::json;
using clusters::ListOptions;
using clusters::RestClient;
using clusters::RestConfig;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct Sizes {
  bool smoke = false;
  int convergenceHpas = 1000;
  int reactionTrials = 200;
  int listHpas = 1000;
  int watchers = 100;
  int watchUpdates = 1000;
  int memoryHpas = 10000;
  int loadThreads = 4;
  milliseconds rateDuration{2000};
  // The phases at member latency (issue 10).
  int latencyHpas = 1000;       // federated HPAs over 10 members, and idle behind the reaction trials
  int latencyReactionTrials = 50;
  milliseconds idleWindow{10000};
};

// How many writes MemberCalls lets be in flight to one member (MemberCallOptions::perMember).
constexpr int kPerMemberConcurrency = 8;
constexpr int kControllerWorkers = 16;  // the controller-manager's default --workers
constexpr int kLatencyMs = 50;

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

struct Row {
  std::string benchmark, value, reference, ratio;
};

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

// ---------------------------------------------------------------------------------------------
// 1. Convergence: N federated HPAs to 3N correct local HPAs, against the members' raw create rate
// (the controller-manager with its default --workers, apiserver and member-sims as processes).
//
// Timed from the controller-manager's start with the N federated HPAs already stored: the time
// the controller needs to converge them, cache sync and probe round included. Timed from the
// first federated create instead, the figure would be the federation API's create rate for this
// benchmark's clients (a durable write each), which is not the controller's to improve; that
// figure is the second row, against the same creates with no controller running.

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

struct Trials {
  std::vector<double> latencies, writeRtts;  // ms; latencies from just before the status write
  std::vector<double> sinceStored;           // ms from the status write's response (the member had stored it)
};

// `count` trials on the federated HPA `name`: the member holding the least max (round robin
// among equals) has its local HPA's status written saturated; timed until the mirror sees its
// max raised, then the status goes back to idle and the members settle.
Trials reactionTrials(MemberMirror& mirror, const std::vector<RestConfig>& configs, const std::string& name, int count,
                      milliseconds timeout) {
  std::vector<std::unique_ptr<RestClient>> members;
  for (const auto& config : configs) members.push_back(std::make_unique<RestClient>(config));
  const int size = static_cast<int>(members.size());
  std::vector<double> latencies, writeRtts, sinceStored;
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
    const auto reset = Clock::now();
    members[k]->mergePatch(kHpas, "default", name, idleStatus(), "status");
    writeRtts.push_back(secondsSince(reset) * 1000);
    mirror.waitQuiet(milliseconds(100), Clock::now() + seconds(10), "trial " + std::to_string(trial) + " settling");
  }
  return {latencies, writeRtts, sinceStored};
}

void reaction(const Sizes& sizes, std::vector<Row>& rows) {
  progress("reaction: fedhpa up, " + std::to_string(sizes.reactionTrials) + " trials");
  TempDir dir("fedhpa-bench-reaction");
  Up up = startUp(dir, "up-reaction", {"--hpa-sync-period", "1h", "--hpa-scale-forbidden-window", "0"});
  MemberMirror mirror(up.members, 9);
  const std::string name = "reaction";
  RestClient(up.federation).create(kHpas, "default", hpaObject(name, 3, 9));
  mirror.waitUntil(
      [&](const MemberMirror& m) {
        const auto e = m.entry(name);
        return e && e->max == std::vector<int>{3, 3, 3};
      },
      Clock::now() + seconds(30), "the initial spread {1,3} x 3");
  mirror.waitQuiet(milliseconds(200), Clock::now() + seconds(10), "after the initial spread");

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
// 3. The API server: GET, LIST and watch fan-out against a trivial endpoint of the same server.

void apiserverBench(const Sizes& sizes, std::vector<Row>& rows) {
  progress("apiserver: " + std::to_string(sizes.listHpas) + " HPAs, " + std::to_string(sizes.watchers) + " watchers");
  TempDir dir("fedhpa-bench-apiserver");
  std::unique_ptr<Process> server;
  const std::string url = startServing(server, "apiserver", {FEDHPA_BINARY, "apiserver", "--listen", "127.0.0.1:0", "--data-dir",
                                                             (dir.path() / "data").string()}, dir);
  const RestConfig config = serverConfig(url);
  std::vector<std::string> names;
  for (int i = 0; i < sizes.listHpas; ++i) names.push_back(hpaName("bench", i));
  const double createSeconds = createHpas(config, names, 1, 10, sizes.loadThreads);
  progress("created " + std::to_string(names.size()) + " HPAs in " + fixed(createSeconds, 2) + " s");

  const std::string collection = kHpas.path("default");
  const int threads = sizes.loadThreads;
  const double trivial = requestRate(url, "/healthz", threads, sizes.rateDuration);
  const double get = requestRate(url, kHpas.path("default", names.front()), threads, sizes.rateDuration);
  const double list = requestRate(url, collection, threads, sizes.rateDuration);
  const std::string reference = "GET /healthz " + fixed(trivial, 0) + " req/s";
  const std::string clients = std::to_string(threads) + " clients";
  rows.push_back({"apiserver GET one HPA", fixed(get, 0) + " req/s (" + clients + ")", reference, fixed(get / trivial, 2)});
  rows.push_back({"apiserver LIST " + std::to_string(sizes.listHpas) + " HPAs from the watch cache (goal >= 0.2)",
                  fixed(list, 1) + " req/s (" + clients + ")", reference, fixed(list / trivial, 3)});

  // Watch fan-out: W open watches, M updates of one HPA, until every watcher saw every update.
  const int w = sizes.watchers, updates = sizes.watchUpdates;
  const std::string target = names.front();
  RestClient writer(config);
  const auto seqPatch = [](const std::string& seq) { return json{{"metadata", {{"annotations", {{"bench.fedhpa.io/seq", seq}}}}}}; };
  // The same updates with nobody watching, for comparison (stderr only).
  const auto alone = Clock::now();
  for (int i = 0; i < updates; ++i) writer.mergePatch(kHpas, "default", target, seqPatch("alone-" + std::to_string(i)));
  progress("the same " + std::to_string(updates) + " updates with no watcher: " + fixed(updates / secondsSince(alone), 0) + "/s");
  const std::string fromVersion = writer.get(kHpas, "default", target).at("metadata").value("resourceVersion", "");
  std::vector<std::unique_ptr<RestClient>> watchClients;
  std::vector<std::unique_ptr<clusters::WatchStream>> streams;
  for (int i = 0; i < w; ++i) {
    watchClients.push_back(std::make_unique<RestClient>(config));
    streams.push_back(watchClients.back()->watch(kHpas, "default", fromVersion, {}));
  }
  std::vector<Clock::time_point> finished(w);
  std::vector<std::string> errors(w);
  std::atomic<int> done{0};
  std::vector<std::thread> watchers;
  for (int i = 0; i < w; ++i)
    watchers.emplace_back([&, i] {
      try {
        int seen = 0;
        while (const auto event = streams[i]->next()) {
          if (event->value("type", "") != "MODIFIED") continue;
          if (event->at("object").at("metadata").value("name", "") != target) continue;
          if (++seen == updates) {
            finished[i] = Clock::now();
            ++done;
            return;
          }
        }
        errors[i] = "stream ended after " + std::to_string(seen) + " of " + std::to_string(updates) + " events";
      } catch (const std::exception& failure) {
        errors[i] = failure.what();
      }
    });
  const auto cancelAll = [&] {
    for (auto& stream : streams) stream->cancel();
    for (auto& thread : watchers) thread.join();
  };
  const double serverCpuBefore = cpuSeconds(server->pid()), benchCpuBefore = cpuSeconds(::getpid());
  const auto start = Clock::now();
  try {
    for (int i = 0; i < updates; ++i)
      writer.mergePatch(kHpas, "default", target, seqPatch(std::to_string(i)));
  } catch (...) {
    cancelAll();
    throw;
  }
  const double writeSeconds = secondsSince(start);
  const auto deadline = start + seconds(60) + milliseconds(1) * (w * updates / 10);
  while (done < w && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(2));
  const double serverCpu = cpuSeconds(server->pid()) - serverCpuBefore, benchCpu = cpuSeconds(::getpid()) - benchCpuBefore;
  cancelAll();
  for (int i = 0; i < w; ++i)
    if (!errors[i].empty() || finished[i] == Clock::time_point{})
      throw BenchError("watcher " + std::to_string(i) + " saw too little: " + (errors[i].empty() ? "timed out" : errors[i]));
  const double elapsed = std::chrono::duration<double>(*std::max_element(finished.begin(), finished.end()) - start).count();
  const double events = static_cast<double>(w) * updates;
  progress("watch fan-out: " + fixed(events, 0) + " events in " + fixed(elapsed, 2) + " s; the updates took " + fixed(writeSeconds, 2) +
           " s (" + fixed(updates / writeSeconds, 0) + "/s); CPU s: apiserver " + fixed(serverCpu, 1) + ", this benchmark's clients " +
           fixed(benchCpu, 1));
  rows.push_back({"apiserver watch " + std::to_string(w) + "x" + std::to_string(updates),
                  fixed(events, 0) + " events in " + fixed(elapsed, 2) + " s (" + fixed(events / elapsed, 0) + "/s)", reference,
                  fixed(events / elapsed / trivial, 2)});

  // The same LIST from the storage itself: the same data, served again with --watch-cache=false.
  server->terminate();
  server.reset();
  const std::string uncachedUrl = startServing(server, "apiserver-uncached",
                                               {FEDHPA_BINARY, "apiserver", "--listen", "127.0.0.1:0", "--watch-cache=false",
                                                "--data-dir", (dir.path() / "data").string()},
                                               dir);
  const double uncachedTrivial = requestRate(uncachedUrl, "/healthz", threads, sizes.rateDuration);
  const double uncachedList = requestRate(uncachedUrl, collection, threads, sizes.rateDuration);
  rows.push_back({"apiserver LIST " + std::to_string(sizes.listHpas) + " HPAs, --watch-cache=false",
                  fixed(uncachedList, 1) + " req/s (" + clients + ")", "GET /healthz " + fixed(uncachedTrivial, 0) + " req/s",
                  fixed(uncachedList / uncachedTrivial, 3)});
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

// ---------------------------------------------------------------------------------------------
// 5. At member latency (issue 10): separate processes, every member-sim with --latency 50ms.

std::string latencyFlag() { return std::to_string(kLatencyMs) + "ms"; }

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
  mirror.waitUntil(
      [&](const MemberMirror& m) {
        const auto e = m.entry(name);
        return e && e->max == std::vector<int>{3, 3, 3};
      },
      Clock::now() + seconds(30), "the initial spread {1,3} x 3");
  mirror.waitQuiet(milliseconds(1000), Clock::now() + seconds(30), "after the initial spread");

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

int run(int argc, char** argv) {
  Sizes sizes;
  std::string only;
  bool tsv = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      sizes = Sizes{true, 10, 5, 20, 5, 20, 50, 4, milliseconds(300), 10, 3, milliseconds(1000)};
    } else if (arg == "--tsv") {
      tsv = true;
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::cerr << "usage: control_plane_bench [--smoke] [--tsv] [--only PHASE[,PHASE...]] (phases: convergence reaction apiserver memory latency reaction-latency)\n";
      return 2;
    }
  }
  const std::vector<std::pair<std::string, std::function<void(const Sizes&, std::vector<Row>&)>>> phases = {
      {"convergence", convergence}, {"reaction", reaction}, {"apiserver", apiserverBench}, {"memory", memory},
      {"latency", latencyConvergence}, {"reaction-latency", reactionLatency}};
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
