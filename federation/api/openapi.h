// OpenAPI v3 documents generated from the served types. kubectl reads them only to decide that the
// server validates fields itself: each PATCH operation declares the fieldValidation parameter.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "federation/api/discovery.h"

namespace fedhpa::api {

// {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, "apis/autoscaling/v2": ...}}
nlohmann::json openApiRoot(const Resources& resources);
// The document of "api/v1" or "apis/<group>/<version>"; nullopt when nothing is served there.
std::optional<nlohmann::json> openApiDocument(const Resources& resources, const std::string& groupVersionPath);

}  // namespace fedhpa::api
