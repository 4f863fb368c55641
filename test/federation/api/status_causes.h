// What the API tests compare validation results by: the fields the causes name, in order.
#pragma once

#include <string>
#include <vector>

#include "federation/api/status.h"

namespace fedhpa::api {

inline std::vector<std::string> fieldsOf(const std::vector<StatusCause>& causes) {
  std::vector<std::string> fields;
  for (const auto& cause : causes) fields.push_back(cause.field);
  return fields;
}

}  // namespace fedhpa::api
