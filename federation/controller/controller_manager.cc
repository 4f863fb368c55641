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
      events_(federation),
      reconciler_(federation, *this, options.policy, metrics_, events_),
      deploymentReconciler_(federation, *this, metrics_) {}

ControllerManager::~ControllerManager() { stop(); }

void ControllerManager::start() {
  registry_.start();
  auto enqueue = [this](const json& hpa) { queue_.add(clusters::objectKey(hpa)); };
  federatedHpas_ = std::make_unique<clusters::Informer>(
      federation_, kHpas,
      clusters::InformerHandlers{enqueue, [=](const json&, const json& now) { enqueue(now); }, enqueue});
  federatedHpas_->start();
  auto enqueueDeployment = [this](const json& deployment) { deploymentQueue_.add(clusters::objectKey(deployment)); };
  federatedDeployments_ = std::make_unique<clusters::Informer>(
      federation_, kDeployments,
      clusters::InformerHandlers{enqueueDeployment, [=](const json&, const json& now) { enqueueDeployment(now); }, enqueueDeployment});
  federatedDeployments_->start();
  prober_.start();
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { worker(); });
  workers_.emplace_back([this] { deploymentWorker(); });
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
  deploymentQueue_.shutDown();
  for (auto& worker : workers_) worker.join();
  workers_.clear();
  prober_.stop();
  if (federatedHpas_) federatedHpas_->stop();
  if (federatedDeployments_) federatedDeployments_->stop();
  {
    std::lock_guard lock(membersMutex_);
    memberHpas_.clear();
    memberDeployments_.clear();
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

void ControllerManager::deploymentWorker() {
  while (auto key = deploymentQueue_.get()) {
    try {
      deploymentReconciler_.reconcile(*key);
      deploymentQueue_.forget(*key);
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "reconcile deployment " << *key << ": " << error.what() << "; will retry";
      deploymentQueue_.addRateLimited(*key);
    }
    deploymentQueue_.done(*key);
  }
}

void ControllerManager::enqueueAll() {
  if (federatedHpas_)
    for (const auto& hpa : federatedHpas_->list()) queue_.add(clusters::objectKey(hpa));
  if (federatedDeployments_)
    for (const auto& deployment : federatedDeployments_->list()) deploymentQueue_.add(clusters::objectKey(deployment));
}

// A member appeared, changed or went: watch its HPAs (a change there is a change of the
// federated HPA of the same name), and look at every federated HPA again.
void ControllerManager::onMemberChange(const std::string& cluster) {
  {
    std::lock_guard lock(membersMutex_);
    memberHpas_.erase(cluster);
    memberDeployments_.erase(cluster);
    if (auto client = registry_.client(cluster)) {
      clusters::InformerOptions options;
      options.selectors.labelSelector = std::string(kManagedByLabel) + "=" + kManagedByValue;
      auto watchMember = [&](const clusters::Resource& resource, WorkQueue& queue) {
        auto enqueue = [&queue](const json& object) { queue.add(clusters::objectKey(object)); };
        auto informer = std::make_unique<clusters::Informer>(
            *client, resource, clusters::InformerHandlers{enqueue, [=](const json&, const json& now) { enqueue(now); }, enqueue},
            options);
        informer->start();
        return informer;
      };
      // The informers use the client; this map keeps it alive for as long as they run.
      memberClients_[cluster] = client;
      memberHpas_[cluster] = watchMember(kHpas, queue_);
      memberDeployments_[cluster] = watchMember(kDeployments, deploymentQueue_);
      prober_.probeSoon();
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
