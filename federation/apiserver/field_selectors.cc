#include "federation/apiserver/field_selectors.h"

#include <set>

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

const std::set<std::string>& eventFields() {
  static const std::set<std::string> fields = {
      "involvedObject.kind",       "involvedObject.namespace", "involvedObject.name",
      "involvedObject.uid",        "involvedObject.apiVersion", "involvedObject.resourceVersion",
      "involvedObject.fieldPath",  "reason",                    "reportingComponent",
      "source",                    "type"};
  return fields;
}

bool isCore(const api::ResourceNames& names, const char* resource) {
  return names.group.empty() && names.resource == resource;
}

// "involvedObject.name" -> object["involvedObject"]["name"], as a string ("" when absent, which
// is what kube-apiserver compares against).
std::string stringAt(const json& object, const std::string& dotted) {
  const json* node = &object;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(key)) return "";
    node = &(*node)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_number()) return node->dump();
  return "";
}

}  // namespace

bool isSelectableField(const api::ResourceNames& names, const std::string& field) {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  if (isCore(names, "events")) return eventFields().count(field) > 0;
  if (isCore(names, "secrets")) return field == "type";
  if (isCore(names, "namespaces")) return field == "status.phase";
  return false;
}

std::optional<std::string> selectableFieldValue(const api::ResourceNames& names, const json& object,
                                                const std::string& field) {
  if (!isSelectableField(names, field)) return std::nullopt;
  if (isCore(names, "events") && field == "source") return stringAt(object, "source.component");
  return stringAt(object, field);
}

}  // namespace fedhpa::apiserver
