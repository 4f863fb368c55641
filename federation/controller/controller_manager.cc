#include "federation/controller/controller_manager.h"

#include <algorithm>
#include <iterator>

#include "federation/api/time.h"
#include "federation/controller/cache_transforms.h"
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
      registry_(federation, std::move(memberClients), [this](const std::string& cluster) { onMemberChange(cluster); },
                [this](const std::string& cluster) { onMemberReady(cluster); }),
      prober_(federation, registry_, time,
              clusters::ProberOptions{3, 1, [this](const std::string& cluster) { return reportOn(cluster); }}),
      rotator_(federation, registry_, time, options.tokenRotation),
      // Half the workers at most on resync keys: the other half is free the moment an event comes.
      queue_(time, std::chrono::milliseconds(100), std::chrono::seconds(30),
             static_cast<std::size_t>(std::max(1, options.workers / 2))),
      deploymentQueue_(time),
      policyStatusQueue_(time),
      events_(federation, time),
      calls_(time, options.memberCalls),
      // Half as many writers as workers: a status write is at most one per reconcile, and waits
      // for the federation API's commit alone.
      statusWriter_(static_cast<std::size_t>(std::max(1, options.workers / 2)), [this](const std::string& key) { queue_.addRateLimited(key); }),
      informers_(federation, federationTransforms()),
      federatedHpas_(informers_.informer(kHpas, enqueueingHpas(queue_, reconciler_, ""))),
      federatedDeployments_(informers_.informer(
          kDeployments, {[this](const json& object) { onFederatedDeployment(object, true); },
                         [this](const json& before, const json& now) { onFederatedDeployment(now, policyRelevantChange(before, now)); },
                         [this](const json& last) { onFederatedDeployment(last, true); }})),
      propagationPolicies_(informers_.informer(kPropagationPolicies, policyHandlers())),
      clusterPropagationPolicies_(informers_.informer(kClusterPropagationPolicies, policyHandlers())),
      policies_(&propagationPolicies_, &clusterPropagationPolicies_,
                [this](const std::string& ns, const std::string& name) { return karmadaFederatedHpas_.get(ns, name); }),
      reconciler_({federation, federatedHpas_, federatedDeployments_, *this, calls_, time, metrics_, events_, statusWriter_,
                   [this](const std::string& key) { queue_.add(key); }, &policies_},
                  options.policy),
      deploymentReconciler_(
          {federation, federatedHpas_, federatedDeployments_, *this, calls_, time, metrics_, events_, statusWriter_, {}, &policies_}),
      karmada_(federation, informers_, events_, time, options.karmada),
      karmadaFederatedHpas_(informers_.informer(kFederatedHpas, enqueueingObjectChanges("FederatedHPA"))),
      propagations_(makePropagations(federation)),
      policyIndex_({[this](const std::string& ns) { return propagationPolicies_.listNamespace(ns); },
                    [this] { return clusterPropagationPolicies_.list(); },
                    [this](const std::string& kind, const std::string& ns, const std::string& name) {
                      const clusters::Informer* informer = federatedInformer(kind);
                      return informer ? informer->get(ns, name) : std::nullopt;
                    },
                    [this](const std::string& kind, const std::string& ns) {
                      const clusters::Informer* informer = federatedInformer(kind);
                      if (!informer) return std::vector<json>{};
                      return ns.empty() ? informer->list() : informer->listNamespace(ns);
                    }}),
      policyStatus_({federation, [this] { return propagationPolicies_.list(); }, [this] { return clusterPropagationPolicies_.list(); },
                     policyIndex_, *this, [this](const std::string& key) { policyStatusQueue_.add(key); }}),
      runtime_("HPA federation controller", [this] { return waitForCachesAndProbe(); }, loops(), tickers()) {
  informers_.informer(kHpas, enqueueingObjectChanges("HorizontalPodAutoscaler"));
  // A policy's labelSelector may select a FederatedHPA: a change of its labels may move its HPA
  // (which has its name).
  informers_.informer(kFederatedHpas, {{}, [this](const json& before, const json& after) {
                                         if (before["metadata"].value("labels", json()) != after["metadata"].value("labels", json()))
                                           queue_.add(clusters::objectKey(after));
                                       },
                                       {}});
  for (const auto& propagation : propagations_)
    informers_.informer(propagation->resource,
                        enqueueingObjectChanges(propagation->resource.resource == kServices.resource ? "Service" : "ConfigMap"));
}

