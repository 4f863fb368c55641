#include "clusters/client/cluster_registry.h"

#include <cmath>
#include <system_error>
#include <thread>
#include <tuple>

#include "clusters/client/stored_token.h"
#include "federation/api/machinery/base64.h"
#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::clusters {

const Resource kClusters{"federation", "v1beta1", "clusters", false};
const Resource kSecrets{"", "v1", "secrets", true};

std::string secretNameOf(const json& cluster) {
  const json name = cluster.value("spec", json::object()).value("secretRef", json::object()).value("name", json());
  return name.is_string() ? name.get<std::string>() : cluster["metadata"].value("name", "");
}

RestConfig memberRestConfig(const json& cluster, const json& secret) {
  const std::string name = cluster["metadata"].value("name", "");
  const json data = secret.value("data", json::object());
  if (!data.contains(kKubeconfigSecretKey) || !data[kKubeconfigSecretKey].is_string())
    throw KubeconfigError("secret " + std::string(kFederationNamespace) + "/" + secret["metadata"].value("name", "") +
                          ": data.kubeconfig is missing");
  const auto text = api::machinery::decodeBase64(data[kKubeconfigSecretKey].get<std::string>());
  if (!text) throw KubeconfigError("cluster " + name + ": data.kubeconfig is not base64");
  RestConfig config = parseKubeconfig(*text, "secret for cluster " + name).resolve();
  const json addresses = cluster.value("spec", json::object()).value("serverAddressByClientCIDRs", json::array());
  if (!addresses.empty() && addresses[0].contains("serverAddress")) config.server = addresses[0]["serverAddress"];
  return config;
}

SecretCredentials::SecretCredentials(KubeClient& federation, json cluster, std::string secretName, Credential initial)
    : federation_(federation), cluster_(std::move(cluster)), secretName_(std::move(secretName)), credential_(std::move(initial)) {}

Credential SecretCredentials::current() {
  std::lock_guard lock(mutex_);
  return credential_;
}

bool SecretCredentials::rejected(const Credential& credential) {
  std::lock_guard lock(mutex_);
  if (credential_ != credential) return true;
  try {
    const RestConfig fresh = memberRestConfig(cluster_, federation_.get(kSecrets, kFederationNamespace, secretName_));
    credential_ = {fresh.bearerToken, fresh.clientCertPem, fresh.clientKeyPem};
  } catch (const std::exception& error) {
    FEDHPA_LOG(warning) << "cluster " << cluster_["metadata"].value("name", "") << ": rereading secret " << secretName_
                        << " after a 401: " << error.what();
    return false;
  }
  return credential_ != credential;
}

void SecretCredentials::update(Credential credential) {
  std::lock_guard lock(mutex_);
  credential_ = std::move(credential);
}

bool clusterReady(const json& cluster) {
  const auto status = cluster.find("status");
  if (status == cluster.end() || !status->is_object()) return false;
  for (const auto& condition : status->value("conditions", json::array()))
    if (condition.is_object() && condition.value("type", "") == "Ready") return condition.value("status", "") == "True";
  return false;
}

ClusterSummary ClusterSummary::of(const json& cluster) {
  ClusterSummary summary;
  const json metadata = cluster.value("metadata", json::object());
  summary.name = metadata.value("name", "");
  summary.resourceVersion = metadata.value("resourceVersion", "");
  if (const auto labels = metadata.find("labels"); labels != metadata.end() && labels->is_object())
    for (const auto& [key, value] : labels->items())
      if (value.is_string()) summary.labels[key] = value.get<std::string>();
  const auto status = cluster.find("status");
  if (status == cluster.end() || !status->is_object()) return summary;
  for (const auto& condition : status->value("conditions", json::array())) {
    if (!condition.is_object() || condition.value("type", "") != "Ready") continue;
    summary.ready = ClusterSummary::Ready{condition.value("status", "") == "True", condition.value("lastTransitionTime", "")};
    break;
  }
  return summary;
}

