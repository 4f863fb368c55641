// `fedhpa simulate -f scenario.json [--policy legacy|demand|both] [--plot out.svg] [--json]`:
// replays a load scenario in virtual time and reports how well each policy served it. Several
// -f files with --markdown print docs/simulate.md's scenario table. With --from-prometheus the
// load comes from a recording (a query_range answer) and -f names the federation it runs on.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fedhpa::cmd {

struct SimulateArgs {
  std::vector<std::string> files;  // "-" for standard input
  std::string policy = "both";
  std::optional<std::string> plot;  // SVG output path (one scenario only)
  bool json = false;
  bool markdown = false;  // one Markdown table, a row per scenario and policy
  // Replay: the query_range answer ("-" for standard input) and how to read it.
  std::optional<std::string> fromPrometheus{};
  std::string clusterLabel = "cluster";
  std::optional<std::string> metricLabel{};
  std::vector<std::string> perReplica{};  // "50" or "metric=50", as given to --per-replica
};

// 0 with the report on `out`; 2 with one error line on `err` for a bad flag or scenario.
int runSimulate(const SimulateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace fedhpa::cmd
