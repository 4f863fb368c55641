// What watchers and the watch cache cost the API server in memory (issue 31): RSS per watcher
// that never reads while large objects are written, against the same writes with one reading
// watcher; and RSS with 10,000 HPAs in the watch cache, against the same server empty.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
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

namespace {

// FEDHPA_BENCH_BINARY runs these phases against another build's fedhpa (the figures before a
// change, from the same benchmark).
std::string fedhpaBinary() {
  const char* other = std::getenv("FEDHPA_BENCH_BINARY");
  return other && *other ? other : FEDHPA_BINARY;
}

int portOf(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

// One watch on a raw socket: the request goes out, and the answer is either read and dropped as
// it comes (a reading watcher, on its own thread) or never read at all, with a receive buffer of
// 4 KiB so that the kernel holds little of it on this side.
class RawWatch {
 public:
  RawWatch(int port, const std::string& resourceVersion, bool reading) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw BenchError("socket: " + std::to_string(errno));
    if (!reading) {
      const int small = 4096;
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw BenchError("connect: " + std::to_string(errno));
    const std::string request = "GET " + kHpas.path("default") + "?watch=true&resourceVersion=" + resourceVersion +
                                " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
      throw BenchError("send: " + std::to_string(errno));
    if (reading)
      reader_ = std::thread([this] {
        std::vector<char> buffer(256 * 1024);
        for (;;) {
          const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
          if (n <= 0) break;
          received_ += static_cast<std::size_t>(n);
        }
      });
  }
  ~RawWatch() {
    ::shutdown(fd_, SHUT_RDWR);
    if (reader_.joinable()) reader_.join();
    ::close(fd_);
  }
  RawWatch(const RawWatch&) = delete;
  RawWatch& operator=(const RawWatch&) = delete;

  // A watcher that never read: whether the server has ended its connection (reads what the kernel
  // holds, without waiting, until the end or nothing more is there).
  bool endedByServer() {
    std::vector<char> buffer(256 * 1024);
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (n == 0) return true;
      if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
    }
  }
  std::size_t received() const { return received_; }

 private:
  int fd_ = -1;
  std::thread reader_;
  std::atomic<std::size_t> received_{0};
};

// The highest RSS of a process while it runs, sampled every 10 ms on its own thread.
class PeakRss {
 public:
  explicit PeakRss(pid_t pid) : pid_(pid), thread_([this] {
    while (!stop_) {
      peak_ = std::max<std::size_t>(peak_, residentBytes(pid_));
      std::this_thread::sleep_for(milliseconds(10));
    }
  }) {}
  ~PeakRss() { finish(); }
  std::size_t finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return std::max<std::size_t>(peak_, residentBytes(pid_));
  }

 private:
  pid_t pid_;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> peak_{0};
  std::thread thread_;
};

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Non-reading watchers: W watches whose clients never read, while one HPA is written again and
// again with a fresh 32 KiB annotation, until the server has cut them off; RSS at its highest
// meanwhile, against the same writes with one reading watcher (which makes every event's served
// bytes, as the non-reading ones do).

