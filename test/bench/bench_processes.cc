#include "test/bench/bench_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/rest_client.h"
#include "test/federation/common/free_port.h"

#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace fedhpa::bench {

using clusters::RestClient;

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

RestConfig serverConfig(const std::string& url) {
  RestConfig config;
  config.server = url;
  return config;
}

void waitClustersReady(const RestConfig& federation, int count, milliseconds timeout) {
  RestClient client(federation);
  const auto deadline = Clock::now() + timeout;
  int ready = 0;
  for (;;) {
    const json list = client.list(kClusters, "", {});
    ready = 0;
    for (const auto& cluster : list.value("items", json::array())) ready += clusters::clusterReady(cluster);
    if (ready == count) return;
    if (Clock::now() >= deadline)
      throw BenchError(std::to_string(ready) + " of " + std::to_string(count) + " member clusters Ready after " +
                       std::to_string(timeout.count()) + " ms");
    std::this_thread::sleep_for(milliseconds(50));
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
  const int port = fedhpa::testing::freeLoopbackPort();
  f.controllerUrl = "http://127.0.0.1:" + std::to_string(port);
  std::vector<std::string> argv = {FEDHPA_BINARY, "controller-manager", "--kubeconfig", f.kubeconfig.string(), "--context",
                                   "federation-cluster", "--address", "127.0.0.1:" + std::to_string(port), "--leader-elect=false",
                                   "--cluster-probe-period", "1s"};
  argv.insert(argv.end(), controllerFlags.begin(), controllerFlags.end());
  f.controller = std::make_unique<Process>("controller-manager", argv, dir.path());
  if (waitReady) waitClustersReady(f.federation, static_cast<int>(f.members.size()), seconds(30));
}

}  // namespace fedhpa::bench
