#include "federation/controller/controller_manager.h"

#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::json;

namespace {

// Ready, or NotReady for less than the grace: a member that blinks keeps its share.
bool eligible(const json& cluster, std::chrono::milliseconds grace) {
  for (const auto& condition : cluster.value("status", json::object()).value("conditions", json::array())) {
    if (condition.value("type", "") != "Ready") continue;
    if (condition.value("status", "") == "True") return true;
    const auto since = api::parseRfc3339(condition.value("lastTransitionTime", ""));
    return since && std::chrono::system_clock::now() - *since < grace;
  }
  return false;  // never probed
}

}  // namespace

ControllerManager::ControllerManager(clusters::KubeClient& federation, clusters::ClientFactory memberClients,
                                     ControllerOptions options)
    : federation_(federation),
      options_(options),
      registry_(federation, std::move(memberClients), [this](const std::string& cluster) { onMemberChange(cluster); }),
      prober_(federation, registry_, clusters::ProberOptions{options.clusterProbePeriod, 3, 1}),
      reconciler_(federation, *this, options.policy, metrics_) {}

ControllerManager::~ControllerManager() { stop(); }

void ControllerManager::start() {
  registry_.start();
  auto enqueue = [this](const json& hpa) { queue_.add(clusters::objectKey(hpa)); };
  federatedHpas_ = std::make_unique<clusters::Informer>(
      federation_, kHpas,
      clusters::InformerHandlers{enqueue, [=](const json&, const json& now) { enqueue(now); }, enqueue});
  federatedHpas_->start();
  prober_.start();
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { worker(); });
  resync_ = std::thread([this] { resyncLoop(); });
}

void ControllerManager::stop() {
  {
    std::lock_guard lock(stopMutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  stopped_.notify_all();
  if (resync_.joinable()) resync_.join();
  queue_.shutDown();
  for (auto& worker : workers_) worker.join();
  workers_.clear();
  prober_.stop();
  if (federatedHpas_) federatedHpas_->stop();
  {
    std::lock_guard lock(membersMutex_);
    memberHpas_.clear();
  }
  registry_.stop();
}

std::vector<Member> ControllerManager::members() {
  std::vector<Member> out;
  for (const auto& name : registry_.names()) {
    const auto cluster = registry_.cluster(name);
    auto client = registry_.client(name);
    if (!cluster || !client) continue;
    std::map<std::string, std::string> labels;
    const json clusterLabels = (*cluster)["metadata"].value("labels", json::object());
    for (const auto& [key, value] : clusterLabels.items())
      if (value.is_string()) labels[key] = value.get<std::string>();
    const bool ready = eligible(*cluster, options_.clusterUnhealthyGrace);
    metrics_.setClusterReady(name, ready);
    out.push_back({name, labels, ready, std::move(client)});
  }
  return out;
}

void ControllerManager::worker() {
  while (auto key = queue_.get()) {
    const auto started = std::chrono::steady_clock::now();
    bool failed = false;
    try {
      reconciler_.reconcile(*key);
      queue_.forget(*key);
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "reconcile " << *key << ": " << error.what() << "; will retry";
      queue_.addRateLimited(*key);
      failed = true;
    }
    metrics_.observeReconcile(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), failed);
    queue_.done(*key);
  }
}

void ControllerManager::enqueueAll() {
  if (!federatedHpas_) return;
  for (const auto& hpa : federatedHpas_->list()) queue_.add(clusters::objectKey(hpa));
}

// A member appeared, changed or went: watch its HPAs (a change there is a change of the
// federated HPA of the same name), and look at every federated HPA again.
void ControllerManager::onMemberChange(const std::string& cluster) {
  {
    std::lock_guard lock(membersMutex_);
    memberHpas_.erase(cluster);
    if (auto client = registry_.client(cluster)) {
      clusters::InformerOptions options;
      options.selectors.labelSelector = std::string(kManagedByLabel) + "=" + kManagedByValue;
      auto enqueue = [this](const json& hpa) { queue_.add(clusters::objectKey(hpa)); };
      auto informer = std::make_unique<clusters::Informer>(
          *client, kHpas, clusters::InformerHandlers{enqueue, [=](const json&, const json& now) { enqueue(now); }, enqueue},
          options);
      informer->start();
      // The informer keeps the client alive through the registry's shared_ptr for as long as it runs.
      memberClients_[cluster] = client;
      memberHpas_[cluster] = std::move(informer);
    } else {
      memberClients_.erase(cluster);
    }
  }
  enqueueAll();
}

void ControllerManager::resyncLoop() {
  std::unique_lock lock(stopMutex_);
  while (!stopped_.wait_for(lock, options_.resyncPeriod, [&] { return stopping_; })) {
    lock.unlock();
    enqueueAll();
    lock.lock();
  }
}

}  // namespace fedhpa::controller
