#include "partitioner/types.h"

namespace fedhpa::partitioner {

std::string_view policyName(Policy::Kind kind) {
  return kind == Policy::Kind::Legacy ? "legacy" : "demand";
}

std::optional<Policy::Kind> parsePolicyName(std::string_view name) {
  if (name == "legacy") return Policy::Kind::Legacy;
  if (name == "demand") return Policy::Kind::Demand;
  return std::nullopt;
}

}  // namespace fedhpa::partitioner
