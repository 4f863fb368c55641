// `fedhpa partition -f case.json [--policy legacy|demand] [--now RFC3339]`: prints the plan the
// partitioner makes for one federated HPA and the local HPAs of its clusters.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "partitioner/types.h"

namespace fedhpa::cmd {

struct PartitionArgs {
  std::string file;  // "-" for standard input
  std::string policy = "demand";
  std::optional<std::string> now;  // RFC 3339; the current time when absent
};

// The case file ({"federated": HPA, "clusters": {name: HPA | null}, "scaleForbiddenWindowSeconds":
// n}) to the plan's JSON. Throws controller::DecodeError naming the offending field.
nlohmann::ordered_json planCase(const nlohmann::json& input, partitioner::Policy::Kind policy,
                                partitioner::TimePoint now);

// The whole command: 0 with the plan on `out`, or 2 with one error line on `err`.
int runPartition(const PartitionArgs& args, std::ostream& out, std::ostream& err);

}  // namespace fedhpa::cmd
