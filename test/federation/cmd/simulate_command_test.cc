#include "federation/cmd/simulate_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fedhpa::cmd {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::string kScenarios = std::string(FEDHPA_SOURCE_DIR) + "/test/bench/scenarios/";

struct SimulateResult {
  int code;
  std::string out, err;
};

SimulateResult simulate(SimulateArgs args) {
  std::ostringstream out, err;
  const int code = runSimulate(args, out, err);
  return {code, out.str(), err.str()};
}

std::string writeTemp(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("fedhpa-scenario-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  return path.string();
}

TEST(SimulateCommandTest, JsonReportsTheFiguresOfThePoliciesAskedFor) {
  const SimulateResult both = simulate({{kScenarios + "shift.json"}, "both", std::nullopt, true});
  ASSERT_EQ(both.code, 0) << both.err;
  const json report = json::parse(both.out);
  for (const char* policy : {"demand", "legacy"}) {
    const json& p = report["policies"][policy];
    for (const char* key : {"tracking", "servedReplicaSeconds", "referenceReplicaSeconds", "unmetReplicaSeconds", "peakUnmet",
                            "limitChanges", "adaptSeconds"})
      EXPECT_TRUE(p.contains(key)) << policy << " lacks " << key;
    EXPECT_NEAR(p["tracking"].get<double>(), p["servedReplicaSeconds"].get<double>() / p["referenceReplicaSeconds"].get<double>(), 1e-4);
  }
  const json demandOnly = json::parse(simulate({{kScenarios + "shift.json"}, "demand", std::nullopt, true}).out);
  EXPECT_EQ(demandOnly["policies"].size(), 1u);
  EXPECT_TRUE(demandOnly["policies"].contains("demand"));
}

TEST(SimulateCommandTest, TheTableHasARowPerPolicy) {
  const SimulateResult run = simulate({{kScenarios + "spike.json"}, "both", std::nullopt, false});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("TRACKING"));
  EXPECT_THAT(run.out, ::testing::ContainsRegex("\ndemand +[01]\\.[0-9]{3} "));
  EXPECT_THAT(run.out, ::testing::ContainsRegex("\nlegacy +[01]\\.[0-9]{3} "));
}

TEST(SimulateCommandTest, MarkdownHasARowPerScenarioAndPolicyAndTheDescriptions) {
  SimulateArgs args{{kScenarios + "shift.json", kScenarios + "skewed.json"}, "both", std::nullopt, false};
  args.markdown = true;
  const SimulateResult run = simulate(args);
  ASSERT_EQ(run.code, 0) << run.err;
  for (const char* row : {"| shift | demand | ", "| shift | legacy | ", "| skewed | demand | ", "| skewed | legacy | "})
    EXPECT_THAT(run.out, HasSubstr(row));
  EXPECT_THAT(run.out, HasSubstr("- skewed: member1 holds 80% of the load"));
}

TEST(SimulateCommandTest, ThePlotHasAPanelPerClusterAndBothPolicies) {
  const auto svgPath = std::filesystem::temp_directory_path() / ("fedhpa-plot-" + std::to_string(::getpid()) + ".svg");
  const SimulateResult run = simulate({{kScenarios + "outage.json"}, "both", svgPath.string(), false});
  ASSERT_EQ(run.code, 0) << run.err;
  std::ifstream in(svgPath);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(svgPath);
  EXPECT_THAT(svg, HasSubstr("<svg"));
  for (const char* text : {">member1<", ">member2<", ">member3<", "demand policy: local max", "legacy policy: replicas", ">outage<"})
    EXPECT_THAT(svg, HasSubstr(text));
}

TEST(SimulateCommandTest, InvalidScenariosExitTwoWithOneClearLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not JSON"},
      {R"({"federated": {"maxReplicas": 3}, "clusters": []})", "clusters: at least one cluster"},
      {R"({"federated": {"minReplicas": 5, "maxReplicas": 3}, "clusters": ["a"]})", "minReplicas: 5 is more than maxReplicas 3"},
      {R"({"federated": {"maxReplicas": 3}, "clusters": ["a"], "demand": {"b": [[0, 1]]}})", "unknown cluster b"},
      {R"({"federated": {"maxReplicas": 3}, "clusters": ["a"], "demand": {"a": [[0, -1]]}})", "must not be negative"},
      {R"({"federated": {"maxReplicas": 3}, "clusters": ["a"], "demand": {"a": [[10, 1], [5, 2]]}})", "times must increase"},
  };
  for (const auto& [text, message] : cases) {
    const std::string file = writeTemp(text);
    const SimulateResult run = simulate({{file}, "both", std::nullopt, false});
    std::filesystem::remove(file);
    EXPECT_EQ(run.code, 2) << text;
    EXPECT_THAT(run.err, HasSubstr(message)) << text;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_TRUE(run.out.empty());
  }
  EXPECT_EQ(simulate({{kScenarios + "shift.json"}, "greedy", std::nullopt, false}).code, 2);
  EXPECT_EQ(simulate({{"/nonexistent/scenario.json"}, "both", std::nullopt, false}).code, 2);
}

}  // namespace
}  // namespace fedhpa::cmd
