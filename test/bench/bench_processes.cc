#include "test/bench/bench_processes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cpprest/http_client.h>

#include "clusters/client/rest_client.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace fedhpa::bench {

using clusters::json;
using clusters::ListOptions;
using clusters::RestClient;
using clusters::RestConfig;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

// Live children and temp dirs, for the signal thread: SIGINT/SIGTERM must not leave them behind.
std::mutex registryMutex;
std::set<pid_t> liveChildren;
std::set<std::string> liveTempDirs;

std::string readFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + ".XXXXXX";
  if (!::mkdtemp(pattern.data())) throw BenchError("mkdtemp " + pattern + " failed");
  path_ = pattern;
  std::lock_guard lock(registryMutex);
  liveTempDirs.insert(path_.string());
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  std::lock_guard lock(registryMutex);
  liveTempDirs.erase(path_.string());
}

Process::Process(std::string name, const std::vector<std::string>& argv, const std::filesystem::path& logDir)
    : name_(std::move(name)), out_(logDir / (name_ + ".out")), err_(logDir / (name_ + ".err")) {
  // Everything the child touches between fork and exec is prepared here: only async-signal-safe
  // calls happen in the child (the parent has cpprest's threads running).
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const std::string out = out_.string(), err = err_.string();
  const pid_t parent = ::getpid();
  std::lock_guard lock(registryMutex);
  pid_ = ::fork();
  if (pid_ < 0) throw BenchError("fork failed for " + name_);
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the benchmark killed outright takes its children along
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int outFd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int errFd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int nullFd = ::open("/dev/null", O_RDONLY);
    if (outFd < 0 || errFd < 0 || nullFd < 0) ::_exit(126);
    ::dup2(nullFd, 0);
    ::dup2(outFd, 1);
    ::dup2(errFd, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  liveChildren.insert(pid_);
}

Process::~Process() { terminate(); }

bool Process::reap(bool block) {
  if (status_ >= 0) return true;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (done != pid_) return false;
  status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::lock_guard lock(registryMutex);
  liveChildren.erase(pid_);
  return true;
}

void Process::terminate() {
  if (pid_ <= 0 || reap(false)) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < deadline) {
    if (reap(false)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::cerr << "control_plane_bench: " << name_ << " (pid " << pid_ << ") ignored SIGTERM for 5 s: SIGKILL\n";
  ::kill(pid_, SIGKILL);
  reap(true);
}

std::string Process::stderrTail(std::size_t bytes) const {
  const std::string text = readFile(err_);
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

std::string Process::waitForLine(const std::string& prefix, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::istringstream lines(readFile(out_));
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    if (reap(false))
      throw BenchError(name_ + " exited with status " + std::to_string(status_) + " before printing \"" + prefix +
                       "\"; its stderr:\n" + stderrTail());
    if (Clock::now() >= deadline)
      throw BenchError(name_ + " printed no \"" + prefix + "\" line within " + std::to_string(timeout.count()) +
                       " ms; its stderr:\n" + stderrTail());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int Process::waitExit(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!reap(false)) {
    if (Clock::now() >= deadline)
      throw BenchError(name_ + " did not exit within " + std::to_string(timeout.count()) + " ms; its stderr:\n" + stderrTail());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_;
}

void installSignalCleanup() {
  // Blocked here, before any thread exists, so every later thread inherits the mask and only
  // this one receives them.
  sigset_t signals;
  ::sigemptyset(&signals);
  ::sigaddset(&signals, SIGINT);
  ::sigaddset(&signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int received = 0;
    ::sigwait(&signals, &received);
    std::lock_guard lock(registryMutex);
    for (const pid_t pid : liveChildren) ::kill(pid, SIGKILL);
    for (const pid_t pid : liveChildren) ::waitpid(pid, nullptr, 0);
    for (const auto& dir : liveTempDirs) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
    std::cerr << "control_plane_bench: signal " << received << ": children killed, temp dirs removed\n";
    ::_exit(128 + received);
  }).detach();
}

std::size_t residentBytes(pid_t pid) {
  std::istringstream lines(readFile("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::size_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  throw BenchError("no VmRSS in /proc/" + std::to_string(pid) + "/status");
}

double cpuSeconds(pid_t pid) {
  const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) throw BenchError("unreadable /proc/" + std::to_string(pid) + "/stat");
  std::istringstream fields(stat.substr(close + 2));  // from field 3, the state
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 13; ++i) fields >> field;
  fields >> utime >> stime;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

void writeKubeconfig(const std::filesystem::path& file, const std::vector<std::pair<std::string, std::string>>& servers) {
  std::ostringstream config;
  config << "apiVersion: v1\nkind: Config\ncurrent-context: " << servers.front().first << "\nclusters:\n";
  for (const auto& [name, url] : servers) config << "- name: " << name << "\n  cluster: {server: \"" << url << "\"}\n";
  config << "users:\n- name: admin\n  user: {}\ncontexts:\n";
  for (const auto& [name, url] : servers)
    config << "- name: " << name << "\n  context: {cluster: " << name << ", user: admin, namespace: default}\n";
  std::ofstream out(file);
  out << config.str();
  if (!out) throw BenchError("cannot write " + file.string());
}

double requestRate(const std::string& server, const std::string& path, int threads, std::chrono::milliseconds duration) {
  std::atomic<long long> done{0};
  std::atomic<int> warm{0};
  std::mutex errorMutex;
  std::string error;
  Clock::time_point start, deadline;
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  const auto get = [&](web::http::client::http_client& client) {
    web::http::http_response response = client.request(web::http::methods::GET, path).get();
    const std::string body = response.extract_utf8string(true).get();
    if (response.status_code() != 200)
      throw BenchError("GET " + path + ": HTTP " + std::to_string(response.status_code()) + ": " + body.substr(0, 200));
  };
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      long long count = 0;
      try {
        web::http::client::http_client client(server);
        get(client);  // the connection is open before the clock starts
        ++warm;
        while (!go) std::this_thread::yield();
        while (Clock::now() < deadline) {
          get(client);
          ++count;
        }
      } catch (const std::exception& failure) {
        std::lock_guard lock(errorMutex);
        error = failure.what();
        ++warm;
      }
      done += count;
    });
  const auto warmDeadline = Clock::now() + std::chrono::seconds(30);
  while (warm < threads && Clock::now() < warmDeadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  start = Clock::now();
  deadline = start + duration;
  go = true;
  for (auto& worker : workers) worker.join();
  const double elapsed = secondsSince(start);
  if (!error.empty()) throw BenchError(server + path + ": " + error);
  if (warm < threads) throw BenchError(server + path + ": clients not connected within 30 s");
  return static_cast<double>(done) / elapsed;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void progress(const std::string& line) { std::cerr << "[bench] " << line << std::endl; }

RestConfig serverConfig(const std::string& url) {
  RestConfig config;
  config.server = url;
  return config;
}

std::string hpaName(const std::string& prefix, int i) {
  char text[32];
  std::snprintf(text, sizeof text, "%s-%05d", prefix.c_str(), i);
  return text;
}

json hpaObject(const std::string& name, int minReplicas, int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"minReplicas", minReplicas},
            {"maxReplicas", maxReplicas},
            {"metrics", json::array({{{"type", "Resource"},
                                      {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}}})}}}};
}

