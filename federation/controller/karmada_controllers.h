// The controllers behind Karmada's front door, in sample-controller's shape: informers on
// FederatedHPAs, CronFederatedHPAs and federated HPAs fill caches; their handlers only enqueue
// keys; one worker per queue runs reconcile(key) once the caches have synced. Schedules need a
// clock, not an event: a ticker enqueues every CronFederatedHPA once per tick, and reconcile
// decides from the TimeSource whether a rule is due. Run by the ControllerManager, so under the
// same leader election as the rest.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "clusters/client/informer.h"
#include "federation/controller/cron_federated_hpa_reconciler.h"
#include "federation/controller/federated_hpa_reconciler.h"
#include "federation/controller/work_queue.h"

namespace fedhpa::controller {

struct KarmadaOptions {
  std::chrono::seconds cronCatchUpWindow{120};
  std::chrono::milliseconds cronTick{1000};
};

class KarmadaControllers {
 public:
  KarmadaControllers(clusters::KubeClient& federation, EventRecorder& events, TimeSource& time, KarmadaOptions options);
  ~KarmadaControllers();
  KarmadaControllers(const KarmadaControllers&) = delete;
  KarmadaControllers& operator=(const KarmadaControllers&) = delete;

  // Returns at once; workers start once the caches have synced.
  void start();
  void stop();

 private:
  void waitForCachesThenRun();
  void tickLoop();
  bool stopping();

  KarmadaOptions options_;
  WorkQueue federatedHpaQueue_;
  WorkQueue cronQueue_;
  clusters::Informer federatedHpas_;
  clusters::Informer cronFederatedHpas_;
  clusters::Informer hpas_;
  FederatedHpaReconciler federatedHpaReconciler_;
  CronFederatedHpaReconciler cronReconciler_;
  std::thread starter_;
  std::vector<std::thread> threads_;
  std::mutex stopMutex_;
  std::condition_variable stopped_;
  bool stopping_ = false;
};

}  // namespace fedhpa::controller
