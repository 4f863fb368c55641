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

const std::string kReplay = std::string(FEDHPA_SOURCE_DIR) + "/manifests/replay/";

SimulateArgs replayArgs(const std::string& federation, const std::string& answer) {
  SimulateArgs args{{federation}, "both", std::nullopt, false};
  args.fromPrometheus = answer;
  args.perReplica = {"50"};
  return args;
}

TEST(SimulateCommandTest, ReplayingTheSampleRecordingSummarisesItAndReportsBothPolicies) {
  const SimulateResult run = simulate(replayArgs(kReplay + "federation.json", kReplay + "answer.json"));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("recording: 3 series from 2025-11-27T00:00:00Z over 24h00m, step 60 s; 12 points missing"));
  EXPECT_THAT(run.out, HasSubstr("recording: us-east has samples from 40m00s to 24h00m only"));
  EXPECT_THAT(run.out, HasSubstr("\nPOLICY    TRACKING    SERVED r*s  REFERENCE r*s"));
  EXPECT_THAT(run.out, ::testing::ContainsRegex("\ndemand +[01]\\.[0-9]{3} +[0-9]+ +[0-9]+ "));
  EXPECT_THAT(run.out, ::testing::ContainsRegex("\nlegacy +[01]\\.[0-9]{3} +[0-9]+ +[0-9]+ "));
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 6) << "summary, partial series, legend, header, two rows:\n" << run.out;
}

TEST(SimulateCommandTest, ReplayJsonCarriesTheRecordingSummary) {
  SimulateArgs args = replayArgs(kReplay + "federation.json", kReplay + "answer.json");
  args.json = true;
  const SimulateResult run = simulate(args);
  ASSERT_EQ(run.code, 0) << run.err;
  const json report = json::parse(run.out);
  const json& recording = report["recording"];
  EXPECT_EQ(recording["series"], 3);
  EXPECT_EQ(recording["start"], "2025-11-27T00:00:00Z");
  EXPECT_EQ(recording["spanSeconds"], 86400);
  EXPECT_EQ(recording["stepSeconds"], 60);
  EXPECT_EQ(recording["missingPoints"], 12);
  EXPECT_EQ(recording["clustersWithoutSeries"], json::array());
  EXPECT_EQ(recording["partialSeries"], json::parse(R"([{"series": "us-east", "fromSeconds": 2400, "toSeconds": 86400}])"));
  for (const char* policy : {"demand", "legacy"}) {
    const json& p = report["policies"][policy];
    EXPECT_GT(p["referenceReplicaSeconds"].get<double>(), 0) << policy;
    EXPECT_NEAR(p["tracking"].get<double>(), p["servedReplicaSeconds"].get<double>() / p["referenceReplicaSeconds"].get<double>(), 1e-4);
  }
  // Half the replicas' worth per request doubles the demand the shared pool serves (below its max).
  args.perReplica = {"100"};
  const json halved = json::parse(simulate(args).out);
  EXPECT_LT(halved["policies"]["demand"]["referenceReplicaSeconds"].get<double>(),
            report["policies"]["demand"]["referenceReplicaSeconds"].get<double>() * 0.6);
}

TEST(SimulateCommandTest, ReplayPlotsEveryClusterOfTheRecording) {
  const auto svgPath = std::filesystem::temp_directory_path() / ("fedhpa-replay-" + std::to_string(::getpid()) + ".svg");
  SimulateArgs args = replayArgs(kReplay + "federation.json", kReplay + "answer.json");
  args.plot = svgPath.string();
  ASSERT_EQ(simulate(args).code, 0);
  std::ifstream in(svgPath);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(svgPath);
  for (const char* text : {">eu-west<", ">us-east<", ">ap-south<", "demand policy: local max", "legacy policy: replicas"})
    EXPECT_THAT(svg, HasSubstr(text));
}

TEST(SimulateCommandTest, AMemberWithoutASeriesIsSaidToHaveNoDemand) {
  const std::string federation = writeTemp(R"({"federated": {"maxReplicas": 40}, "clusters": ["eu-west", "us-east", "ap-south", "sa-east"]})");
  const SimulateResult run = simulate(replayArgs(federation, kReplay + "answer.json"));
  std::filesystem::remove(federation);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("recording: no series for sa-east, so it has no demand"));
}

