#include "federation/controller/controller_manager.h"

#include <algorithm>
#include <iterator>

#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::json;

namespace {

// HPAs, federated (source "") or a member's: an add or update that only echoes the reconciler's
// own last write of the object brings nothing to reconcile (the reconcile that wrote it planned
// with what it wrote), so it is not queued; anything else is.
clusters::InformerHandlers enqueueingHpas(WorkQueue& queue, HpaReconciler& reconciler, const std::string& source) {
  auto enqueue = [&queue](const json& object) { queue.add(clusters::objectKey(object)); };
  auto unlessEcho = [&queue, &reconciler, source](const json& object) {
    if (!reconciler.echoesOwnWrite(source, object)) queue.add(clusters::objectKey(object));
  };
  return {unlessEcho, [unlessEcho](const json&, const json& now) { unlessEcho(now); }, enqueue};
}

}  // namespace

ControllerManager::ControllerManager(clusters::KubeClient& federation, clusters::ClientFactory memberClients,
                                     ControllerOptions options, TimeSource& time)
    : options_(options),
      time_(time),
      registry_(federation, std::move(memberClients), [this](const std::string& cluster) { onMemberChange(cluster); }),
      prober_(federation, registry_, time,
              clusters::ProberOptions{options.clusterProbePeriod, 3, 1, [this](const std::string& cluster) { return reportOn(cluster); }}),
      rotator_(federation, registry_, time, options.tokenRotation),
      // Half the workers at most on resync keys: the other half is free the moment an event comes.
      queue_(time, std::chrono::milliseconds(100), std::chrono::seconds(30),
             static_cast<std::size_t>(std::max(1, options.workers / 2))),
      deploymentQueue_(time),
      events_(federation, time),
      calls_(time, options.memberCalls),
      // Half as many writers as workers: a status write is at most one per reconcile, and waits
      // for the federation API's commit alone.
      statusWriter_(static_cast<std::size_t>(std::max(1, options.workers / 2)), [this](const std::string& key) { queue_.addRateLimited(key); }),
      informers_(federation),
      federatedHpas_(informers_.informer(kHpas, enqueueingHpas(queue_, reconciler_, ""))),
      federatedDeployments_(informers_.informer(kDeployments, enqueueing(deploymentQueue_))),
      reconciler_({federation, federatedHpas_, federatedDeployments_, *this, calls_, time, metrics_, events_, statusWriter_,
                   [this](const std::string& key) { queue_.add(key); }},
                  options.policy),
      deploymentReconciler_({federation, federatedHpas_, federatedDeployments_, *this, calls_, time, metrics_, events_, statusWriter_}),
      karmada_(federation, informers_, events_, time, options.karmada),
      runtime_("HPA federation controller", [this] { return waitForCachesAndProbe(); },
               {{"HorizontalPodAutoscaler", &queue_, [this](const std::string& key) { reconcileHpa(key); }, options.workers},
                {"Deployment", &deploymentQueue_, [this](const std::string& key) { deploymentReconciler_.reconcile(key); }}},
               {{options.resyncPeriod, [this] { enqueueAll(); }},
                {options.tokenRotation.checkPeriod, [this] { rotator_.rotateDue(); }}}) {}

ControllerManager::~ControllerManager() { stop(); }

void ControllerManager::start() {
  // Started only by the Lease's holder (or without leader election): leading from here on.
  metrics_.setLeading(true);
  registry_.start();
  informers_.start();
  karmada_.start();
  runtime_.start();
}

// client-go's WaitForCacheSync, then one probe round: a worker that ran before would plan from
// empty caches ("no member holds anything") or over members whose health nobody has looked at.
bool ControllerManager::waitForCachesAndProbe() {
  const auto stopping = [this] { return runtime_.stopping(); };
  const auto step = std::chrono::milliseconds(100);
  while (!registry_.waitForSync(step))
    if (stopping()) return false;
  if (!waitForSync({&federatedHpas_, &federatedDeployments_}, stopping)) return false;
  prober_.probeAll();
  // The probe wrote each member's Ready condition; wait (briefly) until the cluster cache shows it.
  // Each wait ends when the cache changes, not at a polling tick (a tick cost every start ~100 ms).
  const auto probeDeadline = time_.monotonicTime() + std::chrono::seconds(5);
  auto probed = [&] {
    for (const auto& name : registry_.names()) {
      const auto cluster = registry_.cluster(name);
      if (!cluster || cluster->value("status", json::object()).value("conditions", json::array()).empty()) return false;
    }
    return true;
  };
  for (;;) {
    const std::uint64_t seen = registry_.clusterChanges();
    if (stopping() || probed() || time_.monotonicTime() >= probeDeadline) break;
    registry_.waitForClusterChange(seen, step);
  }
  // Members get a bounded wait: one that is down must not keep the rest from being reconciled.
  // Each informer's waitForSync returns as soon as it has synced.
  const auto memberDeadline = time_.monotonicTime() + options_.memberSyncTimeout;
  auto membersSynced = [&] {
    std::vector<std::shared_ptr<MemberWatch>> watches;  // held: a member may be replaced meanwhile
    {
      std::lock_guard lock(membersMutex_);
      for (const auto& [name, watch] : memberWatches_) watches.push_back(watch);
    }
    for (const auto& watch : watches)
      if (!watch->hpas->waitForSync(step) || !watch->deployments->waitForSync(step)) return false;
    return true;
  };
  while (!stopping() && !membersSynced() && time_.monotonicTime() < memberDeadline) {
    // membersSynced() does the waiting: up to `step` on the first informer that has not synced
    // (those before it have), then the next pass looks again from the start.
  }
  if (stopping()) return false;
  prober_.start();
  return true;
}

