// The load control_plane_bench puts on the servers it started, and what it reads back from them:
// a request-rate load generator on cpprestsdk's http_client (its headers stay inside the .cc),
// parallel HPA creates, store revisions, /metrics samples, and a mirror of the members' managed
// HPAs kept by list+watch through fedhpa's RestClient; plus the figures' formatting.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clusters/client/kube_client.h"
#include "clusters/client/kubeconfig.h"
#include "test/bench/bench_processes.h"

namespace fedhpa::bench {

// `threads` threads, each with its own http_client (one keep-alive connection), GET `path` back
// to back for `duration`, reading every body; throws on any non-200. Requests per second.
// `accept`: the request's Accept header ("" sends none: JSON).
double requestRate(const std::string& server, const std::string& path, int threads, std::chrono::milliseconds duration,
                   const std::string& accept = "");
// The size of one GET's body with this Accept header.
std::size_t responseBytes(const std::string& server, const std::string& path, const std::string& accept);

inline const clusters::Resource kHpas{"autoscaling", "v2", "horizontalpodautoscalers", true};
inline constexpr const char* kManagedSelector = "federation.kubernetes.io/managed-by=fedhpa";

std::string fixed(double value, int decimals);
double percentile(std::vector<double> values, double p);
void progress(const std::string& line);  // stderr

std::string hpaName(const std::string& prefix, int i);
// An autoscaling/v2 HPA in default: cpu 50 %, target Deployment of the same name.
clusters::json hpaObject(const std::string& name, int minReplicas, int maxReplicas);
// Creates the HPAs with `threads` clients in parallel, each its own connection; seconds taken.
double createHpas(const clusters::RestConfig& config, const std::vector<std::string>& names, int minReplicas, int maxReplicas,
                  int threads);

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

// Every sample of a server's /metrics, keyed by `name{labels}` as printed.
std::map<std::string, double> scrapeMetrics(const std::string& server);

// apiserver_request_total from a server's /metrics, summed by (verb, resource): what it has
// served so far, its own /metrics scrapes included.
std::map<std::pair<std::string, std::string>, long long> requestCounts(const std::string& server);

}  // namespace fedhpa::bench
