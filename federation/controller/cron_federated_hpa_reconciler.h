// reconcile(namespace/name) for one Karmada CronFederatedHPA: fires each rule whose schedule has
// come (in the rule's time zone, by the injected TimeSource) by writing the target's spec through
// the federation API with the resourceVersion it read: minReplicas/maxReplicas of a FederatedHPA or
// a federated autoscaling/v2 HPA, replicas of a federated apps/v1 Deployment. The federated change
// then re-partitions like any edit. Status records, per rule, the next execution time and the last
// successful and failed executions (trimmed to the rule's history limits), and an Event says what
// was done.
//
// Memory across restarts is the status: a rule fires for a schedule time S only when S is after
// the last scheduleTime it recorded, so a restarted (or newly elected) controller never fires the
// same S twice. S is fired late only within the catch-up window: a controller that was down longer
// fires the most recent missed S, if that is inside the window, and records a MissedSchedule Event
// for what it skipped. Several missed times collapse into one firing (the targets are absolute
// values, so firing the latest is what firing all of them in order would have left).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "clusters/client/informer.h"
#include "clusters/client/kube_client.h"
#include "federation/api/time_zone.h"
#include "federation/common/time_source.h"
#include "federation/controller/event_recorder.h"

namespace fedhpa::controller {

extern const clusters::Resource kCronFederatedHpas;

struct CronFederatedHpaContext {
  clusters::KubeClient& federation;
  const clusters::Lister& cronFederatedHpas;
  EventRecorder& events;
  TimeSource& time;
  std::chrono::seconds catchUpWindow{120};
};

class CronFederatedHpaReconciler {
 public:
  explicit CronFederatedHpaReconciler(CronFederatedHpaContext context) : context_(std::move(context)) {}
  // Throws when a write failed and the key should come back later.
  void reconcile(const std::string& key);

 private:
  struct Outcome {
    bool succeeded = false;
    clusters::json applied = clusters::json::object();  // appliedMinReplicas, appliedMaxReplicas, appliedReplicas
    std::string message;
  };
  // Writes the rule's values to the target; a refusal the user must fix is a failed Outcome, a
  // transient failure (conflict, unreachable) throws.
  Outcome apply(const clusters::json& cron, const clusters::json& rule);
  std::optional<api::TimeZone> zone(const std::string& name, std::string* error);

  // The schedule time each rule (by "namespace/name/uid/rule") was last fired for by this process:
  // the status says the same once the informer has caught up with the status write, but a tick
  // that reads the cache before then must not fire the rule again.
  std::optional<SystemTime> firedHere(const std::string& rule);

  CronFederatedHpaContext context_;
  std::mutex firedMutex_;
  std::map<std::string, SystemTime> fired_;
  std::mutex zonesMutex_;
  std::map<std::string, api::TimeZone> zones_;  // loaded once per name
};

}  // namespace fedhpa::controller
