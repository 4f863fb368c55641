// How `fedhpa simulate` prints its outcomes: the `--json` document and the readable table.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "federation/simulation/simulator.h"

namespace fedhpa::simulation {

// {"policies": {"demand": {"tracking": r, "servedReplicaSeconds": s, ...}, "legacy": {...}}}
nlohmann::ordered_json reportJson(const std::vector<Outcome>& outcomes);

// One row per policy, with the adaptation times.
void printTable(std::ostream& out, const std::vector<Outcome>& outcomes);

struct NamedOutcomes {
  std::string scenario;
  std::string description;
  std::vector<Outcome> outcomes;
};

// docs/simulate.md's table: a row per scenario and policy.
void printMarkdown(std::ostream& out, const std::vector<NamedOutcomes>& scenarios);

}  // namespace fedhpa::simulation