ClusterRegistry::ClusterRegistry(KubeClient& federation, ClientFactory factory, std::function<void(const std::string&)> onChange,
                                 std::function<void(const std::string&)> onReady)
    : federation_(federation), factory_(std::move(factory)), onChange_(std::move(onChange)), onReady_(std::move(onReady)) {}

ClusterRegistry::~ClusterRegistry() { stop(); }

void ClusterRegistry::start() {
  // The summary first: what a change of the member's client sets off reads it.
  auto byCluster = [this](const json& cluster) {
    auto summary = std::make_shared<const ClusterSummary>(ClusterSummary::of(cluster));
    const std::string name = summary->name;
    {
      std::lock_guard lock(mutex_);
      summaries_[name] = std::move(summary);
    }
    refresh(name);
  };
  auto gone = [this](const json& cluster) {
    const std::string name = cluster["metadata"].value("name", "");
    {
      std::lock_guard lock(mutex_);
      summaries_.erase(name);
    }
    refresh(name);
  };
  // A member that answers again: what waited for it need not wait for the next resync.
  auto readyAgain = [this, byCluster](const json& before, const json& now) {
    byCluster(now);
    if (onReady_ && clusterReady(now) && !clusterReady(before)) onReady_(now["metadata"].value("name", ""));
  };
  clusters_ = std::make_unique<Informer>(federation_, kClusters, InformerHandlers{byCluster, readyAgain, gone});
  // A Secret may stand behind any cluster; which one is cheap to find out again.
  auto bySecret = [this](const json&) { refreshAll(); };
  InformerOptions secretOptions;
  secretOptions.namespaceName = kFederationNamespace;
  secrets_ = std::make_unique<Informer>(
      federation_, kSecrets, InformerHandlers{bySecret, [=](const json&, const json& now) { bySecret(now); }, bySecret}, secretOptions);
  secrets_->start();
  clusters_->start();
}

void ClusterRegistry::stop() {
  if (clusters_) clusters_->stop();
  if (secrets_) secrets_->stop();
}

bool ClusterRegistry::waitForSync(std::chrono::milliseconds timeout) {
  return secrets_->waitForSync(timeout) && clusters_->waitForSync(timeout);
}

std::uint64_t ClusterRegistry::clusterChanges() const { return clusters_ ? clusters_->changes() : 0; }

bool ClusterRegistry::waitForClusterChange(std::uint64_t seen, std::chrono::milliseconds timeout) {
  return clusters_ && clusters_->waitForChange(seen, timeout);
}

std::shared_ptr<KubeClient> ClusterRegistry::client(const std::string& cluster) const {
  std::lock_guard lock(mutex_);
  const auto it = clients_.find(cluster);
  return it == clients_.end() ? nullptr : it->second;
}

std::vector<std::string> ClusterRegistry::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, client] : clients_) out.push_back(name);
  return out;
}

std::optional<json> ClusterRegistry::cluster(const std::string& name) const {
  return clusters_ ? clusters_->get("", name) : std::nullopt;
}

std::shared_ptr<const ClusterSummary> ClusterRegistry::summary(const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = summaries_.find(name);
  return it == summaries_.end() ? nullptr : it->second;
}

std::optional<json> ClusterRegistry::secret(const std::string& name) const {
  const auto cluster = this->cluster(name);
  if (!cluster || !secrets_) return std::nullopt;
  return secrets_->get(kFederationNamespace, secretNameOf(*cluster));
}

void ClusterRegistry::refreshAll() {
  if (!clusters_) return;
  for (const auto& cluster : clusters_->list()) refresh(cluster["metadata"].value("name", ""));
  // Clients of clusters that are gone.
  for (const auto& name : names())
    if (!clusters_->get("", name)) refresh(name);
}