double createHpas(const RestConfig& config, const std::vector<std::string>& names, int minReplicas, int maxReplicas,
                  int threads) {
  std::atomic<std::size_t> next{0};
  std::mutex errorMutex;
  std::string error;
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      try {
        RestClient client(config);
        for (std::size_t i = next++; i < names.size(); i = next++) client.create(kHpas, "default", hpaObject(names[i], minReplicas, maxReplicas));
      } catch (const std::exception& failure) {
        std::lock_guard lock(errorMutex);
        error = failure.what();
        next = names.size();
      }
    });
  for (auto& worker : workers) worker.join();
  if (!error.empty()) throw BenchError("creating HPAs on " + config.server + ": " + error);
  return secondsSince(start);
}

static bool clusterReady(const json& cluster) {
  for (const auto& condition : cluster.value("status", json::object()).value("conditions", json::array()))
    if (condition.value("type", "") == "Ready" && condition.value("status", "") == "True") return true;
  return false;
}

void waitClustersReady(const RestConfig& federation, int count, milliseconds timeout) {
  RestClient client(federation);
  const auto deadline = Clock::now() + timeout;
  int ready = 0;
  for (;;) {
    const json list = client.list(kClusters, "", {});
    ready = 0;
    for (const auto& cluster : list.value("items", json::array())) ready += clusterReady(cluster);
    if (ready == count) return;
    if (Clock::now() >= deadline)
      throw BenchError(std::to_string(ready) + " of " + std::to_string(count) + " member clusters Ready after " +
                       std::to_string(timeout.count()) + " ms");
    std::this_thread::sleep_for(milliseconds(50));
  }
}

