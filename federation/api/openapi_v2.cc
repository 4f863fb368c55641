#include "federation/api/openapi_v2.h"

#include <algorithm>
#include <cstdint>
#include <vector>


namespace fedhpa::api {

using nlohmann::json;

namespace {

char upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

// "v2" -> "V2", "v1alpha1" -> "V1alpha1"
std::string versionWord(const std::string& version) { return version.empty() ? version : upper(version[0]) + version.substr(1); }

// "autoscaling.karmada.io" -> "AutoscalingKarmadaIo", "rbac.authorization.k8s.io" -> "RbacAuthorization",
// "" -> "Core": the group part of kube-apiserver's operation ids.
std::string groupWord(const std::string& group) {
  if (group.empty()) return "Core";
  std::string trimmed = group;
  const std::string k8sSuffix = ".k8s.io";
  if (trimmed.size() > k8sSuffix.size() && trimmed.ends_with(k8sSuffix)) trimmed.resize(trimmed.size() - k8sSuffix.size());
  std::string word;
  bool capital = true;
  for (char c : trimmed) {
    if (c == '.' || c == '-') {
      capital = true;
      continue;
    }
    word += capital ? upper(c) : c;
    capital = false;
  }
  return word;
}

json parameter(const std::string& name, const std::string& in, const std::string& description) {
  json out = {{"name", name}, {"in", in}, {"type", "string"}, {"uniqueItems", true}, {"description", description}};
  if (in == "path") out["required"] = true;
  return out;
}

json dryRun() {
  return parameter("dryRun", "query",
                   "When present, indicates that modifications should not be persisted. Valid values: All.");
}
json fieldManager() {
  return parameter("fieldManager", "query", "A name associated with the actor or entity that is making these changes.");
}
json fieldValidation() {
  return parameter("fieldValidation", "query",
                   "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) "
                   "containing unknown or duplicate fields: Ignore, Warn or Strict.");
}

json listParameters() {
  json out = json::array();
  for (const auto& [name, description] : std::vector<std::pair<std::string, std::string>>{
           {"labelSelector", "A selector to restrict the list of returned objects by their labels."},
           {"fieldSelector", "A selector to restrict the list of returned objects by their fields."},
           {"limit", "The maximum number of responses to return for a list call."},
           {"continue", "The continue option should be set when retrieving more results from the server."},
           {"resourceVersion", "Sets a constraint on what resource versions a request may be served from."},
           {"resourceVersionMatch", "Determines how resourceVersion is applied to list calls."},
           {"timeoutSeconds", "Timeout for the list/watch call."},
           {"watch", "Watch for changes to the described resources and return them as a stream of events."},
           {"allowWatchBookmarks", "Requests watch events with type BOOKMARK."}})
    out.push_back(parameter(name, "query", description));
  return out;
}

json operation(const std::string& operationId, const ResourceNames& names, const std::string& version,
               const std::string& action, json parameters, json consumes) {
  json op = {{"operationId", operationId},
             {"description", action + " " + names.kind},
             {"produces", json::array({"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"})},
             {"schemes", json::array({"https"})},
             {"tags", json::array({groupWord(names.group) + versionWord(version)})},
             {"parameters", std::move(parameters)},
             {"responses", {{"200", {{"description", "OK"}}}, {"401", {{"description", "Unauthorized"}}}}},
             {"x-kubernetes-action", action},
             {"x-kubernetes-group-version-kind", {{"group", names.group}, {"version", version}, {"kind", names.kind}}}};
  if (!consumes.is_null()) op["consumes"] = std::move(consumes);
  return op;
}

bool serves(const ResourceNames& names, const std::string& verb) {
  return std::find(names.verbs.begin(), names.verbs.end(), verb) != names.verbs.end();
}

// kube-apiserver's paths for one resource in one version: the collection (list, create,
// deletecollection), the object (read, replace, patch, delete), its status, and for a namespaced
// resource the list across namespaces.
void addPaths(json& paths, const ResourceType& type, const std::string& version) {
  const ResourceNames& names = type.names();
  const std::string prefix = names.group.empty() ? "/api/" + version : "/apis/" + names.group + "/" + version;
  const std::string ns = names.namespaced ? "Namespaced" : "";
  const std::string id = groupWord(names.group) + versionWord(version) + ns + names.kind;
  const std::string collection = prefix + (names.namespaced ? "/namespaces/{namespace}/" : "/") + names.resource;
  json pathParameters = json::array();
  if (names.namespaced)
    pathParameters.push_back(parameter("namespace", "path", "object name and auth scope, such as for teams and projects"));
  const json pretty = parameter("pretty", "query", "If 'true', then the output is pretty printed.");

  json collectionItem = {{"parameters", pathParameters}};
  collectionItem["parameters"].push_back(pretty);
  if (serves(names, "list")) collectionItem["get"] = operation("list" + id, names, version, "list", listParameters(), nullptr);
  if (serves(names, "create"))
    collectionItem["post"] = operation("create" + id, names, version, "post",
                                       json::array({dryRun(), fieldManager(), fieldValidation()}), json::array({"*/*"}));
  if (serves(names, "deletecollection"))
    collectionItem["delete"] =
        operation("deletecollection" + id, names, version, "deletecollection", listParameters(), json::array({"*/*"}));
  if (collectionItem.size() > 1) paths[collection] = collectionItem;

  json patchTypes = json::array({"application/json-patch+json", "application/merge-patch+json"});
  if (type.acceptsStrategicMergePatch()) patchTypes.push_back("application/strategic-merge-patch+json");
  patchTypes.push_back("application/apply-patch+yaml");
  const json patchParameters =
      json::array({dryRun(), fieldManager(), fieldValidation(), parameter("force", "query", "Force is going to \"force\" Apply requests.")});
  const json writeParameters = json::array({dryRun(), fieldManager(), fieldValidation()});
  json objectItem = {{"parameters", pathParameters}};
  objectItem["parameters"].push_back(parameter("name", "path", "name of the " + names.kind));
  objectItem["parameters"].push_back(pretty);
  const auto addObjectOperations = [&](json& item, const std::string& idPrefix, bool withDelete) {
    if (serves(names, "get")) item["get"] = operation("read" + idPrefix, names, version, "get", json::array(), nullptr);
    if (serves(names, "update"))
      item["put"] = operation("replace" + idPrefix, names, version, "put", writeParameters, json::array({"*/*"}));
    if (serves(names, "patch"))
      item["patch"] = operation("patch" + idPrefix, names, version, "patch", patchParameters, patchTypes);
    if (withDelete && serves(names, "delete"))
      item["delete"] = operation("delete" + idPrefix, names, version, "delete", json::array({dryRun()}), json::array({"*/*"}));
  };
  addObjectOperations(objectItem, id, true);
  if (objectItem.size() > 1) paths[collection + "/{name}"] = objectItem;
  for (const auto& sub : names.subresources) {
    if (sub.name != "status") continue;
    json statusItem = {{"parameters", objectItem["parameters"]}};
    addObjectOperations(statusItem, id + "Status", false);
    if (statusItem.size() > 1) paths[collection + "/{name}/status"] = statusItem;
  }
  if (names.namespaced && serves(names, "list"))
    paths[prefix + "/" + names.resource] = {
        {"parameters", json::array({pretty})},
        {"get", operation("list" + groupWord(names.group) + versionWord(version) + names.kind +
                              "ForAllNamespaces",
                          names, version, "list", listParameters(), nullptr)}};
}

// --- protobuf (proto3 wire format) --------------------------------------------------------------

class Message {
 public:
  Message& string(int field, const std::string& value) {
    if (!value.empty()) bytes(field, value);
    return *this;
  }
  Message& boolean(int field, bool value) {
    if (value) {
      tag(field, 0);
      varint(1);
    }
    return *this;
  }
  Message& message(int field, const Message& value) { return bytes(field, value.out_); }
  const std::string& data() const { return out_; }

