// The controllers behind Karmada's front door, in sample-controller's shape: shared informers on
// FederatedHPAs, CronFederatedHPAs and federated HPAs fill caches; their handlers only enqueue
// keys; one worker per queue runs reconcile(key) once the caches have synced. Schedules need a
// clock, not an event: a ticker enqueues every CronFederatedHPA once per tick, and reconcile
// decides from the TimeSource whether a rule is due. Run by the ControllerManager, so under the
// same leader election as the rest, and on its informers (the federated HPAs are watched once).
#pragma once

#include <chrono>

#include "clusters/client/informer.h"
#include "federation/controller/controller_runtime.h"
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
  // Adds its handlers to `informers`, whose owner starts and stops them.
  KarmadaControllers(clusters::KubeClient& federation, clusters::SharedInformers& informers, EventRecorder& events,
                     TimeSource& time, KarmadaOptions options);

  // Returns at once; workers start once the caches have synced.
  void start() { runtime_.start(); }
  void stop() { runtime_.stop(); }

 private:
  WorkQueue federatedHpaQueue_;
  WorkQueue cronQueue_;
  clusters::Informer& federatedHpas_;
  clusters::Informer& cronFederatedHpas_;
  clusters::Informer& hpas_;
  FederatedHpaReconciler federatedHpaReconciler_;
  CronFederatedHpaReconciler cronReconciler_;
  ControllerRuntime runtime_;  // last: stopped (by its destructor too) before anything it runs goes away
};

}  // namespace fedhpa::controller
