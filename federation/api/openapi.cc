#include "federation/api/openapi.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace fedhpa::api {

using nlohmann::json;

namespace {

std::string documentPath(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

std::string schemaName(const ResourceNames& names, const std::string& version) {
  std::string group = names.group.empty() ? "core" : names.group;
  return "io.k8s.api." + group + "." + version + "." + names.kind;
}

json queryParameter(const std::string& name, const std::string& description) {
  return {{"name", name}, {"in", "query"}, {"description", description}, {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

json operation(const std::string& id, const ResourceNames& names, const std::string& version, const std::string& action,
               bool withFieldValidation, const std::string& reference) {
  json op = {{"operationId", id},
             {"x-kubernetes-action", action},
             {"x-kubernetes-group-version-kind", {{"group", names.group}, {"version", version}, {"kind", names.kind}}},
             {"responses", {{"200", {{"description", "OK"}, {"content", {{"application/json", {{"schema", {{"$ref", reference}}}}}}}}}}}};
  json parameters = json::array({queryParameter("dryRun", "When present, indicates that modifications should not be persisted.")});
  if (withFieldValidation)
    parameters.push_back(queryParameter("fieldValidation",
                                        "fieldValidation instructs the server on how to handle objects in the request "
                                        "(POST/PUT/PATCH) containing unknown or duplicate fields."));
  op["parameters"] = parameters;
  return op;
}

json documentFor(const Resources& resources, const std::string& group, const std::string& version) {
  json paths = json::object();
  json schemas = json::object();
  for (const auto& type : resources) {
    const auto& names = type->names();
    if (names.group != group || std::find(names.versions.begin(), names.versions.end(), version) == names.versions.end())
      continue;
    const std::string base = "/" + documentPath(group, version) + (names.namespaced ? "/namespaces/{namespace}/" : "/") + names.resource;
    const std::string reference = "#/components/schemas/" + schemaName(names, version);
    const std::string id = names.kind + version;
    paths[base] = {{"get", operation("list" + id, names, version, "list", false, reference)},
                   {"post", operation("create" + id, names, version, "post", true, reference)}};
    json item = {{"get", operation("read" + id, names, version, "get", false, reference)},
                 {"put", operation("replace" + id, names, version, "put", true, reference)},
                 {"patch", operation("patch" + id, names, version, "patch", true, reference)},
                 {"delete", operation("delete" + id, names, version, "delete", false, reference)}};
    paths[base + "/{name}"] = item;
    for (const auto& sub : names.subresources)
      if (sub.name == "status") paths[base + "/{name}/status"] = item;
    schemas[schemaName(names, version)] = type->openApiSchema(version);
  }
  if (paths.empty()) return nullptr;
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
          {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

std::string hashOf(const json& document) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%016zX", std::hash<std::string>{}(document.dump()));
  return buffer;
}

}  // namespace

json openApiRoot(const Resources& resources) {
  json paths = json::object();
  for (const auto& [group, versions] : servedGroupVersions(resources))
    for (const auto& version : versions) {
      const std::string path = documentPath(group, version);
      paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hashOf(documentFor(resources, group, version))}};
    }
  return {{"paths", paths}};
}

std::optional<json> openApiDocument(const Resources& resources, const std::string& groupVersionPath) {
  for (const auto& [group, versions] : servedGroupVersions(resources))
    for (const auto& version : versions)
      if (documentPath(group, version) == groupVersionPath) return documentFor(resources, group, version);
  return std::nullopt;
}

}  // namespace fedhpa::api
