// What most served types share: one schema per version, conversion that only rewrites apiVersion,
// schema-driven unknown fields and type checks, ObjectMeta validation. Types override what they
// do differently (HPAs convert between v1 and v2; every type validates its own spec).
#pragma once

#include <map>

#include "federation/api/resource.h"
#include "federation/api/schema.h"
#include "federation/api/validation.h"

namespace fedhpa::api {

class BasicResourceType : public ResourceType {
 public:
  BasicResourceType(ResourceNames names, std::map<std::string, Schema> schemaByVersion, NameRule nameRule);

  const ResourceNames& names() const override { return names_; }
  nlohmann::json toInternal(const nlohmann::json& served, const std::string& version) const override;
  nlohmann::json fromInternal(const nlohmann::json& internal, const std::string& version) const override;
  std::vector<std::string> unknownFields(const nlohmann::json& served, const std::string& version) const override;
  void dropUnknownFields(nlohmann::json& served, const std::string& version) const override;
  std::vector<std::string> typeErrors(const nlohmann::json& served, const std::string& version) const override;
  void applyDefaults(nlohmann::json&) const override {}
  std::vector<StatusCause> validate(const nlohmann::json& internal, const nlohmann::json* old) const override;
  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return {}; }
  bool acceptsStrategicMergePatch() const override { return true; }
  nlohmann::json openApiSchema(const std::string& version) const override;
  const Schema* storageSchema() const override { return &schema(names_.storageVersion); }

 protected:
  const Schema& schema(const std::string& version) const;

 private:
  ResourceNames names_;
  std::map<std::string, Schema> schemas_;
  NameRule nameRule_;
};

// The verbs discovery lists for an ordinary resource.
std::vector<std::string> allVerbs();

}  // namespace fedhpa::api