std::vector<std::unique_ptr<ControllerManager::Propagation>> ControllerManager::makePropagations(
    clusters::KubeClient& federation) {
  std::vector<std::unique_ptr<Propagation>> out;
  for (const auto& resource : propagatedObjects()) {
    auto propagation = std::make_unique<Propagation>(time_, resource);
    propagation->federated = &informers_.informer(resource, enqueueing(propagation->queue));
    propagation->propagator = std::make_unique<ObjectPropagator>(
        ReconcilerContext{federation, federatedHpas_, federatedDeployments_, *this, calls_, time_, metrics_, events_, statusWriter_, {},
                          &policies_},
        resource, *propagation->federated, federatedDeployments_);
    out.push_back(std::move(propagation));
  }
  return out;
}

std::vector<ControllerRuntime::Ticker> ControllerManager::tickers() {
  std::vector<ControllerRuntime::Ticker> out(kTickers);
  out[kResyncTicker] = {options_.resyncPeriod, [this] { enqueueAll(); }};
  out[kTokenRotationTicker] = {options_.tokenRotation.checkPeriod, [this] { rotator_.rotateDue(); }};
  out[kProbeTicker] = {options_.clusterProbePeriod, [this] { prober_.probeAll(); }};
  return out;
}

std::vector<ControllerRuntime::Loop> ControllerManager::loops() {
  std::vector<ControllerRuntime::Loop> out = {
      {"HorizontalPodAutoscaler", &queue_, [this](const std::string& key) { reconcileHpa(key); }, options_.workers},
      {"Deployment", &deploymentQueue_, [this](const std::string& key) { deploymentReconciler_.reconcile(key); }},
      {"PropagationPolicy status", &policyStatusQueue_, [this](const std::string& key) { policyStatus_.reconcile(key); }}};
  for (const auto& propagation : propagations_) {
    ObjectPropagator* propagator = propagation->propagator.get();
    out.push_back({propagation->resource.resource, &propagation->queue,
                   [propagator](const std::string& key) { propagator->reconcile(key); }});
  }
  return out;
}

void ControllerManager::onFederatedDeployment(const json& deployment, bool policyRelevant) {
  deploymentQueue_.add(clusters::objectKey(deployment));
  enqueueObjectsOf(deployment["metadata"].value("namespace", ""));
  if (policyRelevant) policyStatusQueue_.add(objectChangeKey("Deployment", clusters::objectKey(deployment)));
}

// A policy's change may move what every other policy governs (the winner of an object changes).
clusters::InformerHandlers ControllerManager::policyHandlers() {
  auto changed = [this](const json& policy) {
    enqueueAllObjects();
    policyStatusQueue_.add(policyChangeKey(policyKey(policy)));
  };
  // Its status is ours (policyStatus_'s write): a change of that alone moves nothing.
  auto updated = [changed](const json& last, const json& now) {
    if (last.value("spec", json()) != now.value("spec", json()) ||
        metaField(last, "deletionTimestamp") != metaField(now, "deletionTimestamp"))
      changed(now);
  };
  return {changed, updated, changed};
}

clusters::InformerHandlers ControllerManager::enqueueingObjectChanges(const std::string& kind) {
  auto changed = [this, kind](const json& object) { policyStatusQueue_.add(objectChangeKey(kind, clusters::objectKey(object))); };
  return {changed, [changed](const json& before, const json& now) {
            if (policyRelevantChange(before, now)) changed(now);
          },
          changed};
}

