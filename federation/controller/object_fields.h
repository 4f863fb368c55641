// The few ObjectMeta reads and edits both reconcilers make on federated objects and member copies,
// and the merge patches every write of a cached object goes out as. A cached object holds only what
// the controllers read (cache_transforms.h), so none is ever written back whole: each write is a
// JSON merge patch of the fields its writer owns, conditional on the resourceVersion it was
// planned from (a merge patch carrying metadata.resourceVersion is refused with 409 Conflict when
// the object has moved on, as an update would be), or a write to /status, which changes nothing else.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "federation/api/machinery/patch.h"

namespace fedhpa::controller {

inline constexpr const char* kFederationFinalizer = "federation.kubernetes.io/delete-from-underlying-clusters";
inline constexpr const char* kManagedByLabel = "federation.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "fedhpa";

inline std::string metaField(const nlohmann::json& object, const char* field) {
  return object["metadata"].value(field, "");
}

// A string annotation's value; "" when absent or not a string.
inline std::string annotationOf(const nlohmann::json& object, const char* name) {
  const nlohmann::json annotations = object["metadata"].value("annotations", nlohmann::json::object());
  const auto it = annotations.find(name);
  return it != annotations.end() && it->is_string() ? it->get<std::string>() : "";
}

inline bool managedByUs(const nlohmann::json& object) {
  return object["metadata"].value("labels", nlohmann::json::object()).value(kManagedByLabel, "") == kManagedByValue;
}

inline bool hasFinalizer(const nlohmann::json& object, const std::string& finalizer) {
  const auto finalizers = object["metadata"].value("finalizers", std::vector<std::string>{});
  return std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end();
}

// A merge patch conditional on the version of `object` it was made from, with `metadata` merged in.
inline nlohmann::json conditionalPatch(const nlohmann::json& object, nlohmann::json metadata = nlohmann::json::object()) {
  metadata["resourceVersion"] = metaField(object, "resourceVersion");
  return {{"metadata", std::move(metadata)}};
}

// The object's finalizers with `finalizer` added (added: true) or removed. A list in a merge
// patch replaces the whole list, so the patch names them all, as read.
inline nlohmann::json finalizerPatch(const nlohmann::json& object, const std::string& finalizer, bool added) {
  auto finalizers = object["metadata"].value("finalizers", std::vector<std::string>{});
  finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), finalizer), finalizers.end());
  if (added) finalizers.push_back(finalizer);
  return conditionalPatch(object, {{"finalizers", finalizers}});
}

// The object once fedhpa's finalizer is done.
inline nlohmann::json withoutFederationFinalizer(const nlohmann::json& object) {
  return finalizerPatch(object, kFederationFinalizer, false);
}

// One annotation set (or removed, when `value` is nullopt), the others left as they are.
inline nlohmann::json annotationPatch(const nlohmann::json& object, const char* name, const std::optional<std::string>& value) {
  return conditionalPatch(object, {{"annotations", {{name, value ? nlohmann::json(*value) : nlohmann::json(nullptr)}}}});
}

// A copy no longer fedhpa's: its managed-by label removed, nothing else touched.
inline nlohmann::json releasedPatch(const nlohmann::json& object) {
  return conditionalPatch(object, {{"labels", {{kManagedByLabel, nullptr}}}});
}

// The spec made `spec`, whatever the object's spec held (fields it has and `spec` lacks go).
inline nlohmann::json specPatch(const nlohmann::json& object, const nlohmann::json& spec) {
  nlohmann::json patch = conditionalPatch(object);
  patch["spec"] = api::machinery::createMergePatch(object.value("spec", nlohmann::json::object()), spec);
  return patch;
}

}  // namespace fedhpa::controller
