// Field checks kube-apiserver applies to every object, with its messages.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "federation/api/status.h"

namespace fedhpa::api {

// PathSegment: any name that can be one URL path segment (RBAC objects: "system:controller:x").
enum class NameRule { DnsSubdomain, DnsLabel, PathSegment };

bool isDnsSubdomain(const std::string& value);
bool isDnsLabel(const std::string& value);

// metadata.name (required, per rule), metadata.labels/annotations keys and values.
std::vector<StatusCause> validateObjectMeta(const nlohmann::json& object, NameRule rule);

// Reads an integer field that the schema check has already typed; nullopt when absent.
std::optional<long long> integerAt(const nlohmann::json& object, const nlohmann::json::json_pointer& pointer);

}  // namespace fedhpa::api
