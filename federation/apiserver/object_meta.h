// Reading and writing the metadata of JSON objects, and the few values kube-apiserver makes up for
// them (uids, timestamps, generated names).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "federation/api/resource.h"

namespace fedhpa::apiserver {

using nlohmann::json;

std::string metaString(const json& object, const char* field);  // "" when absent
std::optional<std::int64_t> resourceVersionOf(const json& object);  // nullopt when absent or empty
std::vector<std::string> finalizersOf(const json& object);
void setFinalizers(json& object, const std::vector<std::string>& finalizers);
bool isBeingDeleted(const json& object);
std::map<std::string, std::string> labelsOf(const json& object);

std::string newUid();
std::string rfc3339Now(api::Clock::time_point now);
// kube-apiserver's generateName: the prefix plus five random lowercase alphanumerics.
std::string generateNameFrom(const std::string& prefix);

// Everything but metadata and status: a change here bumps metadata.generation.
bool specDiffers(const json& a, const json& b);

}  // namespace fedhpa::apiserver
