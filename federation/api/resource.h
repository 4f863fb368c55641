// What the API machinery needs to know about one served resource: its names (for URLs, discovery
// and messages) and its strategy (conversion between served versions and the stored form,
// defaulting, validation, unknown fields, table cells). The REST layer is written once against
// this; each resource supplies its own ResourceType. Objects are JSON (nlohmann::json) throughout:
// "internal" below means the stored form (autoscaling/v2 for HPAs), with apiVersion/kind set.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "federation/api/status.h"

namespace fedhpa::api {

struct Schema;
using Clock = std::chrono::system_clock;

struct TableColumn {
  std::string name;         // "Name", "Reference", ... (kubectl upper-cases it)
  std::string type;         // "string", "integer", "date"
  std::string format;       // "name" on the Name column, else ""
  std::string description;
  int priority = 0;         // 1 = only with -o wide
};

struct SubresourceInfo {
  std::string name;         // "status", "scale"
  std::string group, version, kind;  // responseKind
  std::vector<std::string> verbs = {"get", "patch", "update"};
};

struct ResourceNames {
  std::string group;                    // "" for core
  std::vector<std::string> versions;    // served versions, preferred first
  std::string storageVersion;           // the version objects are stored in ("v2" for HPAs)
  std::string kind;                     // HorizontalPodAutoscaler
  std::string resource;                 // horizontalpodautoscalers
  std::string singular;                 // horizontalpodautoscaler
  bool namespaced = true;
  std::vector<std::string> shortNames;  // {"hpa"}
  std::vector<std::string> categories;  // {"all"}
  std::vector<std::string> verbs;       // create delete deletecollection get list patch update watch
  std::vector<SubresourceInfo> subresources;

  GroupResource groupResource() const { return {group, resource}; }
  std::string apiVersion(const std::string& version) const { return group.empty() ? version : group + "/" + version; }
};

class ResourceType {
 public:
  virtual ~ResourceType() = default;
  virtual const ResourceNames& names() const = 0;

  // Served version -> stored form, and back. Lossless: fields a version cannot express travel in
  // annotations, as kube-apiserver does for autoscaling/v1.
  virtual nlohmann::json toInternal(const nlohmann::json& served, const std::string& version) const = 0;
  virtual nlohmann::json fromInternal(const nlohmann::json& internal, const std::string& version) const = 0;

  // Fields of `served` that the schema of `version` does not know, as "spec.foo" paths.
  virtual std::vector<std::string> unknownFields(const nlohmann::json& served, const std::string& version) const = 0;
  // Removes those fields, walking the object (a key may hold '.' or '[', so paths cannot name them).
  virtual void dropUnknownFields(nlohmann::json& served, const std::string& version) const = 0;
  // Values of the wrong JSON type ("spec.maxReplicas: expected integer, got string"): a 400, as
  // kube-apiserver's decoder gives.
  virtual std::vector<std::string> typeErrors(const nlohmann::json& served, const std::string& version) const = 0;

  // Fills in defaults (minReplicas 1, ...) on the stored form.
  virtual void applyDefaults(nlohmann::json& internal) const = 0;
  // Field errors for a create (old == nullptr) or an update. Metadata (name, namespace) included.
  virtual std::vector<StatusCause> validate(const nlohmann::json& internal, const nlohmann::json* old) const = 0;

  // Whether the resource has a status that only the /status subresource writes.
  bool hasStatusSubresource() const {
    for (const auto& subresource : names().subresources)
      if (subresource.name == "status") return true;
    return false;
  }

  // Table output computed from the stored form, whatever version was requested.
  virtual std::vector<TableColumn> tableColumns() const = 0;
  virtual nlohmann::json tableCells(const nlohmann::json& internal, Clock::time_point now) const = 0;

  // Strategic merge patch: the merge key of each list that has one, by path without indices
  // ("spec.template.spec.containers" -> "name"). Empty for resources that accept only merge/json patch.
  virtual std::vector<std::pair<std::string, std::string>> listMergeKeys() const = 0;
  virtual bool acceptsStrategicMergePatch() const = 0;

  // OpenAPI v3 schema of the object in `version` (components.schemas entry).
  virtual nlohmann::json openApiSchema(const std::string& version) const = 0;

  // The fields of the stored form, for server-side apply's field sets and list merges; nullptr:
  // untyped (every object a map, every list atomic).
  virtual const Schema* storageSchema() const { return nullptr; }
};

// Every resource the federation API server serves.
std::vector<std::shared_ptr<const ResourceType>> federationResources();

}  // namespace fedhpa::api
