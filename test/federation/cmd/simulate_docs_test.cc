// The simulate figures README.md and docs/simulate.md show are what the commands next to them
// print now: a change to the member model or the partitioner that moves a figure fails here until
// the docs are regenerated (the command is written beside each figure).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "federation/cmd/simulate_command.h"

namespace fedhpa::cmd {
namespace {

using ::testing::HasSubstr;

const std::string kSource = std::string(FEDHPA_SOURCE_DIR) + "/";

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string run(const SimulateArgs& args) {
  std::ostringstream out, err;
  EXPECT_EQ(runSimulate(args, out, err), 0) << err.str();
  return out.str();
}

std::vector<std::string> standardScenarios() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "test/bench/scenarios"))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// `build/fedhpa simulate -f manifests/replay/federation.json --from-prometheus
// manifests/replay/answer.json --per-replica 50 --plot docs/simulate-replay.svg`
TEST(SimulateDocsTest, TheReplayOfTheSampleIsWhatReadmeAndTheGuideShow) {
  const auto svgPath = std::filesystem::temp_directory_path() / ("fedhpa-docs-replay-" + std::to_string(::getpid()) + ".svg");
  SimulateArgs args{{kSource + "manifests/replay/federation.json"}, "both", svgPath.string(), false};
  args.fromPrometheus = kSource + "manifests/replay/answer.json";
  args.perReplica = {"50"};
  const std::string table = run(args);
  const std::string svg = readFile(svgPath.string());
  std::filesystem::remove(svgPath);
  EXPECT_THAT(readFile(kSource + "README.md"), HasSubstr(table));
  EXPECT_THAT(readFile(kSource + "docs/simulate.md"), HasSubstr(table));
  EXPECT_TRUE(svg == readFile(kSource + "docs/simulate-replay.svg")) << "docs/simulate-replay.svg is not what the sample plots now";
}

// The shift scenario's table at the top of docs/simulate.md, and the plots of shift and tiers.
TEST(SimulateDocsTest, TheShiftAndTiersFiguresAreWhatTheScenariosGive) {
  EXPECT_THAT(readFile(kSource + "docs/simulate.md"),
              HasSubstr(run({{kSource + "test/bench/scenarios/shift.json"}, "both", std::nullopt, false})));
  for (const std::string scenario : {"shift", "tiers"}) {
    const auto svgPath = std::filesystem::temp_directory_path() / ("fedhpa-docs-" + scenario + std::to_string(::getpid()) + ".svg");
    run({{kSource + "test/bench/scenarios/" + scenario + ".json"}, "both", svgPath.string(), false});
    const std::string svg = readFile(svgPath.string());
    std::filesystem::remove(svgPath);
    EXPECT_TRUE(svg == readFile(kSource + "docs/simulate-" + scenario + ".svg")) << "docs/simulate-" << scenario << ".svg";
  }
}

// `build/fedhpa simulate --markdown -f test/bench/scenarios/<each>.json`: the guide's table, and
// README's tracking row per policy (its columns are the scenarios, in the same order).
TEST(SimulateDocsTest, TheStandardScenariosTablesAreWhatTheScenariosGive) {
  SimulateArgs args{standardScenarios(), "both", std::nullopt, false};
  args.markdown = true;
  const std::string markdown = run(args);
  EXPECT_THAT(readFile(kSource + "docs/simulate.md"), HasSubstr(markdown));
  args.markdown = false;
  args.json = true;
  const auto report = nlohmann::json::parse(run(args));
  const std::string readme = readFile(kSource + "README.md");
  for (const char* policy : {"demand", "legacy"}) {
    std::string row = std::string("| ") + policy + " |";
    for (const auto& [scenario, result] : report["scenarios"].items()) {
      char tracking[16];
      std::snprintf(tracking, sizeof tracking, " %.3f |", result["policies"][policy]["tracking"].get<double>());
      row += tracking;
    }
    EXPECT_THAT(readme, HasSubstr(row + "\n"));
  }
}

// docs/simulate.md's table of every standard scenario at the member-sim's 20 s pod startup, for
// each scenario that sets none (its jq loop writes the same copies).
TEST(SimulateDocsTest, TheTwentySecondPodStartupTableIsWhatTheScenariosGive) {
  const auto dir = std::filesystem::temp_directory_path() / ("fedhpa-docs-pods20-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::string> copies;
  for (const std::string& file : standardScenarios()) {
    auto scenario = nlohmann::json::parse(readFile(file));
    if (!scenario.contains("podStartupSeconds")) scenario["podStartupSeconds"] = 20;
    const auto copy = dir / std::filesystem::path(file).filename();
    std::ofstream(copy) << scenario.dump() << "\n";
    copies.push_back(copy.string());
  }
  SimulateArgs args{copies, "both", std::nullopt, false};
  args.markdown = true;
  const std::string markdown = run(args);
  std::filesystem::remove_all(dir);
  const std::string table = markdown.substr(0, markdown.find("\n\n") + 1);  // without the descriptions
  ASSERT_THAT(table, HasSubstr("| rotation | demand |"));
  EXPECT_THAT(readFile(kSource + "docs/simulate.md"), HasSubstr("/tmp/pods20/*.json)\n```\n\n" + table));
}

}  // namespace
}  // namespace fedhpa::cmd
