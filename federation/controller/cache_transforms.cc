#include "federation/controller/cache_transforms.h"

#include <initializer_list>

namespace fedhpa::controller {

using clusters::json;

namespace {

constexpr const char* kFederationAnnotationPrefixes[] = {"federation.kubernetes.io/", "federation.alpha.kubernetes.io/",
                                                          "federation.fedhpa.io/"};

// Keeps the listed members of an object (when it is one), drops the rest.
void keepOnly(json& object, std::initializer_list<const char*> fields) {
  if (!object.is_object()) return;
  json kept = json::object();
  for (const char* field : fields)
    if (const auto it = object.find(field); it != object.end()) kept[field] = std::move(*it);
  object = std::move(kept);
}

void keepFederationAnnotations(json& metadata) {
  const auto annotations = metadata.find("annotations");
  if (annotations == metadata.end()) return;
  if (!annotations->is_object()) {
    metadata.erase(annotations);
    return;
  }
  for (auto it = annotations->begin(); it != annotations->end();) {
    if (isFederationAnnotation(it.key())) ++it;
    else it = annotations->erase(it);
  }
  if (annotations->empty()) metadata.erase(annotations);
}

// The metadata of a member's copy: what names it, what a write is conditional on, and fedhpa's
// managed-by label and annotations.
void trimMemberMetadata(json& object) {
  json& metadata = object["metadata"];
  keepOnly(metadata, {"name", "namespace", "resourceVersion", "labels", "annotations"});
  keepFederationAnnotations(metadata);
}

}  // namespace

bool isFederationAnnotation(const std::string& key) {
  for (const char* prefix : kFederationAnnotationPrefixes)
    if (key.rfind(prefix, 0) == 0) return true;
  return false;
}

clusters::ObjectTransform federationObjectTransform() {
  return [](json& object) {
    json& metadata = object["metadata"];
    metadata.erase("managedFields");
    metadata.erase("selfLink");
    keepFederationAnnotations(metadata);
  };
}

clusters::SharedInformers::TransformFor federationTransforms() {
  return [](const clusters::Resource&) { return federationObjectTransform(); };
}

void trimMemberHpa(json& hpa) {
  keepOnly(hpa, {"apiVersion", "kind", "metadata", "spec", "status"});
  trimMemberMetadata(hpa);
  const auto status = hpa.find("status");
  if (status == hpa.end()) return;
  keepOnly(*status, {"currentReplicas", "desiredReplicas", "lastScaleTime", "currentMetrics", "conditions"});
  if (const auto conditions = status->find("conditions"); conditions != status->end() && conditions->is_array())
    for (auto& condition : *conditions) keepOnly(condition, {"type", "status", "reason"});
}

void trimMemberDeployment(json& deployment) {
  keepOnly(deployment, {"apiVersion", "kind", "metadata", "spec", "status"});
  trimMemberMetadata(deployment);
  if (const auto status = deployment.find("status"); status != deployment.end())
    keepOnly(*status, {"replicas", "readyReplicas", "availableReplicas", "updatedReplicas"});
}

void trimMemberCopy(json& object) {
  object.erase("status");
  trimMemberMetadata(object);
}

}  // namespace fedhpa::controller
