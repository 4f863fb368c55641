// Reading fields of `fedhpa simulate`'s JSON inputs (scenario files and Prometheus answers): one
// error type whose message names the field, and the readers both parsers share.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace fedhpa::simulation {

// An input that breaks a rule; what() starts with the field it is about
// ("demand.member4: unknown cluster", "data.result[2].values[7][1]: \"x\" is not a number").
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The value at object[key]; nullptr when the key is absent or its value is null.
const nlohmann::json* member(const nlohmann::json& object, const char* key);

// A JSON number that is not negative; InputError naming `field` otherwise.
double nonNegativeNumber(const nlohmann::json& value, const std::string& field);

}  // namespace fedhpa::simulation