 private:
  Message& bytes(int field, const std::string& value) {
    tag(field, 2);
    varint(value.size());
    out_ += value;
    return *this;
  }
  void tag(int field, int wireType) { varint((static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(wireType)); }
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_ += static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    out_ += static_cast<char>(value);
  }
  std::string out_;
};

std::string text(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

bool flag(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_boolean() && found->get<bool>();
}

void strings(Message& message, int field, const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_array()) return;
  for (const auto& value : *found)
    if (value.is_string()) message.string(field, value.get<std::string>());
}

// x-... keys as NamedAny {name, Any {yaml}}: JSON is YAML, which is how kubectl reads them back.
void extensions(Message& message, int field, const json& object) {
  for (const auto& [key, value] : object.items())
    if (key.starts_with("x-"))
      message.message(field, Message().string(1, key).message(2, Message().string(2, value.dump())));
}

Message parameterItem(const json& parameter) {
  if (parameter.contains("$ref")) return Message().message(2, Message().string(1, text(parameter, "$ref")));
  const std::string in = text(parameter, "in");
  Message sub;
  // Query: name 4, type 6, uniqueItems 20; path and header: name 4, type 5, uniqueItems 19.
  const bool query = in == "query";
  sub.boolean(1, flag(parameter, "required"))
      .string(2, in)
      .string(3, text(parameter, "description"))
      .string(4, text(parameter, "name"))
      .string(query ? 6 : 5, text(parameter, "type"))
      .boolean(query ? 20 : 19, flag(parameter, "uniqueItems"));
  const int oneof = query ? 3 : in == "path" ? 4 : 1;  // NonBodyParameter: header 1, query 3, path 4
  return Message().message(1, Message().message(2, Message().message(oneof, sub)));
}

void parameterList(Message& message, int field, const json& object) {
  const auto found = object.find("parameters");
  if (found == object.end() || !found->is_array()) return;
  for (const auto& parameter : *found)
    if (parameter.is_object()) message.message(field, parameterItem(parameter));
}

Message operationMessage(const json& op) {
  Message out;
  strings(out, 1, op, "tags");
  out.string(3, text(op, "description")).string(5, text(op, "operationId"));
  strings(out, 6, op, "produces");
  strings(out, 7, op, "consumes");
  parameterList(out, 8, op);
  if (op.contains("responses") && op["responses"].is_object()) {
    Message responses;
    for (const auto& [code, response] : op["responses"].items())
      responses.message(1, Message().string(1, code).message(2, Message().message(1, Message().string(1, text(response, "description")))));
    out.message(9, responses);
  }
  strings(out, 10, op, "schemes");
  extensions(out, 13, op);
  return out;
}

Message pathItemMessage(const json& item) {
  Message out;
  static const std::vector<std::pair<const char*, int>> kOperations = {
      {"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"options", 6}, {"head", 7}, {"patch", 8}};
  for (const auto& [verb, field] : kOperations)
    if (item.contains(verb) && item[verb].is_object()) out.message(field, operationMessage(item[verb]));
  parameterList(out, 9, item);
  extensions(out, 10, item);
  return out;
}

}  // namespace

json openApiV2Document(const Resources& resources) {
  json paths = json::object();
  for (const auto& type : resources)
    for (const auto& version : type->names().versions) addPaths(paths, *type, version);
  return {{"swagger", "2.0"}, {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}}, {"paths", paths}};
}

std::string encodeOpenApiV2(const json& document) {
  Message out;
  out.string(1, text(document, "swagger"));
  if (document.contains("info") && document["info"].is_object())
    out.message(2, Message().string(1, text(document["info"], "title")).string(2, text(document["info"], "version")));
  strings(out, 6, document, "consumes");
  strings(out, 7, document, "produces");
  if (document.contains("paths") && document["paths"].is_object()) {
    Message paths;
    for (const auto& [path, item] : document["paths"].items())
      if (item.is_object()) paths.message(2, Message().string(1, path).message(2, pathItemMessage(item)));
    out.message(8, paths);
  }
  extensions(out, 16, document);
  return out.data();
}

}  // namespace fedhpa::api