void ControllerManager::enqueueAllPolicies(bool resync) {
  for (const clusters::Informer* informer : {&propagationPolicies_, &clusterPropagationPolicies_})
    for (const auto& key : informer->keys()) {
      if (resync) policyStatusQueue_.addResync(key);
      else policyStatusQueue_.add(key);
    }
}

const clusters::Informer* ControllerManager::federatedInformer(const std::string& kind) const {
  if (kind == "Deployment") return &federatedDeployments_;
  if (kind == "HorizontalPodAutoscaler") return &federatedHpas_;
  if (kind == "FederatedHPA") return &karmadaFederatedHpas_;
  for (const auto& propagation : propagations_)
    if ((propagation->resource.resource == kServices.resource ? "Service" : "ConfigMap") == kind) return propagation->federated;
  return nullptr;
}

void ControllerManager::enqueueAllObjects() {
  for (const auto& key : federatedHpas_.keys()) queue_.add(key);
  for (const auto& key : federatedDeployments_.keys()) deploymentQueue_.add(key);
  for (const auto& propagation : propagations_)
    for (const auto& key : propagation->federated->keys()) propagation->queue.add(key);
}

void ControllerManager::enqueueObjectsOf(const std::string& namespaceName) {
  for (const auto& propagation : propagations_)
    for (const auto& object : propagation->federated->listNamespace(namespaceName))
      propagation->queue.add(clusters::objectKey(object));
}

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
  std::vector<clusters::Informer*> federated = {&federatedHpas_, &federatedDeployments_, &propagationPolicies_,
                                               &clusterPropagationPolicies_};
  for (const auto& propagation : propagations_) federated.push_back(propagation->federated);
  if (!waitForSync(federated, stopping)) return false;
  prober_.probeAll();
  // The probe wrote each member's Ready condition; wait (briefly) until the Cluster summaries
  // members() reads show it (each is stored by the informer's handler, just after its cache
  // changed). Each wait ends when the cache changes, not at a polling tick (a tick cost every
  // start ~100 ms).
  const auto probeDeadline = time_.monotonicTime() + std::chrono::seconds(5);
  auto probed = [&] {
    for (const auto& name : registry_.names()) {
      const auto cluster = registry_.summary(name);
      if (!cluster || !cluster->ready) return false;
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
    for (const auto& watch : watches)
      for (const auto& [resource, informer] : watch->copies)
        if (!informer->waitForSync(step)) return false;
    return true;
  };
  while (!stopping() && !membersSynced() && time_.monotonicTime() < memberDeadline) {
    // membersSynced() does the waiting: up to `step` on the first informer that has not synced
    // (those before it have), then the next pass looks again from the start.
  }
  // The probe ticker starts with the workers: its first round one period after the one above, or
  // at once if a member joined meanwhile (onMemberChange asked for it).
  return !stopping();
}

void ControllerManager::stop() {
  metrics_.setLeading(false);
  runtime_.stop();
  karmada_.stop();
  statusWriter_.stop();
  informers_.stop();
  registry_.stop();
  std::lock_guard lock(membersMutex_);
  memberWatches_.clear();
}