void ControllerManager::stop() {
  metrics_.setLeading(false);
  runtime_.stop();
  karmada_.stop();
  statusWriter_.stop();
  prober_.stop();
  informers_.stop();
  registry_.stop();
  std::lock_guard lock(membersMutex_);
  memberWatches_.clear();
}

MemberHealth ControllerManager::healthOf(const std::string& name, const std::optional<json>& cluster, const MemberWatch* watch) {
  for (const auto& condition : cluster->value("status", json::object()).value("conditions", json::array())) {
    if (condition.value("type", "") != "Ready") continue;
    if (condition.value("status", "") != "True") {
      const auto since = api::parseRfc3339(condition.value("lastTransitionTime", ""));
      const bool pastGrace = !since || time_.systemTime() - *since >= options_.clusterUnhealthyGrace;
      return pastGrace ? MemberHealth::Released : MemberHealth::Unknown;
    }
    const bool known = watch && watch->hpas->hasSynced() && calls_.available(name);
    return known ? MemberHealth::Healthy : MemberHealth::Unknown;
  }
  return MemberHealth::Unknown;  // not probed yet
}

// The federated HPAs with a copy in the member (its managed HPAs that a federated HPA of the same
// name owns), as both caches show them; unknown until both have synced.
clusters::MemberReport ControllerManager::reportOn(const std::string& cluster) {
  clusters::MemberReport report;
  report.circuitBreakerState = circuitStateName(calls_.circuit(cluster));
  std::shared_ptr<MemberWatch> watch;
  {
    std::lock_guard lock(membersMutex_);
    if (const auto it = memberWatches_.find(cluster); it != memberWatches_.end()) watch = it->second;
  }
  if (!watch || !watch->hpas->hasSynced() || !federatedHpas_.hasSynced()) return report;
  const auto placed = watch->hpas->keys();
  const auto federated = federatedHpas_.keys();
  std::vector<std::string> both;
  std::set_intersection(placed.begin(), placed.end(), federated.begin(), federated.end(), std::back_inserter(both));
  report.placedHpas = static_cast<std::int64_t>(both.size());
  return report;
}

std::vector<Member> ControllerManager::members() {
  std::vector<Member> out;
  const auto joined = registry_.names();
  metrics_.retainClusters({joined.begin(), joined.end()});
  for (const auto& name : joined) {
    const auto cluster = registry_.cluster(name);
    if (!cluster) continue;
    std::shared_ptr<MemberWatch> watch;
    {
      std::lock_guard lock(membersMutex_);
      const auto it = memberWatches_.find(name);
      if (it != memberWatches_.end()) watch = it->second;
    }
    if (!watch) continue;
    std::map<std::string, std::string> labels;
    const json clusterLabels = (*cluster)["metadata"].value("labels", json::object());
    for (const auto& [key, value] : clusterLabels.items())
      if (value.is_string()) labels[key] = value.get<std::string>();
    const MemberHealth health = healthOf(name, cluster, watch.get());
    metrics_.setClusterHealth(name, health);
    // The listers share ownership of the watch: its client outlives every reconcile using it.
    out.push_back({name, labels, health, watch->client, std::shared_ptr<const clusters::Lister>(watch, watch->hpas.get()),
                   std::shared_ptr<const clusters::Lister>(watch, watch->deployments.get())});
  }
  return out;
}

void ControllerManager::reconcileHpa(const std::string& key) {
  const auto started = time_.monotonicTime();
  auto observe = [&](bool failed) {
    metrics_.observeReconcile(std::chrono::duration<double>(time_.monotonicTime() - started).count(), failed);
  };
  try {
    // A key an event brought is reconciled only if what it plans from changed (an echo of
    // this controller's own writes changes nothing); a resync looks again whatever happened.
    reconciler_.reconcile(key, !queue_.fromResync(key));
  } catch (...) {
    observe(true);
    throw;
  }
  observe(false);
}

// Everything again (a resync, a member that came or went), behind whatever events have queued.
void ControllerManager::enqueueAll() {
  for (const auto& hpa : federatedHpas_.list()) queue_.addResync(clusters::objectKey(hpa));
  for (const auto& deployment : federatedDeployments_.list()) deploymentQueue_.addResync(clusters::objectKey(deployment));
}

// A member appeared, changed or went: watch its managed HPAs and Deployments (a change there is a
// change of the federated object of the same name), and look at every federated object again.
void ControllerManager::onMemberChange(const std::string& cluster) {
  std::shared_ptr<MemberWatch> replaced;  // stopped outside the lock, once no reconcile holds it
  {
    std::lock_guard lock(membersMutex_);
    if (const auto it = memberWatches_.find(cluster); it != memberWatches_.end()) {
      replaced = std::move(it->second);
      memberWatches_.erase(it);
    }
    if (auto client = registry_.client(cluster)) {
      clusters::InformerOptions options;
      options.selectors.labelSelector = std::string(kManagedByLabel) + "=" + kManagedByValue;
      auto watch = std::make_shared<MemberWatch>();
      watch->client = client;
      watch->hpas = std::make_unique<clusters::Informer>(*client, kHpas, enqueueingHpas(queue_, reconciler_, cluster), options);
      watch->deployments = std::make_unique<clusters::Informer>(*client, kDeployments, enqueueing(deploymentQueue_), options);
      watch->hpas->start();
      watch->deployments->start();
      memberWatches_[cluster] = std::move(watch);
      prober_.probeSoon();
    } else {
      calls_.forget(cluster);
      reconciler_.forgetMember(cluster);
    }
  }
  replaced.reset();
  enqueueAll();
}

}  // namespace fedhpa::controller
