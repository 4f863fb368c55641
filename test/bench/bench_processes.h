// What control_plane_bench needs around the product: real `fedhpa` processes on loopback that
// die with the benchmark (RAII, and PR_SET_PDEATHSIG should the benchmark itself be killed), a
// temporary directory that goes away, kubeconfig files, /proc RSS and CPU, and the federation
// in the shapes the benchmark measures: `fedhpa up`, or its parts as separate processes. The
// load put on them and what is read back from them over HTTP are bench_load.h's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clusters/client/kube_client.h"
#include "clusters/client/kubeconfig.h"

namespace fedhpa::bench {

// The names every file of the benchmark writes unqualified.
using clusters::json;
using clusters::RestConfig;
using std::chrono::milliseconds;
using std::chrono::seconds;

using Clock = std::chrono::steady_clock;

// A phase that cannot go on: the message says which and why; main exits nonzero.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double secondsSince(Clock::time_point start);

// mkdtemp under /tmp, removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One child process: stdout and stderr go to LOGDIR/NAME.out and NAME.err. SIGTERM on
// destruction, SIGKILL when it has not exited 5 s later; always reaped.
class Process {
 public:
  Process(std::string name, const std::vector<std::string>& argv, const std::filesystem::path& logDir);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }
  // Waits for a stdout line starting with prefix and returns the rest of it; throws BenchError
  // (with the stderr tail) when the process exits first or the timeout passes.
  std::string waitForLine(const std::string& prefix, std::chrono::milliseconds timeout);
  // Waits for the process to exit and returns its exit status; throws on timeout.
  int waitExit(std::chrono::milliseconds timeout);
  void terminate();
  std::string stderrTail(std::size_t bytes = 2000) const;

 private:
  bool reap(bool block);  // true once exited (status_ set)

  std::string name_;
  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  int status_ = -1;
};

// SIGINT/SIGTERM to the benchmark kill every live child before it exits.
void installSignalCleanup();

// VmRSS of a process, bytes.
std::size_t residentBytes(pid_t pid);
// User + system CPU a process has used so far, seconds.
double cpuSeconds(pid_t pid);

// A kubeconfig with one context per (name, server) pair (cluster and context of that name,
// namespace default); the first is the current context.
void writeKubeconfig(const std::filesystem::path& file, const std::vector<std::pair<std::string, std::string>>& servers);

inline const clusters::Resource kClusters{"federation", "v1beta1", "clusters", false};
inline constexpr int kMembers = 3;

clusters::RestConfig serverConfig(const std::string& url);
// Until the federation lists `count` Clusters, all Ready (the controller's prober runs).
void waitClustersReady(const clusters::RestConfig& federation, int count, std::chrono::milliseconds timeout);

// `fedhpa up` (NAME.out/.err in dir) with --members 3, no leader election, probes every 1 s,
// plus extraFlags; returns once it printed its kubeconfig and its 3 clusters are Ready.
struct Up {
  std::unique_ptr<Process> process;
  clusters::RestConfig federation;
  std::vector<clusters::RestConfig> members;
};
Up startUp(const TempDir& dir, const std::string& name, const std::vector<std::string>& extraFlags);

// Starts a serving subcommand (apiserver, member-sim) and returns its URL from the ready line.
std::string startServing(std::unique_ptr<Process>& process, const std::string& name, const std::vector<std::string>& argv,
                         const TempDir& dir);

// The federation as separate processes, as the e2e tests assemble it: `fedhpa apiserver`,
// `members` × `fedhpa member-sim --name memberK` (plus simFlags, e.g. --latency 50ms), each
// joined with `fedhpa join`, then `fedhpa controller-manager` (no leader election, probes every
// 1 s, plus controllerFlags); returns once every Cluster is Ready.
struct Federation {
  std::unique_ptr<Process> apiserver;
  std::vector<std::unique_ptr<Process>> sims;
  std::unique_ptr<Process> controller;
  std::string controllerUrl;  // its /metrics
  std::string federationUrl;
  std::filesystem::path kubeconfig;  // a context per server: federation-cluster, memberK
  std::vector<std::string> memberUrls;
  clusters::RestConfig federation;
  std::vector<clusters::RestConfig> members;
};
Federation startFederation(const TempDir& dir, int members, const std::vector<std::string>& simFlags,
                           const std::vector<std::string>& controllerFlags);
// The same in two steps: everything but the controller-manager (the members joined, not yet
// Ready: nobody probes them), then the controller-manager, by default waiting until every
// Cluster is Ready.
Federation startFederationWithoutController(const TempDir& dir, int members, const std::vector<std::string>& simFlags);
void startController(Federation& f, const TempDir& dir, const std::vector<std::string>& controllerFlags, bool waitReady = true);

}  // namespace fedhpa::bench
