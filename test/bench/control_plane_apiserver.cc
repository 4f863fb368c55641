#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
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
  // The same LIST in protobuf, as client-go asks for it: each object's encoding made once, shared.
  const std::string protobuf = "application/vnd.kubernetes.protobuf, application/json";
  const double protobufList = requestRate(url, collection, threads, sizes.rateDuration, protobuf);
  const std::size_t jsonBytes = responseBytes(url, collection, "application/json");
  const std::size_t protobufBytes = responseBytes(url, collection, protobuf);
  rows.push_back({"apiserver LIST " + std::to_string(sizes.listHpas) + " HPAs in protobuf",
                  fixed(protobufList, 1) + " req/s (" + clients + ")", "the JSON LIST " + fixed(list, 1) + " req/s",
                  fixed(protobufList / list, 2)});
  rows.push_back({"apiserver LIST " + std::to_string(sizes.listHpas) + " HPAs in protobuf, bytes",
                  std::to_string(protobufBytes) + " B", "JSON " + std::to_string(jsonBytes) + " B",
                  fixed(static_cast<double>(protobufBytes) / static_cast<double>(jsonBytes), 3)});

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

}  // namespace fedhpa::bench
