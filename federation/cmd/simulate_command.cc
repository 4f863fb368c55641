#include "federation/cmd/simulate_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "federation/cmd/flags.h"
#include "federation/simulation/report.h"
#include "federation/simulation/svg_plot.h"

namespace fedhpa::cmd {
namespace {

namespace pt = fedhpa::partitioner;
using nlohmann::json;

std::optional<std::vector<pt::Policy::Kind>> policiesNamed(const std::string& name) {
  if (name == "both") return std::vector{pt::Policy::Kind::Demand, pt::Policy::Kind::Legacy};
  if (const auto kind = pt::parsePolicyName(name)) return std::vector{*kind};
  return std::nullopt;
}

}  // namespace

// The scenario's name in reports: its file name without the extension.
std::string scenarioName(const std::string& file) {
  return file == "-" ? "scenario" : std::filesystem::path(file).stem().string();
}

// The first line of the scenario's description ("shift: the load moves ..."), if it has one.
std::string describe(const json& document) {
  const auto it = document.find("description");
  return it != document.end() && it->is_string() ? it->get<std::string>() : "";
}

int runSimulate(const SimulateArgs& args, std::ostream& out, std::ostream& err) {
  const auto policies = policiesNamed(args.policy);
  if (!policies) {
    err << "error: --policy: must be legacy, demand or both, not " << args.policy << "\n";
    return kUsageError;
  }
  if (args.files.empty()) {
    err << "error: -f: a scenario file is required\n";
    return kUsageError;
  }
  if (args.plot && args.files.size() != 1) {
    err << "error: --plot: draws one scenario; give one -f\n";
    return kUsageError;
  }

  struct Run {
    std::string name, description;
    simulation::Scenario scenario;
    std::vector<simulation::Outcome> outcomes;
  };
  std::vector<Run> runs;
  for (const std::string& file : args.files) {
    const auto text = readInputFile(file);
    if (!text) {
      err << "error: -f " << file << ": cannot read the file\n";
      return kUsageError;
    }
    const json document = json::parse(*text, nullptr, false);
    if (document.is_discarded()) {
      err << "error: " << file << ": not JSON\n";
      return kUsageError;
    }
    Run run{scenarioName(file), "", {}, {}};
    try {
      run.scenario = simulation::parseScenario(document);
    } catch (const simulation::ScenarioError& e) {
      err << "error: " << file << ": " << e.what() << "\n";
      return kUsageError;
    }
    run.description = describe(document);
    for (const auto policy : *policies) run.outcomes.push_back(simulation::simulate(run.scenario, policy));
    runs.push_back(std::move(run));
  }

  if (args.plot) {
    std::ofstream svg(*args.plot);
    if (!svg) {
      err << "error: --plot " << *args.plot << ": cannot write the file\n";
      return kUsageError;
    }
    simulation::writeSvgPlot(svg, runs.front().scenario, runs.front().outcomes, "fedhpa simulate: " + runs.front().name);
  }
  if (args.markdown) {
    std::vector<simulation::NamedOutcomes> rows;
    for (const Run& run : runs) rows.push_back({run.name, run.description, run.outcomes});
    simulation::printMarkdown(out, rows);
  } else if (args.json && runs.size() == 1) {
    out << simulation::reportJson(runs.front().outcomes).dump(2) << "\n";
  } else if (args.json) {
    nlohmann::ordered_json all = {{"scenarios", nlohmann::ordered_json::object()}};
    for (const Run& run : runs) all["scenarios"][run.name] = simulation::reportJson(run.outcomes);
    out << all.dump(2) << "\n";
  } else {
    for (const Run& run : runs) {
      if (runs.size() > 1) out << "== " << run.name << "\n";
      simulation::printTable(out, run.outcomes);
    }
  }
  return 0;
}

}  // namespace fedhpa::cmd