// The store's revision, which every write bumps: a LIST reports it as its resourceVersion.
static long long storeRevision(const RestConfig& config) {
  ListOptions options;
  options.limit = 1;
  return std::stoll(RestClient(config).list(kHpas, "default", options).at("metadata").value("resourceVersion", "0"));
}

Revisions revisions(const RestConfig& federation, const std::vector<RestConfig>& members) {
  Revisions r;
  r.federation = storeRevision(federation);
  for (const auto& member : members) r.members.push_back(storeRevision(member));
  return r;
}

std::string writesPerHpa(const Revisions& before, const Revisions& after, int n) {
  std::string text = "writes per federated HPA: federation " + fixed(static_cast<double>(after.federation - before.federation) / n, 2) +
                     ", members";
  for (std::size_t m = 0; m < after.members.size(); ++m)
    text += " " + fixed(static_cast<double>(after.members[m] - before.members.at(m)) / n, 2);
  return text;
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::max(0.0, std::ceil(p / 100.0 * static_cast<double>(values.size())) - 1));
  return values[std::min(rank, values.size() - 1)];
}

MemberMirror::MemberMirror(const std::vector<RestConfig>& members, int wantedSum)
    : members_(static_cast<int>(members.size())), wantedSum_(wantedSum), streams_(members.size(), nullptr) {
  for (int m = 0; m < members_; ++m) threads_.emplace_back([this, m, config = members.at(m)] { run(m, config); });
  std::string failure;
  {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, seconds(30), [&] { return listed_ == members_ || !error_.empty(); }))
      failure = "member watches not established within 30 s";
    else
      failure = error_;
  }
  if (!failure.empty()) {
    stop();
    throw BenchError(failure);
  }
}

MemberMirror::~MemberMirror() { stop(); }

void MemberMirror::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto* stream : streams_)
      if (stream) stream->cancel();
  }
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

void MemberMirror::waitUntil(const std::function<bool(const MemberMirror&)>& done, Clock::time_point deadline, const std::string& what) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!error_.empty()) throw BenchError(what + ": " + error_);
    if (done(*this)) return;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && !done(*this))
      throw BenchError("timed out waiting for " + what + " (" + describeLocked() + ")");
  }
}

void MemberMirror::waitQuiet(milliseconds quiet, Clock::time_point deadline, const std::string& what) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!error_.empty()) throw BenchError(what + ": " + error_);
    const auto quietAt = lastEventAt_ + quiet;
    const auto now = Clock::now();
    if (now >= quietAt) return;
    if (now >= deadline) throw BenchError("member HPAs still changing: " + what);
    changed_.wait_until(lock, std::min(quietAt, deadline));
  }
}

std::optional<MemberMirror::Entry> MemberMirror::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<MemberMirror::Entry> MemberMirror::snapshot(const std::string& name) {
  std::lock_guard lock(mutex_);
  return entry(name);
}

std::string MemberMirror::describeLocked() const {
  std::size_t count = 0;
  for (const auto& [name, e] : entries_)
    for (int max : e.max) count += max > 0;
  return std::to_string(count) + " local HPAs seen, " + std::to_string(correct_) + " names with all members and Σ max " +
         std::to_string(wantedSum_) + ", " + std::to_string(events_) + " watch events";
}

bool MemberMirror::isCorrect(const Entry& e) const {
  if (static_cast<int>(e.max.size()) != members_) return false;
  int sum = 0;
  for (int max : e.max) {
    if (max <= 0) return false;
    sum += max;
  }
  return sum == wantedSum_;
}

