#include "federation/simulation/json_fields.h"

namespace fedhpa::simulation {

const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

double nonNegativeNumber(const nlohmann::json& value, const std::string& field) {
  if (!value.is_number()) throw InputError(field + ": must be a number");
  const double result = value.get<double>();
  if (result < 0) throw InputError(field + ": must not be negative");
  return result;
}

}  // namespace fedhpa::simulation
