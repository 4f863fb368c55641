#include "federation/controller/karmada_controllers.h"

#include "federation/common/logging.h"
#include "federation/controller/hpa_reconciler.h"

namespace fedhpa::controller {

using clusters::json;

namespace {

clusters::InformerHandlers enqueueing(WorkQueue& queue) {
  auto enqueue = [&queue](const json& object) { queue.add(clusters::objectKey(object)); };
  return {enqueue, [enqueue](const json&, const json& now) { enqueue(now); }, enqueue};
}

}  // namespace

KarmadaControllers::KarmadaControllers(clusters::KubeClient& federation, EventRecorder& events, TimeSource& time,
                                       KarmadaOptions options)
    : options_(options),
      federatedHpaQueue_(time),
      cronQueue_(time),
      federatedHpas_(federation, kFederatedHpas, enqueueing(federatedHpaQueue_)),
      cronFederatedHpas_(federation, kCronFederatedHpas, enqueueing(cronQueue_)),
      // A federated HPA's change concerns the FederatedHPA of its name (its owner, or one it
      // conflicts with by name) and any other in its namespace (which may scale the same target).
      hpas_(federation, kHpas,
            [this] {
              auto enqueue = [this](const json& hpa) {
                for (const auto& federatedHpa : federatedHpas_.listNamespace(metaField(hpa, "namespace")))
                  federatedHpaQueue_.add(clusters::objectKey(federatedHpa));
              };
              return clusters::InformerHandlers{enqueue, [enqueue](const json&, const json& now) { enqueue(now); }, enqueue};
            }()),
      federatedHpaReconciler_({federation, federatedHpas_, hpas_,
                               [this](const std::string& ns) { return hpas_.listNamespace(ns); }, events, time}),
      cronReconciler_({federation, cronFederatedHpas_, events, time, options.cronCatchUpWindow}) {}

KarmadaControllers::~KarmadaControllers() { stop(); }

bool KarmadaControllers::stopping() {
  std::lock_guard lock(stopMutex_);
  return stopping_;
}

void KarmadaControllers::start() {
  federatedHpas_.start();
  cronFederatedHpas_.start();
  hpas_.start();
  starter_ = std::thread([this] { waitForCachesThenRun(); });
}

void KarmadaControllers::waitForCachesThenRun() {
  const auto step = std::chrono::milliseconds(100);
  while (!stopping() && !(federatedHpas_.waitForSync(step) && cronFederatedHpas_.waitForSync(step) && hpas_.waitForSync(step))) {
  }
  std::lock_guard lock(stopMutex_);
  if (stopping_) return;
  threads_.emplace_back([this] { runWorker(federatedHpaQueue_, [this](const std::string& key) { federatedHpaReconciler_.reconcile(key); }, "FederatedHPA"); });
  threads_.emplace_back([this] { runWorker(cronQueue_, [this](const std::string& key) { cronReconciler_.reconcile(key); }, "CronFederatedHPA"); });
  threads_.emplace_back([this] { tickLoop(); });
  FEDHPA_LOG(info) << "FederatedHPA and CronFederatedHPA controllers started";
}

void KarmadaControllers::tickLoop() {
  std::unique_lock lock(stopMutex_);
  while (!stopped_.wait_for(lock, options_.cronTick, [&] { return stopping_; })) {
    lock.unlock();
    for (const auto& cron : cronFederatedHpas_.list()) cronQueue_.addResync(clusters::objectKey(cron));
    lock.lock();
  }
}

void KarmadaControllers::stop() {
  {
    std::lock_guard lock(stopMutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  stopped_.notify_all();
  if (starter_.joinable()) starter_.join();
  federatedHpaQueue_.shutDown();
  cronQueue_.shutDown();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  federatedHpas_.stop();
  cronFederatedHpas_.stop();
  hpas_.stop();
}

}  // namespace fedhpa::controller
