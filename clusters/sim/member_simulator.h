// `fedhpa member-sim`: one simulated member cluster. The API server library on an in-memory
// store, plus what kube-controller-manager would run for fedhpa's purposes: an HPA controller
// (the pure model in model/hpa_model.h, on the wall clock), a Deployment controller whose pods are
// ready `podStartupDelay` after they are created, and a load model read from each Deployment's
// `sim.fedhpa.io/demand` annotation.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clusters/sim/model/hpa_model.h"
#include "clusters/sim/network_faults.h"
#include "clusters/sim/service_account_tokens.h"
#include "clusters/sim/service_allocator.h"
#include "federation/apiserver/api_server.h"
#include "federation/common/time_source.h"

namespace fedhpa::sim {

inline constexpr const char* kDemandAnnotation = "sim.fedhpa.io/demand";

struct MemberSimulatorOptions {
  std::string name = "member1";
  std::chrono::milliseconds hpaSyncPeriod{15000};  // --horizontal-pod-autoscaler-sync-period
  ControllerOptions controller;                     // the HPA controller's other flags
  // From a pod's creation to its Ready condition (scheduling, image pull, start, readiness probe).
  // Until then it is Pending: no traffic, no metrics, not in readyReplicas. 0: ready at once.
  std::chrono::milliseconds podStartupDelay{0};
  // Every request waits latency (+ up to latencyJitter, uniformly) before it is served; the
  // server's threads do not wait, so concurrent requests wait together.
  std::chrono::milliseconds latency{0};
  std::chrono::milliseconds latencyJitter{0};
  apiserver::http::ServerOptions http;
  // AlwaysAllow (the default, what `fedhpa up` ran before) or RBAC over the same bootstrap policy
  // as the federation API server's, plus whatever RBAC objects are created in the member.
  apiserver::authz::AuthorizationMode authorization = apiserver::authz::AuthorizationMode::AlwaysAllow;
  // The tokens of the serviceaccounts/token subresource, which the member always authenticates.
  TokenLifetimes tokenLifetimes;
  // The service CIDR and node port range Services are allocated from.
  ServiceAllocatorOptions services;
};

class MemberSimulator {
 public:
  explicit MemberSimulator(MemberSimulatorOptions options);
  ~MemberSimulator();

  std::uint16_t start();
  void stop();
  apiserver::ApiServer& server() { return *server_; }

  // One pass of the simulated controllers (the loop calls it every sync period; tests may too).
  void syncOnce(TimePoint now);

  // A member that hangs: until unfreeze(), no request is served and nothing is sent (responses,
  // watch events), while connections stay open. The simulated controllers carry on, as a
  // cluster's do behind a network partition. POST /debug/freeze and /debug/unfreeze do the same.
  void freeze() { faults_->freeze(); }
  void unfreeze() { faults_->unfreeze(); }
  bool frozen() const { return faults_->frozen(); }

 private:
  void run();
  void syncDeployments(TimePoint now);
  std::vector<Pod> podsOf(const nlohmann::json& deployment, TimePoint now);
  std::optional<std::string> serviceAccountUid(const std::string& namespaceName, const std::string& name);
  std::optional<nlohmann::json> storedService(const std::string& namespaceName, const std::string& name);
  void syncHpa(const nlohmann::json& hpa, TimePoint now);
  void recordEvent(const nlohmann::json& object, const SyncResult::Event& event, TimePoint now);

  MemberSimulatorOptions options_;
  // Before the server: the Service store's write hooks use it until the server stops.
  ServiceAllocator serviceAllocator_;
  apiserver::ResourceStore* services_ = nullptr;
  RealTimeSource time_;  // tokens' issue and expiry times
  // Before the server: its authenticator and token subresource use them until it stops.
  ServiceAccountTokens tokens_;
  apiserver::ResourceStore* serviceAccounts_ = nullptr;
  std::shared_ptr<NetworkFaults> faults_;
  std::unique_ptr<apiserver::ApiServer> server_;
  apiserver::ResourceStore& hpas_;
  apiserver::ResourceStore& deployments_;
  apiserver::ResourceStore& events_;
  std::map<std::string, HpaMemory> memories_;  // by HPA uid
  // Each Deployment's pods by creation time, oldest first (by Deployment uid). Only the sync
  // passes touch it, as memories_: the loop's, or a test's syncOnce on a simulator not started.
  std::map<std::string, std::vector<TimePoint>> podsCreated_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread loop_;
};

}  // namespace fedhpa::sim