void MemberMirror::apply(int member, const std::string& type, const json& object, Clock::time_point at) {
  const std::string name = object.at("metadata").value("name", "");
  const int max = type == "DELETED" ? 0 : object.value("spec", json::object()).value("maxReplicas", 0);
  std::lock_guard lock(mutex_);
  Entry& e = entries_[name];
  if (e.max.empty()) {
    e.max.assign(members_, 0);
    e.changedAt.assign(members_, Clock::time_point{});
  }
  const bool was = isCorrect(e);
  if (e.max[member] != max) {
    e.max[member] = max;
    e.changedAt[member] = at;
  }
  const bool now = isCorrect(e);
  if (now && !was) {
    ++correct_;
    completedAt_ = at;  // once all are right: when the last one became right
  }
  if (was && !now) --correct_;
  ++events_;
  lastEventAt_ = at;
  changed_.notify_all();
}

void MemberMirror::run(int member, const RestConfig& config) {
  try {
    // An observer reads limits, not who wrote them: it should cost the machine it measures little.
    clusters::RestClientOptions observer;
    observer.dropManagedFields = true;
    RestClient client(config, observer);
    ListOptions options;
    options.labelSelector = kManagedSelector;
    const json list = client.list(kHpas, "default", options);
    for (const auto& item : list.value("items", json::array())) apply(member, "ADDED", item, Clock::now());
    std::string resourceVersion = list.at("metadata").value("resourceVersion", "");
    {
      std::lock_guard lock(mutex_);
      ++listed_;
      changed_.notify_all();
    }
    for (int watches = 0; watches < 1000; ++watches) {
      auto stream = client.watch(kHpas, "default", resourceVersion, options);
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        streams_[member] = stream.get();
      }
      while (const auto event = stream->next()) {
        const auto at = Clock::now();
        const std::string type = event->value("type", "");
        const json& object = event->at("object");
        if (type == "ERROR") throw BenchError("watch error: " + object.dump());
        resourceVersion = object.at("metadata").value("resourceVersion", resourceVersion);
        if (type != "BOOKMARK") apply(member, type, object, at);
      }
      std::lock_guard lock(mutex_);
      streams_[member] = nullptr;
      if (stopping_) return;
    }
    throw BenchError("the watch ended 1000 times");
  } catch (const std::exception& failure) {
    std::lock_guard lock(mutex_);
    streams_[member] = nullptr;
    if (stopping_) return;
    error_ = "member" + std::to_string(member + 1) + " watch: " + failure.what();
    changed_.notify_all();
  }
}

Up startUp(const TempDir& dir, const std::string& name, const std::vector<std::string>& extraFlags) {
  std::vector<std::string> argv = {FEDHPA_BINARY, "up", "--data-dir", (dir.path() / (name + "-data")).string(),
                                   "--kubeconfig-out", (dir.path() / (name + ".kubeconfig")).string(),
                                   "--members", std::to_string(kMembers), "--leader-elect=false",
                                   "--cluster-probe-period", "1s"};
  argv.insert(argv.end(), extraFlags.begin(), extraFlags.end());
  Up up;
  up.process = std::make_unique<Process>(name, argv, dir.path());
  const std::string kubeconfig = up.process->waitForLine("kubeconfig: ", seconds(30));
  const auto config = clusters::loadKubeconfig({kubeconfig});
  up.federation = config.resolve("federation-cluster");
  for (int m = 1; m <= kMembers; ++m) up.members.push_back(config.resolve("member" + std::to_string(m)));
  waitClustersReady(up.federation, kMembers, seconds(30));
  return up;
}

std::string startServing(std::unique_ptr<Process>& process, const std::string& name, const std::vector<std::string>& argv,
                         const TempDir& dir) {
  process = std::make_unique<Process>(name, argv, dir.path());
  return "http://" + process->waitForLine("listening on http://", seconds(30));
}

Federation startFederation(const TempDir& dir, int members, const std::vector<std::string>& simFlags,
                           const std::vector<std::string>& controllerFlags) {
  Federation f = startFederationWithoutController(dir, members, simFlags);
  startController(f, dir, controllerFlags);
  return f;
}