namespace {

std::string connectionFingerprint(const RestConfig& config) {
  return config.server + "\n" + config.caPem + "\n" + config.tlsServerName + "\n" + config.proxyUrl + "\n" +
         (config.insecureSkipTlsVerify ? "insecure" : "verify");
}

}  // namespace

void ClusterRegistry::refresh(const std::string& name) {
  std::optional<json> cluster = clusters_ ? clusters_->get("", name) : std::nullopt;
  std::optional<RestConfig> config;
  std::string secretName;
  if (cluster) {
    secretName = secretNameOf(*cluster);
    const auto secret = secrets_ ? secrets_->get(kFederationNamespace, secretName) : std::nullopt;
    if (secret) {
      try {
        config = memberRestConfig(*cluster, *secret);
      } catch (const KubeconfigError& error) {
        FEDHPA_LOG(warning) << "cluster " << name << ": " << error.what();
      }
    }
  }
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    if (config) {
      const Credential credential{config->bearerToken, config->clientCertPem, config->clientKeyPem};
      const std::string fingerprint = connectionFingerprint(*config);
      const auto fingerprintNow = connectionFingerprints_.find(name);
      if (fingerprintNow != connectionFingerprints_.end() && fingerprintNow->second == fingerprint) {
        // The same member reached the same way: a new credential (a rotation, a re-join) is the
        // client's next request's, and its informers and connections carry on.
        credentials_[name]->update(credential);
      } else {
        auto credentials = std::make_shared<SecretCredentials>(federation_, *cluster, secretName, credential);
        config->credentials = credentials;
        try {
          clients_[name] = factory_(*config);
          credentials_[name] = std::move(credentials);
          connectionFingerprints_[name] = fingerprint;
          changed = true;
        } catch (const std::exception& error) {
          // An address no client can be built for ("10.0.0.1:6443", no scheme: the Cluster API
          // takes any non-empty string) leaves the member without a client, like an unreadable
          // kubeconfig; thrown on, it would end the refresh of every member after this one.
          FEDHPA_LOG(warning) << "cluster " << name << ": no client for " << config->server << ": " << error.what();
          config.reset();
        }
      }
    }
    if (!config) {
      changed = clients_.erase(name) > 0;
      credentials_.erase(name);
      connectionFingerprints_.erase(name);
    }
  }
  if (changed) {
    FEDHPA_LOG(info) << "cluster " << name << (config ? ": client ready" : ": client removed");
    if (onChange_) onChange_(name);
  }
}

ClusterHealthProber::ClusterHealthProber(KubeClient& federation, ClusterRegistry& registry, TimeSource& time,
                                         ProberOptions options)
    : federation_(federation), registry_(registry), time_(time), options_(options) {}

// Every member at once, as kubefed's cluster health check does: one probe waits out its timeout
// on a member that stopped answering, and one after another that wait would delay every other
// member's Ready condition (and, at 50 ms a round trip, make a round of 10 members take 0.5 s).
void ClusterHealthProber::probeAll() {
  const auto probeLogged = [this](const std::string& name) {
    try {
      probe(name);
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "probing cluster " << name << ": " << error.what();
    }
  };
  std::vector<std::thread> probes;
  for (const auto& name : registry_.names()) {
    try {
      probes.emplace_back(probeLogged, name);
    } catch (const std::system_error& error) {
      // No thread to be had (the process's limit): this member is probed here instead, since the
      // vector's destruction with joinable threads in it would end the process.
      FEDHPA_LOG(warning) << "probing cluster " << name << " without a thread of its own: " << error.what();
      probeLogged(name);
    }
  }
  for (auto& thread : probes) thread.join();
}

