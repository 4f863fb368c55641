#include "federation/api/discovery.h"

#include <algorithm>

namespace fedhpa::api {

using nlohmann::json;

namespace {

bool serves(const ResourceNames& names, const std::string& group, const std::string& version) {
  return names.group == group && std::find(names.versions.begin(), names.versions.end(), version) != names.versions.end();
}

json responseKind(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

json aggregatedResource(const ResourceNames& names, const std::string& version) {
  json resource = {{"resource", names.resource},
                   {"responseKind", responseKind(names.group, version, names.kind)},
                   {"scope", names.namespaced ? "Namespaced" : "Cluster"},
                   {"singularResource", names.singular},
                   {"verbs", names.verbs}};
  if (!names.shortNames.empty()) resource["shortNames"] = names.shortNames;
  if (!names.categories.empty()) resource["categories"] = names.categories;
  json subresources = json::array();
  for (const auto& sub : names.subresources)
    subresources.push_back({{"subresource", sub.name},
                            {"responseKind", responseKind(sub.group, sub.version.empty() ? version : sub.version, sub.kind)},
                            {"verbs", sub.verbs}});
  if (!subresources.empty()) resource["subresources"] = subresources;
  return resource;
}

std::string groupVersion(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> servedGroupVersions(const Resources& resources) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& type : resources) {
    const auto& names = type->names();
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == names.group; });
    if (group == groups.end()) {
      groups.push_back({names.group, {}});
      group = std::prev(groups.end());
    }
    for (const auto& version : names.versions)
      if (std::find(group->second.begin(), group->second.end(), version) == group->second.end())
        group->second.push_back(version);
  }
  return groups;
}

json aggregatedDiscovery(const Resources& resources, bool core) {
  json items = json::array();
  for (const auto& [group, versions] : servedGroupVersions(resources)) {
    if (group.empty() != core) continue;
    json versionList = json::array();
    for (const auto& version : versions) {
      json list = json::array();
      for (const auto& type : resources)
        if (serves(type->names(), group, version)) list.push_back(aggregatedResource(type->names(), version));
      versionList.push_back({{"version", version}, {"freshness", "Current"}, {"resources", list}});
    }
    json metadata = {{"creationTimestamp", nullptr}};
    if (!core) metadata["name"] = group;
    items.push_back({{"metadata", metadata}, {"versions", versionList}});
  }
  return {{"kind", "APIGroupDiscoveryList"}, {"apiVersion", "apidiscovery.k8s.io/v2"}, {"metadata", json::object()}, {"items", items}};
}

json legacyApiVersions() {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", ""}}}}};
}

std::optional<json> legacyGroup(const Resources& resources, const std::string& group) {
  for (const auto& [name, versions] : servedGroupVersions(resources)) {
    if (name != group || name.empty()) continue;
    json list = json::array();
    for (const auto& version : versions) list.push_back({{"groupVersion", groupVersion(name, version)}, {"version", version}});
    return json{{"kind", "APIGroup"},
                {"apiVersion", "v1"},
                {"name", name},
                {"versions", list},
                {"preferredVersion", list.front()}};
  }
  return std::nullopt;
}

json legacyGroupList(const Resources& resources) {
  json groups = json::array();
  for (const auto& [name, versions] : servedGroupVersions(resources)) {
    if (name.empty()) continue;
    json group = *legacyGroup(resources, name);
    group.erase("kind");
    group.erase("apiVersion");
    groups.push_back(group);
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

json legacyResourceList(const Resources& resources, const std::string& group, const std::string& version) {
  json list = json::array();
  for (const auto& type : resources) {
    const auto& names = type->names();
    if (!serves(names, group, version)) continue;
    json entry = {{"name", names.resource},         {"singularName", names.singular}, {"namespaced", names.namespaced},
                  {"kind", names.kind},             {"verbs", names.verbs}};
    if (!names.shortNames.empty()) entry["shortNames"] = names.shortNames;
    if (!names.categories.empty()) entry["categories"] = names.categories;
    list.push_back(entry);
    for (const auto& sub : names.subresources) {
      json subEntry = {{"name", names.resource + "/" + sub.name}, {"singularName", ""}, {"namespaced", names.namespaced},
                       {"kind", sub.kind}, {"verbs", sub.verbs}};
      if (sub.group != names.group) {
        subEntry["group"] = sub.group;
        subEntry["version"] = sub.version;
      }
      list.push_back(subEntry);
    }
  }
  return {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", groupVersion(group, version)}, {"resources", list}};
}

}  // namespace fedhpa::api