MemberHealth ControllerManager::healthOf(const clusters::ClusterSummary& cluster, const MemberWatch* watch) {
  if (!cluster.ready) return MemberHealth::Unknown;  // not probed yet
  if (!cluster.ready->status) {
    const auto since = api::parseRfc3339(cluster.ready->lastTransitionTime);
    const bool pastGrace = !since || time_.systemTime() - *since >= options_.clusterUnhealthyGrace;
    return pastGrace ? MemberHealth::Released : MemberHealth::Unknown;
  }
  const bool known = watch && watch->hpas->hasSynced() && calls_.available(cluster.name);
  return known ? MemberHealth::Healthy : MemberHealth::Unknown;
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
    const auto cluster = registry_.summary(name);  // decoded once per version of the Cluster
    if (!cluster) continue;
    std::shared_ptr<MemberWatch> watch;
    {
      std::lock_guard lock(membersMutex_);
      const auto it = memberWatches_.find(name);
      if (it != memberWatches_.end()) watch = it->second;
    }
    if (!watch) continue;
    const MemberHealth health = healthOf(*cluster, watch.get());
    metrics_.setClusterHealth(name, health);
    // The listers share ownership of the watch: its client outlives every reconcile using it.
    Member member{name, cluster->labels, health, watch->client, std::shared_ptr<const clusters::Lister>(watch, watch->hpas.get()),
                  std::shared_ptr<const clusters::Lister>(watch, watch->deployments.get())};
    for (const auto& [resource, informer] : watch->copies)
      member.copies[resource] = std::shared_ptr<const clusters::Lister>(watch, informer.get());
    out.push_back(std::move(member));
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
  for (const auto& key : federatedHpas_.keys()) queue_.addResync(key);
  for (const auto& key : federatedDeployments_.keys()) deploymentQueue_.addResync(key);
  for (const auto& propagation : propagations_)
    for (const auto& key : propagation->federated->keys()) propagation->queue.addResync(key);
  // Also how a member's health (which the status lists only Ready members by) reaches the policies.
  enqueueAllPolicies(true);
}

// A member's Ready condition turned True: it answers again. What waited for it goes now, not when
// its circuit's pause, its informers' backoff or the keys' backoff (grown while it was away) or
// the next resync would let it: the circuit lets the next call through, the informers list or
// watch again, the keys backing off are queued with their failures forgotten, and every
// federated object is looked at again (behind any event) for what the member should now hold.
void ControllerManager::onMemberReady(const std::string& cluster) {
  FEDHPA_LOG(info) << "cluster " << cluster << " is Ready: reconciling what waited for it";
  calls_.retryNow(cluster);
  {
    std::lock_guard lock(membersMutex_);
    if (const auto it = memberWatches_.find(cluster); it != memberWatches_.end()) {
      it->second->hpas->retryNow();  // a list or watch that failed while it was away goes again now
      it->second->deployments->retryNow();
      for (const auto& [resource, informer] : it->second->copies) informer->retryNow();
    }
  }
  queue_.retryNow();
  deploymentQueue_.retryNow();
  for (const auto& propagation : propagations_) propagation->queue.retryNow();
  enqueueAll();
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
      clusters::InformerOptions hpaOptions;
      hpaOptions.selectors.labelSelector = std::string(kManagedByLabel) + "=" + kManagedByValue;
      clusters::InformerOptions deploymentOptions = hpaOptions;
      hpaOptions.transform = trimMemberHpa;
      deploymentOptions.transform = trimMemberDeployment;
      auto watch = std::make_shared<MemberWatch>();
      watch->client = client;
      watch->hpas = std::make_unique<clusters::Informer>(*client, kHpas, enqueueingHpas(queue_, reconciler_, cluster), hpaOptions);
      watch->deployments = std::make_unique<clusters::Informer>(*client, kDeployments, enqueueing(deploymentQueue_), deploymentOptions);
      clusters::InformerOptions copyOptions;
      copyOptions.selectors = hpaOptions.selectors;
      copyOptions.transform = trimMemberCopy;
      for (const auto& propagation : propagations_)
        watch->copies[propagation->resource.resource] =
            std::make_unique<clusters::Informer>(*client, propagation->resource, enqueueing(propagation->queue), copyOptions);
      watch->hpas->start();
      watch->deployments->start();
      for (const auto& [resource, informer] : watch->copies) informer->start();
      memberWatches_[cluster] = std::move(watch);
      runtime_.tickSoon(kProbeTicker);  // a new member: probed now rather than at the next period
    } else {
      calls_.forget(cluster);
      reconciler_.forgetMember(cluster);
    }
  }
  replaced.reset();
  enqueueAll();
}

}  // namespace fedhpa::controller