TEST(SimulateCommandTest, ReplayGivesEachMetricItsSeriesWithAMetricLabel) {
  const std::string federation = writeTemp(R"({"federated": {"minReplicas": 2, "maxReplicas": 20, "metrics": [
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
      {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "50"}}}]},
      "clusters": ["a", "b"]})");
  const auto answerPath = std::filesystem::temp_directory_path() / ("fedhpa-answer-" + std::to_string(::getpid()) + ".json");
  std::ofstream(answerPath) << R"({"status": "success", "warnings": ["PromQL info: metric might not be a counter"],
      "data": {"resultType": "matrix", "result": [
        {"metric": {"cluster": "a", "metric": "cpu"}, "values": [[1700000000, "0.5"], [1700000600, "3"], [1700001200, "0.5"]]},
        {"metric": {"cluster": "a", "metric": "rps"}, "values": [[1700000000, "100"], [1700000600, "NaN"], [1700001200, "400"]]},
        {"metric": {"cluster": "b", "metric": "rps"}, "values": [[1700000000, "200"], [1700000600, "300"], [1700001200, "200"]]}]}})";
  SimulateArgs args{{federation}, "both", std::nullopt, true};
  args.fromPrometheus = answerPath.string();
  args.metricLabel = "metric";
  args.perReplica = {"cpu=0.3", "rps=50"};
  const SimulateResult run = simulate(args);
  SimulateArgs oneFigure = args;
  oneFigure.perReplica = {"rps=50"};
  const SimulateResult missingFigure = simulate(oneFigure);
  std::filesystem::remove(federation);
  std::filesystem::remove(answerPath);
  ASSERT_EQ(run.code, 0) << run.err;
  const json report = json::parse(run.out);
  EXPECT_EQ(report["recording"]["series"], 3);
  EXPECT_EQ(report["recording"]["nanValues"], 1);
  EXPECT_EQ(report["recording"]["warnings"], json::array({"PromQL info: metric might not be a counter"}));
  EXPECT_GT(report["policies"]["demand"]["servedReplicaSeconds"].get<double>(), 0);
  EXPECT_EQ(missingFigure.code, 2);
  EXPECT_EQ(missingFigure.err, "error: --per-replica: no figure for metric cpu (give --per-replica cpu=N, or --per-replica N for every metric)\n");
}

TEST(SimulateCommandTest, ReplayErrorsNameTheFileAndPosition) {
  const std::string twoClusters = writeTemp(R"({"federated": {"maxReplicas": 40}, "clusters": ["eu-west", "us-east"]})");
  const SimulateResult unknown = simulate(replayArgs(twoClusters, kReplay + "answer.json"));
  std::filesystem::remove(twoClusters);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.err, "error: " + kReplay + "answer.json: data.result[2].metric.cluster: \"ap-south\" is not a cluster of the "
                         "federation file (its clusters: eu-west, us-east)\n");

  const std::string broken = writeTemp("{\"status\": \"success\", \"data\": [1,\n 2,, 3]}");
  const SimulateResult notJson = simulate(replayArgs(kReplay + "federation.json", broken));
  std::filesystem::remove(broken);
  EXPECT_EQ(notJson.code, 2);
  EXPECT_EQ(notJson.err, "error: " + broken + ": line 2, column 4: not JSON\n");

  const std::string withDemand = writeTemp(R"({"federated": {"maxReplicas": 40}, "clusters": ["eu-west"], "demand": {"eu-west": [[0, 1]]}})");
  const SimulateResult loaded = simulate(replayArgs(withDemand, kReplay + "answer.json"));
  std::filesystem::remove(withDemand);
  EXPECT_EQ(loaded.code, 2);
  EXPECT_THAT(loaded.err, HasSubstr("error: " + withDemand + ": demand: the recording gives the load"));

  SimulateArgs noFigure = replayArgs(kReplay + "federation.json", kReplay + "answer.json");
  noFigure.perReplica.clear();
  EXPECT_EQ(simulate(noFigure).err, "error: --per-replica: required, how much of a series' value one replica serves\n");

  SimulateArgs notReplaying{{kScenarios + "shift.json"}, "both", std::nullopt, false};
  notReplaying.perReplica = {"50"};
  EXPECT_EQ(simulate(notReplaying).err, "error: --per-replica: only with --from-prometheus\n");
  EXPECT_EQ(simulate(replayArgs(kReplay + "federation.json", "/nonexistent/answer.json")).err,
            "error: --from-prometheus /nonexistent/answer.json: cannot read the file\n");
}

}  // namespace
}  // namespace fedhpa::cmd
