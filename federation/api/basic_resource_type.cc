#include "federation/api/basic_resource_type.h"

namespace fedhpa::api {

using nlohmann::json;

std::vector<std::string> allVerbs() {
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

BasicResourceType::BasicResourceType(ResourceNames names, std::map<std::string, Schema> schemaByVersion, NameRule nameRule)
    : names_(std::move(names)), schemas_(std::move(schemaByVersion)), nameRule_(nameRule) {}

const Schema& BasicResourceType::schema(const std::string& version) const {
  const auto it = schemas_.find(version);
  return it != schemas_.end() ? it->second : schemas_.at(names_.storageVersion);
}

json BasicResourceType::toInternal(const json& served, const std::string&) const {
  json internal = served;
  internal["apiVersion"] = names_.apiVersion(names_.storageVersion);
  internal["kind"] = names_.kind;
  return internal;
}

json BasicResourceType::fromInternal(const json& internal, const std::string& version) const {
  json served = internal;
  served["apiVersion"] = names_.apiVersion(version);
  served["kind"] = names_.kind;
  return served;
}

std::vector<std::string> BasicResourceType::unknownFields(const json& served, const std::string& version) const {
  return api::unknownFields(served, schema(version));
}

void BasicResourceType::dropUnknownFields(json& served, const std::string& version) const {
  api::dropUnknownFields(served, schema(version));
}

std::vector<std::string> BasicResourceType::typeErrors(const json& served, const std::string& version) const {
  return api::typeErrors(served, schema(version));
}

std::vector<StatusCause> BasicResourceType::validate(const json& internal, const json*) const {
  return validateObjectMeta(internal, nameRule_);
}

json BasicResourceType::openApiSchema(const std::string& version) const {
  json schema = toOpenApi(this->schema(version));
  schema["x-kubernetes-group-version-kind"] = json::array({{{"group", names_.group}, {"version", version}, {"kind", names_.kind}}});
  return schema;
}

}  // namespace fedhpa::api
