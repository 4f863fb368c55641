// The fields each resource lets clients select on (kube-apiserver's field label conversions):
// metadata.name and metadata.namespace everywhere, involvedObject.* and friends on Events, type on
// Secrets, status.phase on Namespaces.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "federation/api/resource.h"

namespace fedhpa::apiserver {

bool isSelectableField(const api::ResourceNames& names, const std::string& field);
std::optional<std::string> selectableFieldValue(const api::ResourceNames& names, const nlohmann::json& object,
                                                const std::string& field);

}  // namespace fedhpa::apiserver
