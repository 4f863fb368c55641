// How `fedhpa simulate` prints its outcomes: the `--json` document and the readable table.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "federation/simulation/replay_scenario.h"
#include "federation/simulation/simulator.h"

namespace fedhpa::simulation {

// {"policies": {"demand": {"tracking": r, "servedReplicaSeconds": s, ...}, "legacy": {...}}}
nlohmann::ordered_json reportJson(const std::vector<Outcome>& outcomes);

// {"series": 3, "start": "2026-11-28T00:00:00Z", "spanSeconds": s, "stepSeconds": s, "missingPoints": n,
//  "nanValues": n, "clustersWithoutSeries": [...], "warnings": [...]}: what a replay's recording held.
nlohmann::ordered_json replaySummaryJson(const ReplaySummary& summary);

// The same as lines above the table, one per fact worth a look (members without demand, Prometheus' warnings).
void printReplaySummary(std::ostream& out, const ReplaySummary& summary);

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
