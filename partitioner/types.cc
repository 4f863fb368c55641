#include "partitioner/types.h"

namespace fedhpa::partitioner {

std::string_view policyName(Policy::Kind kind) {
  switch (kind) {
    case Policy::Kind::Legacy:
      return "legacy";
    case Policy::Kind::Static:
      return "static";
    case Policy::Kind::Demand:
      break;
  }
  return "demand";
}

std::optional<Policy::Kind> parsePolicyName(std::string_view name) {
  if (name == "legacy") return Policy::Kind::Legacy;
  if (name == "demand") return Policy::Kind::Demand;
  if (name == "static") return Policy::Kind::Static;
  return std::nullopt;
}

}  // namespace fedhpa::partitioner
