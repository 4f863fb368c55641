// Cell formatting kube-apiserver's table printers share.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "federation/api/resource.h"

namespace fedhpa::api {

// kube's duration.HumanDuration: 5s, 119s, 2m3s, 12m, 3h, 4h5m, 47h, 4d, 5d3h, 400d, 3y20d.
std::string humanDuration(std::chrono::seconds duration);
// The Age column: time since metadata.creationTimestamp; "<unknown>" without one.
std::string ageOf(const nlohmann::json& object, Clock::time_point now);
// A string field at a JSON pointer, or fallback.
std::string stringAt(const nlohmann::json& object, const std::string& pointer, const std::string& fallback = "");
// The column every type starts with.
TableColumn nameColumn();
TableColumn ageColumn();

}  // namespace fedhpa::api
