// The few ObjectMeta reads and edits both reconcilers make on federated objects and member copies.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// The object as it is to be written once fedhpa's finalizer is done.
inline nlohmann::json withoutFederationFinalizer(nlohmann::json object) {
  auto finalizers = object["metadata"].value("finalizers", std::vector<std::string>{});
  finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kFederationFinalizer), finalizers.end());
  object["metadata"]["finalizers"] = finalizers;
  return object;
}

}  // namespace fedhpa::controller
