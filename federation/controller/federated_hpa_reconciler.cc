#include "federation/controller/federated_hpa_reconciler.h"

#include "federation/api/hpa_defaults.h"
#include "federation/api/karmada_types.h"
#include "federation/api/time.h"
#include "federation/controller/hpa_reconciler.h"
#include "federation/controller/hpa_status.h"

namespace fedhpa::controller {

using clusters::ClientError;
using clusters::json;

const clusters::Resource kFederatedHpas{"autoscaling.karmada.io", "v1alpha1", "federatedhpas", true};

namespace {

constexpr const char* kSpecFields[] = {"scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior"};
// This controller's conditions on a FederatedHPA's status, after the HPA's own.
constexpr const char* kFederatedCondition = "Federated";
constexpr const char* kIgnoredFieldsCondition = "KarmadaFieldsIgnored";

// The HPA spec a FederatedHPA asks for, defaulted as the API server stores it.
json hpaSpecOf(const json& federatedHpa) {
  const json spec = federatedHpa.value("spec", json::object());
  json out = json::object();
  for (const char* field : kSpecFields)
    if (spec.contains(field)) out[field] = spec[field];
  api::applyHpaV2Defaults(out);
  return out;
}

json ownerReferenceTo(const json& federatedHpa) {
  return {{"apiVersion", "autoscaling.karmada.io/v1alpha1"}, {"kind", "FederatedHPA"},
          {"name", metaField(federatedHpa, "name")}, {"uid", metaField(federatedHpa, "uid")},
          {"controller", true}, {"blockOwnerDeletion", true}};
}

bool sameTarget(const json& a, const json& b) {
  const json refA = a.value("spec", json::object()).value("scaleTargetRef", json::object());
  const json refB = b.value("spec", json::object()).value("scaleTargetRef", json::object());
  return refA.value("kind", "") == refB.value("kind", "") && refA.value("name", "") == refB.value("name", "");
}

json condition(const std::string& type, const std::string& status, const std::string& reason, const std::string& message) {
  return {{"type", type}, {"status", status}, {"reason", reason}, {"message", message}};
}

}  // namespace

bool ownedBy(const json& hpa, const json& federatedHpa) {
  for (const auto& owner : hpa["metadata"].value("ownerReferences", json::array()))
    if (owner.value("kind", "") == "FederatedHPA" && owner.value("uid", "") == metaField(federatedHpa, "uid") &&
        owner.value("controller", false))
      return true;
  return false;
}

std::string FederatedHpaReconciler::conflictWith(const json& federatedHpa, const std::optional<json>& sameName, bool owned,
                                                 std::string* reason) {
  const std::string ns = metaField(federatedHpa, "namespace");
  if (sameName && !owned) {
    *reason = "NameConflict";
    return "HorizontalPodAutoscaler " + ns + "/" + metaField(federatedHpa, "name") +
           " exists and is not owned by this FederatedHPA; it is left alone";
  }
  for (const auto& other : context_.hpasInNamespace(ns)) {
    if (metaField(other, "name") == metaField(federatedHpa, "name") || !sameTarget(other, federatedHpa)) continue;
    if (!metaField(other, "deletionTimestamp").empty()) continue;
    const json ref = federatedHpa["spec"].value("scaleTargetRef", json::object());
    *reason = "TargetConflict";
    return "HorizontalPodAutoscaler " + ns + "/" + metaField(other, "name") + " also scales " + ref.value("kind", "") + "/" +
           ref.value("name", "") + (owned ? "; both keep their limits until one goes" : "; not federated until it goes");
  }
  return "";
}

void FederatedHpaReconciler::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  const auto federatedHpa = context_.federatedHpas.get(ns, name);
  if (!federatedHpa) return;
  const auto sameName = context_.hpas.get(ns, name);
  const bool owned = sameName && ownedBy(*sameName, *federatedHpa);
  if (!metaField(*federatedHpa, "deletionTimestamp").empty()) {
    finalize(*federatedHpa, owned ? sameName : std::nullopt);
    return;
  }
  if (!hasFinalizer(*federatedHpa, kFederatedHpaFinalizer)) {
    context_.federation.mergePatch(kFederatedHpas, ns, name, finalizerPatch(*federatedHpa, kFederatedHpaFinalizer, true));
    return;  // the update comes back as an event
  }
  std::string reason;
  const std::string conflict = conflictWith(*federatedHpa, sameName, owned, &reason);
  if (!conflict.empty()) context_.events.record(*federatedHpa, "Warning", reason, conflict);
  std::optional<json> hpa = owned ? sameName : std::nullopt;
  const json spec = hpaSpecOf(*federatedHpa);
  if (!sameName && conflict.empty()) {
    json created = {{"apiVersion", "autoscaling/v2"},
                    {"kind", "HorizontalPodAutoscaler"},
                    {"metadata", {{"name", name}, {"namespace", ns}, {"ownerReferences", json::array({ownerReferenceTo(*federatedHpa)})}}},
                    {"spec", spec}};
    try {
      hpa = context_.federation.create(kHpas, ns, created);
    } catch (const ClientError& error) {
      if (error.kind() == ClientError::Kind::AlreadyExists) return;  // the cache is behind: its event brings us back
      throw;
    }
    context_.events.record(*federatedHpa, "Normal", "HPACreated",
                           "federated through HorizontalPodAutoscaler " + ns + "/" + name);
  } else if (owned) {
    json current = hpa->value("spec", json::object());
    json wanted = current;
    for (const char* field : kSpecFields) {
      if (spec.contains(field)) wanted[field] = spec[field];
      else wanted.erase(field);
    }
    api::applyHpaV2Defaults(current);
    if (wanted != current) hpa = context_.federation.mergePatch(kHpas, ns, name, specPatch(*hpa, wanted));
  }
  // The HPA's per-cluster shares go up too, for `kubectl get federatedhpa -o wide`: a metadata
  // write, which moves no generation.
  json current = *federatedHpa;
  const std::string shares = hpa ? annotationOf(*hpa, kClusterStatusAnnotation) : "";
  if (!shares.empty() && annotationOf(current, kClusterStatusAnnotation) != shares)
    current = context_.federation.mergePatch(kFederatedHpas, ns, name, annotationPatch(current, kClusterStatusAnnotation, shares));
  writeStatus(current, hpa, reason, conflict);
}