Federation startFederationWithoutController(const TempDir& dir, int members, const std::vector<std::string>& simFlags) {
  Federation f;
  f.federationUrl = startServing(f.apiserver, "apiserver",
                                 {FEDHPA_BINARY, "apiserver", "--listen", "127.0.0.1:0", "--data-dir", (dir.path() / "data").string()}, dir);
  f.federation = serverConfig(f.federationUrl);
  std::vector<std::pair<std::string, std::string>> servers = {{"federation-cluster", f.federationUrl}};
  for (int m = 1; m <= members; ++m) {
    const std::string name = "member" + std::to_string(m);
    std::vector<std::string> argv = {FEDHPA_BINARY, "member-sim", "--listen", "127.0.0.1:0", "--name", name};
    argv.insert(argv.end(), simFlags.begin(), simFlags.end());
    f.sims.emplace_back();
    f.memberUrls.push_back(startServing(f.sims.back(), name, argv, dir));
    f.members.push_back(serverConfig(f.memberUrls.back()));
    servers.push_back({name, f.memberUrls.back()});
  }
  f.kubeconfig = dir.path() / "kubeconfig";
  writeKubeconfig(f.kubeconfig, servers);
  for (int m = 1; m <= members; ++m) {
    const std::string name = "member" + std::to_string(m);
    Process join("join-" + name, {FEDHPA_BINARY, "join", name, "--cluster-context", name, "--kubeconfig", f.kubeconfig.string()}, dir.path());
    if (const int status = join.waitExit(seconds(30)); status != 0)
      throw BenchError("fedhpa join " + name + " exited " + std::to_string(status) + ": " + join.stderrTail());
  }
  return f;
}

void startController(Federation& f, const TempDir& dir, const std::vector<std::string>& controllerFlags, bool waitReady) {
  // A free port for its /metrics, so this process can read it (it logs the port, to stderr only).
  int port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw BenchError("no free port for the controller-manager");
    port = ntohs(address.sin_port);
    ::close(fd);
  }
  f.controllerUrl = "http://127.0.0.1:" + std::to_string(port);
  std::vector<std::string> argv = {FEDHPA_BINARY, "controller-manager", "--kubeconfig", f.kubeconfig.string(), "--context",
                                   "federation-cluster", "--address", "127.0.0.1:" + std::to_string(port), "--leader-elect=false",
                                   "--cluster-probe-period", "1s"};
  argv.insert(argv.end(), controllerFlags.begin(), controllerFlags.end());
  f.controller = std::make_unique<Process>("controller-manager", argv, dir.path());
  if (waitReady) waitClustersReady(f.federation, static_cast<int>(f.members.size()), seconds(30));
}

std::map<std::string, double> scrapeMetrics(const std::string& server) {
  web::http::client::http_client client(server);
  web::http::http_response response = client.request(web::http::methods::GET, "/metrics").get();
  const std::string body = response.extract_utf8string(true).get();
  if (response.status_code() != 200) throw BenchError("GET " + server + "/metrics: HTTP " + std::to_string(response.status_code()));
  std::map<std::string, double> samples;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    try {
      samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
    } catch (const std::exception&) {
    }
  }
  return samples;
}

std::map<std::pair<std::string, std::string>, long long> requestCounts(const std::string& server) {
  web::http::client::http_client client(server);
  web::http::http_response response = client.request(web::http::methods::GET, "/metrics").get();
  const std::string body = response.extract_utf8string(true).get();
  if (response.status_code() != 200) throw BenchError("GET " + server + "/metrics: HTTP " + std::to_string(response.status_code()));
  std::map<std::pair<std::string, std::string>, long long> counts;
  std::istringstream lines(body);
  const std::string prefix = "apiserver_request_total{";
  const auto label = [](const std::string& labels, const std::string& key) {
    const auto at = labels.find(key + "=\"");
    if (at == std::string::npos) return std::string();
    const auto begin = at + key.size() + 2;
    return labels.substr(begin, labels.find('"', begin) - begin);
  };
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto close = line.find("} ");
    if (close == std::string::npos) continue;
    const std::string labels = line.substr(prefix.size(), close - prefix.size());
    counts[{label(labels, "verb"), label(labels, "resource")}] += std::stoll(line.substr(close + 2));
  }
  return counts;
}

}  // namespace fedhpa::bench
