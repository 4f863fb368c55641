// reconcile(namespace/name) for one Karmada FederatedHPA (autoscaling.karmada.io/v1alpha1): the
// FederatedHPA owns a federated autoscaling/v2 HPA of the same name (ownerReference, controller:
// true) and the HPA reconciler federates that one like any other. Spec goes down (the five fields
// an HPA has), status comes up (the HPA's status, plus this controller's own conditions), and
// deleting the FederatedHPA deletes its HPA with the same propagation (orphan keeps the members'
// copies). An HPA of that name it does not own, or another HPA scaling the same target, is a
// conflict: reported (condition Federated=False, a Warning Event), never overwritten.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "clusters/client/informer.h"
#include "clusters/client/kube_client.h"
#include "federation/common/time_source.h"
#include "federation/controller/event_recorder.h"

namespace fedhpa::controller {

inline constexpr const char* kFederatedHpaFinalizer = "autoscaling.karmada.io/federated-hpa";

extern const clusters::Resource kFederatedHpas;

struct FederatedHpaContext {
  clusters::KubeClient& federation;
  const clusters::Lister& federatedHpas;  // FederatedHPAs
  const clusters::Lister& hpas;           // federated autoscaling/v2 HPAs
  // Every federated HPA of a namespace (the conflict check looks for another one scaling the target).
  std::function<std::vector<clusters::json>(const std::string& namespaceName)> hpasInNamespace;
  EventRecorder& events;
  TimeSource& time;
};

class FederatedHpaReconciler {
 public:
  explicit FederatedHpaReconciler(FederatedHpaContext context) : context_(std::move(context)) {}
  // Throws when a write failed and the key should come back later.
  void reconcile(const std::string& key);

 private:
  void finalize(const clusters::json& federatedHpa, const std::optional<clusters::json>& owned);
  // Why this FederatedHPA may not (or may no longer) drive an HPA; "" when it may.
  std::string conflictWith(const clusters::json& federatedHpa, const std::optional<clusters::json>& sameName, bool owned,
                           std::string* reason);
  void writeStatus(const clusters::json& federatedHpa, const std::optional<clusters::json>& owned, const std::string& conflictReason,
                   const std::string& conflict);

  FederatedHpaContext context_;
};

// Whether `hpa` names `federatedHpa` (by uid) as its controlling owner.
bool ownedBy(const clusters::json& hpa, const clusters::json& federatedHpa);

}  // namespace fedhpa::controller
