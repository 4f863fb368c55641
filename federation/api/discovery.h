// Discovery documents built from the served types: aggregated (apidiscovery.k8s.io/v2, one round
// trip, what kubectl 1.32 asks for first) and legacy (APIVersions, APIGroupList, APIResourceList).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "federation/api/resource.h"

namespace fedhpa::api {

using Resources = std::vector<std::shared_ptr<const ResourceType>>;

// core = true: the /api document (the core group alone); false: /apis (every named group).
nlohmann::json aggregatedDiscovery(const Resources& resources, bool core);
nlohmann::json legacyApiVersions();
nlohmann::json legacyGroupList(const Resources& resources);
std::optional<nlohmann::json> legacyGroup(const Resources& resources, const std::string& group);
// An APIResourceList; its "resources" is empty when nothing is served at group/version.
nlohmann::json legacyResourceList(const Resources& resources, const std::string& group, const std::string& version);

// The groups in the order they are first served, each with its versions, preferred first.
std::vector<std::pair<std::string, std::vector<std::string>>> servedGroupVersions(const Resources& resources);

}  // namespace fedhpa::api