void FederatedHpaReconciler::writeStatus(const json& federatedHpa, const std::optional<json>& owned, const std::string& conflictReason,
                                         const std::string& conflict) {
  const json previous = federatedHpa.value("status", json::object());
  json status = owned ? owned->value("status", json::object()) : previous;
  if (!status.is_object()) status = json::object();
  // The HPA's observedGeneration counts the HPA's edits; the FederatedHPA's counts its own: it has
  // observed this generation once its HPA has observed the spec mirrored from it.
  if (owned) {
    const bool current = owned->value("status", json::object()).value("observedGeneration", -1LL) ==
                         (*owned)["metadata"].value("generation", 0LL);
    if (current) status["observedGeneration"] = federatedHpa["metadata"].value("generation", 0LL);
    else status.erase("observedGeneration");
  }
  json conditions = json::array();
  for (const auto& entry : status.value("conditions", json::array()))
    if (entry.value("type", "") != kFederatedCondition && entry.value("type", "") != kIgnoredFieldsCondition) conditions.push_back(entry);
  json ours = json::array();
  const std::string ns = metaField(federatedHpa, "namespace");
  if (!conflict.empty()) ours.push_back(condition(kFederatedCondition, "False", conflictReason, conflict));
  else ours.push_back(condition(kFederatedCondition, "True", "HPAOwned",
                                "federated through HorizontalPodAutoscaler " + ns + "/" + metaField(federatedHpa, "name")));
  const auto ignored = api::karmadaOnlySpecFields(federatedHpa);
  if (!ignored.empty()) {
    std::string fields;
    for (const auto& field : ignored) fields += (fields.empty() ? "spec." : ", spec.") + field;
    const std::string message = fields + ": kept, but fedhpa has no meaning for them and does not federate them";
    ours.push_back(condition(kIgnoredFieldsCondition, "True", "NoMeaningInFedhpa", message));
    context_.events.record(federatedHpa, "Warning", "KarmadaFieldsIgnored", message);
  }
  const std::string nowText = api::formatRfc3339(context_.time.systemTime());
  for (auto& entry : ours) entry["lastTransitionTime"] = nowText;
  keepTransitionTimes(ours, previous.value("conditions", json::array()));
  for (auto& entry : ours) conditions.push_back(entry);
  status["conditions"] = conditions;
  if (status == previous) return;
  json updated = federatedHpa;
  updated["status"] = status;
  context_.federation.update(kFederatedHpas, updated, "status");
}

// The owned HPA goes with the same propagation the FederatedHPA was deleted with: "orphan" keeps
// every member's copy (the HPA reconciler orphans them), anything else deletes them.
void FederatedHpaReconciler::finalize(const json& federatedHpa, const std::optional<json>& owned) {
  if (!hasFinalizer(federatedHpa, kFederatedHpaFinalizer)) return;
  const std::string ns = metaField(federatedHpa, "namespace");
  if (owned && metaField(*owned, "deletionTimestamp").empty()) {
    const bool orphan = hasFinalizer(federatedHpa, "orphan");
    try {
      context_.federation.remove(kHpas, ns, metaField(*owned, "name"), orphan ? "Orphan" : "Background");
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::NotFound) throw;
    }
    context_.events.record(federatedHpa, "Normal", orphan ? "HPAOrphaned" : "HPADeleted",
                           std::string("HorizontalPodAutoscaler ") + ns + "/" + metaField(*owned, "name") +
                               (orphan ? " deleted; members keep their copies" : " deleted with its members' copies"));
  }
  try {
    context_.federation.mergePatch(kFederatedHpas, ns, metaField(federatedHpa, "name"), finalizerPatch(federatedHpa, kFederatedHpaFinalizer, false));
  } catch (const ClientError& error) {
    if (error.kind() != ClientError::Kind::NotFound) throw;  // a stale cache: already released
  }
}

}  // namespace fedhpa::controller