void watchersBench(const Sizes& sizes, std::vector<Row>& rows) {
  const int w = sizes.stalledWatchers, writes = sizes.stalledWrites;
  progress("watchers: " + std::to_string(w) + " that never read, " + std::to_string(writes) + " writes of 32 KiB");
  TempDir dir("fedhpa-bench-watchers");
  std::unique_ptr<Process> server;
  const std::string url = startServing(server, "apiserver", {fedhpaBinary(), "apiserver", "--listen", "127.0.0.1:0", "--data-dir",
                                                             (dir.path() / "data").string()}, dir);
  const RestConfig config = serverConfig(url);
  // Written from several clients at once, each its own HPA (SQLite commits concurrent writes
  // together): fast enough that a watcher which never reads passes its byte bound before its
  // stall timeout, as in the measurement that opened issue 31.
  const int writers = 8;
  std::vector<std::unique_ptr<RestClient>> clients;
  for (int t = 0; t < writers; ++t) {
    clients.push_back(std::make_unique<RestClient>(config));
    clients.back()->create(kHpas, "default", hpaObject("big-" + std::to_string(t), 1, 10));
  }
  std::atomic<int> sequence{0};
  // About `count` writes in all, each a new 32 KiB annotation (distinct bytes: nothing is shared
  // by accident).
  const auto writeBig = [&](int count) {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(writers);
    for (int t = 0; t < writers; ++t)
      threads.emplace_back([&, t] {
        try {
          for (int i = t; i < count; i += writers) {
            const int n = ++sequence;
            std::string payload = std::to_string(n) + "-";
            payload.resize(32 * 1024, static_cast<char>('a' + n % 26));
            clients[t]->mergePatch(kHpas, "default", "big-" + std::to_string(t),
                                   json{{"metadata", {{"annotations", {{"bench.fedhpa.io/payload", payload}}}}}});
          }
        } catch (const std::exception& error) {
          errors[t] = error.what();
        }
      });
    for (auto& thread : threads) thread.join();
    for (const auto& error : errors)
      if (!error.empty()) throw BenchError("a 32 KiB write failed: " + error);
  };
  RestClient reads(config);
  const auto currentVersion = [&] {
    return reads.list(kHpas, "default", {}).at("metadata").value("resourceVersion", "");
  };
  RawWatch reader(portOf(url), currentVersion(), true);
  // The watch cache's history fills first (1,000 events in a full run): both measurements find it
  // as full as it gets.
  writeBig(writes);
  std::size_t reference = 0;
  {
    PeakRss peak(server->pid());
    writeBig(writes);
    reference = peak.finish();
  }
  std::vector<std::unique_ptr<RawWatch>> stalled;
  const std::string from = currentVersion();
  for (int i = 0; i < w; ++i) stalled.push_back(std::make_unique<RawWatch>(portOf(url), from, false));
  std::size_t loaded = 0;
  const auto start = Clock::now();
  {
    PeakRss peak(server->pid());
    writeBig(writes);
    loaded = peak.finish();
  }
  const double writeSeconds = secondsSince(start);
  // The stall timeout (5 s) cuts off any that the byte bound has not. (A smoke run's few writes
  // fit in the kernel's socket buffers: nothing waits in the server, and nothing is cut off.)
  int cutOff = 0;
  const auto deadline = Clock::now() + (sizes.smoke ? seconds(0) : seconds(30));
  do {
    cutOff = static_cast<int>(std::count_if(stalled.begin(), stalled.end(), [](auto& s) { return s->endedByServer(); }));
    if (cutOff < w) std::this_thread::sleep_for(milliseconds(200));
  } while (cutOff < w && Clock::now() < deadline);
  const std::size_t after = residentBytes(server->pid());
  const double perWatcher = (static_cast<double>(loaded) - static_cast<double>(reference)) / w;
  progress("watchers: RSS peak " + fixed(reference / kMiB, 1) + " MiB with one reading watcher, " + fixed(loaded / kMiB, 1) +
           " MiB with " + std::to_string(w) + " more that never read (" + fixed(writes / writeSeconds, 0) + " writes/s); " +
           std::to_string(cutOff) + " cut off; RSS afterwards " + fixed(after / kMiB, 1) + " MiB; the reader got " +
           fixed(reader.received() / kMiB, 1) + " MiB");
  rows.push_back({"apiserver RSS per non-reading watcher, " + std::to_string(w) + " x 32 KiB writes (goal <= 1 MiB)",
                  fixed(perWatcher / 1024.0, 0) + " KiB per watcher (peak " + fixed(loaded / kMiB, 1) + " MiB, " +
                      std::to_string(cutOff) + "/" + std::to_string(w) + " cut off)",
                  "peak, 1 reading watcher " + fixed(reference / kMiB, 1) + " MiB",
                  fixed(static_cast<double>(loaded) / static_cast<double>(reference), 2)});
}

// ---------------------------------------------------------------------------------------------
// The watch cache at scale: N HPAs created, listed once and watched (as a controller's informer
// does, which makes their served bytes), RSS against the same server before the creates.

void apiserverMemory(const Sizes& sizes, std::vector<Row>& rows) {
  const int n = sizes.memoryHpas;
  progress("apiserver memory: " + std::to_string(n) + " HPAs in the watch cache");
  TempDir dir("fedhpa-bench-apiserver-memory");
  std::unique_ptr<Process> server;
  const std::string url = startServing(server, "apiserver", {fedhpaBinary(), "apiserver", "--listen", "127.0.0.1:0", "--data-dir",
                                                             (dir.path() / "data").string()}, dir);
  const RestConfig config = serverConfig(url);
  RestClient client(config);
  client.list(kHpas, "default", {});
  const std::size_t empty = residentBytes(server->pid());
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(hpaName("cached", i));
  const double createSeconds = createHpas(config, names, 1, 10, sizes.loadThreads);
  const json listed = client.list(kHpas, "default", {});
  if (listed.at("items").size() != static_cast<std::size_t>(n))
    throw BenchError("listed " + std::to_string(listed.at("items").size()) + " HPAs, not " + std::to_string(n));
  RawWatch watch(portOf(url), listed.at("metadata").value("resourceVersion", ""), true);
  std::this_thread::sleep_for(milliseconds(500));
  const std::size_t loaded = residentBytes(server->pid());
  progress("apiserver memory: created in " + fixed(createSeconds, 1) + " s; RSS " + fixed(empty / kMiB, 1) + " -> " +
           fixed(loaded / kMiB, 1) + " MiB");
  rows.push_back({"apiserver RSS, " + std::to_string(n) + " HPAs in the watch cache (goal <= 300 MB)",
                  fixed(loaded / 1e6, 1) + " MB (+" + fixed((static_cast<double>(loaded) - empty) / n / 1024.0, 2) +
                      " KiB per HPA, listed and watched)",
                  "same server empty " + fixed(empty / 1e6, 1) + " MB", fixed(static_cast<double>(loaded) / empty, 2)});
}

}  // namespace fedhpa::bench
