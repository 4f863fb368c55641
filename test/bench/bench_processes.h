// What control_plane_bench needs around the product: real `fedhpa` processes on loopback that
// die with the benchmark (RAII, and PR_SET_PDEATHSIG should the benchmark itself be killed), a
// temporary directory that goes away, kubeconfig files, /proc RSS and CPU, a request-rate load
// generator on cpprestsdk's http_client (its headers stay inside the .cc), and a mirror of the
// members' managed HPAs kept by list+watch through fedhpa's RestClient.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clusters/client/kube_client.h"
#include "clusters/client/kubeconfig.h"

namespace fedhpa::bench {

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

// `threads` threads, each with its own http_client (one keep-alive connection), GET `path` back
// to back for `duration`, reading every body; throws on any non-200. Requests per second.
double requestRate(const std::string& server, const std::string& path, int threads, std::chrono::milliseconds duration);

inline const clusters::Resource kHpas{"autoscaling", "v2", "horizontalpodautoscalers", true};
inline const clusters::Resource kClusters{"federation", "v1beta1", "clusters", false};
inline constexpr const char* kManagedSelector = "federation.kubernetes.io/managed-by=fedhpa";
inline constexpr int kMembers = 3;

std::string fixed(double value, int decimals);
double percentile(std::vector<double> values, double p);
void progress(const std::string& line);  // stderr

clusters::RestConfig serverConfig(const std::string& url);
std::string hpaName(const std::string& prefix, int i);
// An autoscaling/v2 HPA in default: cpu 50 %, target Deployment of the same name.
clusters::json hpaObject(const std::string& name, int minReplicas, int maxReplicas);
// Creates the HPAs with `threads` clients in parallel, each its own connection; seconds taken.
double createHpas(const clusters::RestConfig& config, const std::vector<std::string>& names, int minReplicas, int maxReplicas,
                  int threads);
// Until the federation lists `count` Clusters, all Ready (the controller's prober runs).
void waitClustersReady(const clusters::RestConfig& federation, int count, std::chrono::milliseconds timeout);

// Store revisions (every write bumps one), to count writes per federated HPA.
struct Revisions {
  long long federation = 0;
  std::vector<long long> members;
};
Revisions revisions(const clusters::RestConfig& federation, const std::vector<clusters::RestConfig>& members);
std::string writesPerHpa(const Revisions& before, const Revisions& after, int n);

// The managed HPAs of the members (any number), kept by one list+watch per member (a thread
// each), with when each member's maxReplicas last changed, as this process saw it.
class MemberMirror {
 public:
  struct Entry {
    std::vector<int> max;  // one per member, 0: absent
    std::vector<Clock::time_point> changedAt;
  };

  // wantedSum > 0: count the names present in every member with Σ max == wantedSum.
  MemberMirror(const std::vector<clusters::RestConfig>& members, int wantedSum);
  ~MemberMirror();
  MemberMirror(const MemberMirror&) = delete;
  MemberMirror& operator=(const MemberMirror&) = delete;

  // Waits until done(*this) holds (called under the lock); BenchError after the deadline or
  // when a watch broke.
  void waitUntil(const std::function<bool(const MemberMirror&)>& done, Clock::time_point deadline, const std::string& what);
  // Waits until no member HPA changed for `quiet`.
  void waitQuiet(std::chrono::milliseconds quiet, Clock::time_point deadline, const std::string& what);

  // Under the lock (inside a waitUntil predicate), or after it returned.
  std::size_t correct() const { return correct_; }
  Clock::time_point completedAt() const { return completedAt_; }  // when the last name became correct
  std::optional<Entry> entry(const std::string& name) const;
  // Takes the lock.
  std::optional<Entry> snapshot(const std::string& name);

 private:
  void stop();
  std::string describeLocked() const;
  bool isCorrect(const Entry& e) const;
  void apply(int member, const std::string& type, const clusters::json& object, Clock::time_point at);
  void run(int member, const clusters::RestConfig& config);

  const int members_;
  const int wantedSum_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::unordered_map<std::string, Entry> entries_;
  std::size_t correct_ = 0;
  std::size_t events_ = 0;
  Clock::time_point completedAt_{};
  Clock::time_point lastEventAt_ = Clock::now();
  int listed_ = 0;
  bool stopping_ = false;
  std::string error_;
  std::vector<clusters::WatchStream*> streams_;
  std::vector<std::thread> threads_;
};

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

// Every sample of a server's /metrics, keyed by `name{labels}` as printed.
std::map<std::string, double> scrapeMetrics(const std::string& server);

// apiserver_request_total from a server's /metrics, summed by (verb, resource): what it has
// served so far, its own /metrics scrapes included.
std::map<std::pair<std::string, std::string>, long long> requestCounts(const std::string& server);

}  // namespace fedhpa::bench
