#include "federation/cmd/simulate_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "federation/cmd/flags.h"
#include "federation/simulation/prometheus_replay.h"
#include "federation/simulation/replay_scenario.h"
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

// The scenario's name in reports: its file name without the extension.
std::string scenarioName(const std::string& file) {
  return file == "-" ? "scenario" : std::filesystem::path(file).stem().string();
}

// The first line of the scenario's description ("shift: the load moves ..."), if it has one.
std::string describe(const json& document) {
  const auto it = document.find("description");
  return it != document.end() && it->is_string() ? it->get<std::string>() : "";
}

struct Run {
  std::string name, description;
  simulation::Scenario scenario;
  std::optional<simulation::ReplaySummary> recording;  // a replay's
  std::vector<simulation::Outcome> outcomes;
};

// The JSON of an input file; an error line and nullopt when it cannot be read or is not JSON.
std::optional<json> readJsonFile(const std::string& file, const char* flag, std::ostream& err) {
  const auto text = readInputFile(file);
  if (!text) {
    err << "error: " << flag << " " << file << ": cannot read the file\n";
    return std::nullopt;
  }
  json document = json::parse(*text, nullptr, false);
  if (document.is_discarded()) {
    err << "error: " << file << ": not JSON\n";
    return std::nullopt;
  }
  return document;
}

std::optional<Run> loadScenario(const std::string& file, std::ostream& err) {
  const auto document = readJsonFile(file, "-f", err);
  if (!document) return std::nullopt;
  Run run{scenarioName(file), describe(*document), {}, std::nullopt, {}};
  try {
    run.scenario = simulation::parseScenario(*document);
  } catch (const simulation::InputError& e) {
    err << "error: " << file << ": " << e.what() << "\n";
    return std::nullopt;
  }
  return run;
}

// -f names the federation, --from-prometheus the recording; each error names the file it is about.
std::optional<Run> loadReplay(const SimulateArgs& args, std::ostream& err) {
  const std::string& federationFile = args.files.front();
  const std::string& answerFile = *args.fromPrometheus;
  const auto document = readJsonFile(federationFile, "-f", err);
  if (!document) return std::nullopt;
  simulation::Scenario federation;
  try {
    federation = simulation::parseReplayFederation(*document);
  } catch (const simulation::InputError& e) {
    err << "error: " << federationFile << ": " << e.what() << "\n";
    return std::nullopt;
  }
  simulation::ReplayOptions options{args.clusterLabel, args.metricLabel, {}};
  try {
    options.perReplica = simulation::parsePerReplica(args.perReplica);
    simulation::checkReplayOptions(federation, options);
  } catch (const simulation::InputError& e) {
    err << "error: " << e.what() << "\n";
    return std::nullopt;
  }
  const auto answer = readInputFile(answerFile);
  if (!answer) {
    err << "error: --from-prometheus " << answerFile << ": cannot read the file\n";
    return std::nullopt;
  }
  try {
    simulation::Replay replay = simulation::replay(std::move(federation), simulation::parsePrometheusRange(*answer), options);
    return Run{scenarioName(answerFile), describe(*document), std::move(replay.scenario), std::move(replay.summary), {}};
  } catch (const simulation::InputError& e) {
    err << "error: " << answerFile << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

// Replay flags without --from-prometheus would be silently ignored: say so instead.
std::optional<std::string> replayFlagWithoutRecording(const SimulateArgs& args) {
  if (args.fromPrometheus) return std::nullopt;
  if (!args.perReplica.empty()) return "--per-replica";
  if (args.metricLabel) return "--metric-label";
  if (args.clusterLabel != "cluster") return "--cluster-label";
  return std::nullopt;
}

}  // namespace

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
  if (args.fromPrometheus && args.files.size() != 1) {
    err << "error: --from-prometheus: replays on one federation; give one -f\n";
    return kUsageError;
  }
  if (args.fromPrometheus && *args.fromPrometheus == "-" && args.files.front() == "-") {
    err << "error: --from-prometheus: standard input can hold one file; give -f or the recording a path\n";
    return kUsageError;
  }
  if (const auto flag = replayFlagWithoutRecording(args)) {
    err << "error: " << *flag << ": only with --from-prometheus\n";
    return kUsageError;
  }

  std::vector<Run> runs;
  if (args.fromPrometheus) {
    auto run = loadReplay(args, err);
    if (!run) return kUsageError;
    runs.push_back(std::move(*run));
  } else {
    for (const std::string& file : args.files) {
      auto run = loadScenario(file, err);
      if (!run) return kUsageError;
      runs.push_back(std::move(*run));
    }
  }
  for (Run& run : runs)
    for (const auto policy : *policies) run.outcomes.push_back(simulation::simulate(run.scenario, policy));

  if (args.plot) {
    std::ofstream svg(*args.plot);
    if (!svg) {
      err << "error: --plot " << *args.plot << ": cannot write the file\n";
      return kUsageError;
    }
    simulation::writeSvgPlot(svg, runs.front().scenario, runs.front().outcomes, "fedhpa simulate: " + runs.front().name);
  }
  const auto reportOf = [](const Run& run) {
    nlohmann::ordered_json report = simulation::reportJson(run.outcomes);
    if (run.recording) report["recording"] = simulation::replaySummaryJson(*run.recording);
    return report;
  };
  if (args.markdown) {
    std::vector<simulation::NamedOutcomes> rows;
    for (const Run& run : runs) rows.push_back({run.name, run.description, run.outcomes});
    simulation::printMarkdown(out, rows);
  } else if (args.json && runs.size() == 1) {
    out << reportOf(runs.front()).dump(2) << "\n";
  } else if (args.json) {
    nlohmann::ordered_json all = {{"scenarios", nlohmann::ordered_json::object()}};
    for (const Run& run : runs) all["scenarios"][run.name] = reportOf(run);
    out << all.dump(2) << "\n";
  } else {
    for (const Run& run : runs) {
      if (runs.size() > 1) out << "== " << run.name << "\n";
      if (run.recording) simulation::printReplaySummary(out, *run.recording);
      simulation::printTable(out, run.outcomes);
    }
  }
  return 0;
}

}  // namespace fedhpa::cmd