// Why the member answered 401, as the Ready condition's reason and message.
std::pair<std::string, std::string> ClusterHealthProber::credentialRefused(const std::string& name) {
  const std::string rejoin = "; join it again: fedhpa join " + name + " --cluster-context <its context>";
  std::optional<StoredToken> stored;
  const auto cluster = registry_.cluster(name);
  const auto secret = registry_.secret(name);
  try {
    if (cluster && secret) stored = storedToken(*cluster, *secret);
  } catch (const KubeconfigError&) {
    // No token to tell of: the plain answer below.
  }
  if (stored && time_.systemTime() >= stored->schedule.expiresAt)
    return {"CredentialExpired", "the federation's token for this member expired at " +
                                     api::formatRfc3339(stored->schedule.expiresAt) +
                                     " and no controller-manager renewed it in time (it does once 80% of its lifetime has passed)" +
                                     rejoin};
  return {"CredentialRejected", "the member refused the federation's credential (HTTP 401: its ServiceAccount deleted, or "
                                "the member's signing keys changed)" + rejoin};
}

void ClusterHealthProber::probe(const std::string& name) {
  const auto client = registry_.client(name);
  if (!client) return;
  bool healthy = false;
  std::string message;
  // The round trip of the request that got the answer, on the prober's clock; none without one.
  std::optional<std::int64_t> roundTripMilliseconds;
  const auto timed = [&](const std::string& path) {
    const auto sent = time_.monotonicTime();
    const int code = client->probe(path);
    const std::chrono::duration<double, std::milli> took = time_.monotonicTime() - sent;
    roundTripMilliseconds = std::llround(took.count());
    return code;
  };
  std::string failure = "ClusterNotReachable";
  try {
    int code = timed("/readyz");
    if (code == 404) code = timed("/healthz");  // older servers have no /readyz
    healthy = code == 200;
    message = healthy ? "/readyz responded with ok" : "/readyz responded with HTTP " + std::to_string(code);
    if (code == 401) std::tie(failure, message) = credentialRefused(name);
  } catch (const ClientError& error) {
    roundTripMilliseconds.reset();
    message = error.what();
  }
  // Hysteresis: a cluster's first probe decides at once; after that a change of state must be seen
  // threshold times in a row, so one lost probe does not move a cluster's share.
  std::string status;
  {
    std::lock_guard lock(mutex_);  // the members' probes run at once
    Streak& streak = streaks_[name];
    if (!streak.known) {
      streak = {healthy, true, 0};
    } else if (healthy == streak.ready) {
      streak.count = 0;
    } else if (++streak.count >= (healthy ? options_.successThreshold : options_.failureThreshold)) {
      streak = {healthy, true, 0};
    }
    status = streak.known && streak.ready ? "True" : "False";
  }
  const std::string now = api::formatRfc3339(time_.systemTime());
  const auto cluster = registry_.cluster(name);
  std::string since = now;
  if (cluster)
    for (const auto& condition : cluster->value("status", json::object()).value("conditions", json::array()))
      if (condition.value("type", "") == "Ready" && condition.value("status", "") == status)
        since = condition.value("lastTransitionTime", now);
  const json ready = {{"type", "Ready"},
                      {"status", status},
                      {"lastProbeTime", now},
                      {"lastTransitionTime", since},
                      {"reason", status == "True" ? "ClusterReady" : failure},
                      {"message", message}};
  const json offline = {{"type", "Offline"},
                        {"status", status == "True" ? "False" : "True"},
                        {"lastProbeTime", now},
                        {"lastTransitionTime", since},
                        {"reason", status == "True" ? "ClusterReachable" : failure},
                        {"message", message}};
  // A merge patch: null removes a field whose value is not known now.
  const auto orNull = [](const auto& value) { return value ? json(*value) : json(nullptr); };
  json patch = {{"conditions", json::array({ready, offline})}, {"probeRoundTripMilliseconds", orNull(roundTripMilliseconds)}};
  if (options_.report) {
    const MemberReport report = options_.report(name);
    patch["placedHPAs"] = orNull(report.placedHpas);
    patch["circuitBreakerState"] = orNull(report.circuitBreakerState);
  }
  federation_.mergePatch(kClusters, "", name, {{"status", patch}}, "status");
}

}  // namespace fedhpa::clusters
