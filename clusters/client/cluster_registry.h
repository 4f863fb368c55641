// The member clusters the federation knows: every federation/v1beta1 Cluster and the Secret its
// spec.secretRef names (namespace federation-system, key "kubeconfig") become a live client.
// Adding, changing or deleting either updates the registry. A prober sets each Cluster's Ready
// condition from /readyz (then /healthz), with hysteresis as kube's health checks have it; whoever
// owns it runs its rounds (the controller-manager: on a ticker of its ControllerRuntime).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clusters/client/credential_source.h"
#include "clusters/client/informer.h"
#include "clusters/client/kubeconfig.h"
#include "federation/common/time_source.h"

namespace fedhpa::clusters {

inline constexpr const char* kFederationNamespace = "federation-system";
inline constexpr const char* kKubeconfigSecretKey = "kubeconfig";

extern const Resource kClusters;
extern const Resource kSecrets;

using ClientFactory = std::function<std::shared_ptr<KubeClient>(const RestConfig&)>;

// The name of the Secret a Cluster's spec.secretRef names (the Cluster's own name when it names none).
std::string secretNameOf(const json& cluster);

// The member's RestConfig: the Secret's kubeconfig (its current context), aimed at the Cluster's
// serverAddress. Throws KubeconfigError when the Secret does not hold a usable kubeconfig.
RestConfig memberRestConfig(const json& cluster, const json& secret);

// A member's credential is the one its Secret holds now. The registry hands a changed credential
// (a rotated token, a re-join's) to the member's client in place (update), so its informers and
// connections carry on; and should the member see a new token before the Secret's watch event
// reaches the registry, after a 401 the Secret is read again from the federation API, and a
// credential that differs from the rejected one is used at once.
class SecretCredentials final : public CredentialSource {
 public:
  SecretCredentials(KubeClient& federation, json cluster, std::string secretName, Credential initial);
  Credential current() override;
  bool rejected(const Credential& credential) override;
  void update(Credential credential);

 private:
  KubeClient& federation_;
  const json cluster_;
  const std::string secretName_;
  std::mutex mutex_;
  Credential credential_;
};

// What the controllers read of a Cluster on every reconcile: its labels (cluster selectors) and its
// Ready condition (health). The Clusters cache keeps JSON text, which each get() parses again, so
// the registry decodes each version of a Cluster once, as its informer delivers it, and hands
// every reader that version's summary.
struct ClusterSummary {
  struct Ready {
    bool status = false;             // the condition's status is "True"
    std::string lastTransitionTime;  // RFC 3339, as written
  };
  std::string name;
  std::string resourceVersion;
  std::map<std::string, std::string> labels;  // the string-valued ones
  std::optional<Ready> ready;                 // nullopt: no Ready condition (not probed yet)

  static ClusterSummary of(const json& cluster);
};

class ClusterRegistry {
 public:
  // onChange(name) runs on an informer thread whenever a member's client appears, changes or goes;
  // onReady(name) when a Cluster's Ready condition turns True (from False or none), once the cache
  // that cluster() reads shows it.
  ClusterRegistry(KubeClient& federation, ClientFactory factory, std::function<void(const std::string&)> onChange = {},
                  std::function<void(const std::string&)> onReady = {});
  ~ClusterRegistry();

  void start();
  void stop();
  bool waitForSync(std::chrono::milliseconds timeout);

  std::shared_ptr<KubeClient> client(const std::string& cluster) const;  // nullptr when unknown
  std::vector<std::string> names() const;
  std::optional<json> cluster(const std::string& name) const;
  // The Cluster `name` as its informer last delivered it; nullptr when there is none. The same
  // object until the Cluster changes.
  std::shared_ptr<const ClusterSummary> summary(const std::string& name) const;
  // The Secret the Cluster `name` names, as the cache holds it.
  std::optional<json> secret(const std::string& name) const;
  // The Clusters cache's Informer::changes and waitForChange: wait for what it will show.
  std::uint64_t clusterChanges() const;
  bool waitForClusterChange(std::uint64_t seen, std::chrono::milliseconds timeout);

 private:
  void refresh(const std::string& cluster);
  void refreshAll();

  KubeClient& federation_;
  ClientFactory factory_;
  std::function<void(const std::string&)> onChange_;
  std::function<void(const std::string&)> onReady_;
  std::unique_ptr<Informer> clusters_;
  std::unique_ptr<Informer> secrets_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ClusterSummary>> summaries_;  // by name
  std::map<std::string, std::shared_ptr<KubeClient>> clients_;
  std::map<std::string, std::shared_ptr<SecretCredentials>> credentials_;  // each client's
  // How each client reaches its member (address, CA, server name, proxy): a change of these builds
  // a new client; a change of the credential alone does not.
  std::map<std::string, std::string> connectionFingerprints_;
};

// What the process running the prober knows of a member beyond its health (the controller-manager:
// how many federated HPAs it placed there, its calls' circuit breaker). The prober publishes it on
// the member's Cluster with each probe's status write, so it costs no write of its own.
struct MemberReport {
  std::optional<std::int64_t> placedHpas;          // status.placedHPAs; nullopt: not known (removed)
  std::optional<std::string> circuitBreakerState;  // status.circuitBreakerState: Closed, Open, HalfOpen
};
using MemberReporter = std::function<MemberReport(const std::string& cluster)>;

struct ProberOptions {
  int failureThreshold = 3;  // consecutive failed probes before Ready turns False
  int successThreshold = 1;
  MemberReporter report;  // unset: the prober writes neither field
};

// Whether a Cluster's Ready condition is True.
bool clusterReady(const json& cluster);

// Probes every registered member and writes its Cluster's Ready condition through the federation
// API, with the probe's round-trip time (status.probeRoundTripMilliseconds) and the MemberReport:
// one status write per member per probe, whatever changed. A member that answers 401 is reachable
// but refuses the federation's credential: Ready False with reason CredentialExpired when the
// stored token's expiry has passed (no controller renewed it in time), CredentialRejected
// otherwise, and a message that says to join it again. It has no thread of its own: its owner
// calls probeAll() every period (and sooner for a new member), one round at a time.
class ClusterHealthProber {
 public:
  // Probe and transition times come from `time`.
  ClusterHealthProber(KubeClient& federation, ClusterRegistry& registry, TimeSource& time, ProberOptions options = {});
  // One round: every member at once, returning once each has been probed and its status written.
  void probeAll();

 private:
  struct Streak {
    bool ready = false;
    bool known = false;
    int count = 0;
  };
  void probe(const std::string& name);
  std::pair<std::string, std::string> credentialRefused(const std::string& name);

  KubeClient& federation_;
  ClusterRegistry& registry_;
  TimeSource& time_;
  ProberOptions options_;
  std::map<std::string, Streak> streaks_;  // under mutex_
  std::mutex mutex_;
};

}  // namespace fedhpa::clusters
