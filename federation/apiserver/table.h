// meta.k8s.io/v1 Table responses: the server formats every cell, kubectl prints them as they are.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "federation/api/resource.h"

namespace fedhpa::apiserver {

enum class IncludeObject { None, Metadata, Object };

struct TableOptions {
  IncludeObject includeObject = IncludeObject::Metadata;
  bool withColumnDefinitions = true;  // watch events after the first one leave them out (null)
};

// internalObjects are in the stored form; servedObjects are what `Object` mode embeds.
nlohmann::json buildTable(const api::ResourceType& type, const std::vector<nlohmann::json>& internalObjects,
                          const std::vector<nlohmann::json>& servedObjects, const TableOptions& options,
                          api::Clock::time_point now);

// Parses includeObject=None|Metadata|Object; throws ApiError 400 on anything else.
IncludeObject parseIncludeObject(const std::string& value);

}  // namespace fedhpa::apiserver
