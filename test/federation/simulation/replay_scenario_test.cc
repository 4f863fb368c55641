#include "federation/simulation/replay_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace fedhpa::simulation {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Scenario threeClusterFederation() {
  return parseReplayFederation(json::parse(R"({"federated": {"minReplicas": 3, "maxReplicas": 30},
                                                "clusters": ["eu", "us", "ap"]})"));
}

Scenario federationWithMetrics() {
  return parseReplayFederation(json::parse(R"({"federated": {"minReplicas": 3, "maxReplicas": 30, "metrics": [
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
      {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "50"}}}]},
      "clusters": ["eu", "us"]})"));
}

Recording recordingOf(const std::string& result) {
  return parsePrometheusRange(R"({"status":"success","data":{"resultType":"matrix","result":)" + result + "}}");
}

ReplayOptions perReplica(double figure) { return {"cluster", std::nullopt, {figure, {}}}; }

std::string replayErrorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Two series a minute apart at 1700000000: eu throughout, us from the second minute with a gap.
const char* const kTwoClusters = R"([
    {"metric": {"cluster": "eu"}, "values": [[1700000000, "100"], [1700000060, "200"], [1700000120, "300"], [1700000180, "300"], [1700000240, "100"]]},
    {"metric": {"cluster": "us"}, "values": [[1700000060, "50"], [1700000180, "150"]]}])";

TEST(ReplayScenarioTest, EachValueDividedByThePerReplicaFigureIsThatClustersDemand) {
  const Replay r = replay(threeClusterFederation(), recordingOf(kTwoClusters), perReplica(50));
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("eu", 0), 2);
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("eu", 60), 4);
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("eu", 90), 5) << "linear between samples";
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("eu", 240), 2);
  EXPECT_EQ(r.scenario.duration.count(), 240) << "the recording's span";
  EXPECT_EQ(r.scenario.federated, (partitioner::Limits{3, 30})) << "the federation file's settings stay";
}

TEST(ReplayScenarioTest, ASeriesIsZeroOutsideItsSamplesAndBridgedAcrossGaps) {
  const Replay r = replay(threeClusterFederation(), recordingOf(kTwoClusters), perReplica(50));
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("us", 0), 0) << "before its first sample, one step earlier";
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("us", 30), 0.5);
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("us", 60), 1);
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("us", 120), 2) << "the missing sample at 120 is bridged";
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("us", 180), 3);
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("us", 240), 0) << "after its last sample, one step later";
  ASSERT_EQ(r.summary.partialSeries.size(), 1u);
  EXPECT_EQ(r.summary.partialSeries[0].name, "us");
  EXPECT_DOUBLE_EQ(r.summary.partialSeries[0].fromSeconds, 60);
  EXPECT_DOUBLE_EQ(r.summary.partialSeries[0].toSeconds, 180);
}

TEST(ReplayScenarioTest, TheSummarySaysWhatTheRecordingHeldAndWhoHadNoSeries) {
  const Replay r = replay(threeClusterFederation(), recordingOf(kTwoClusters), perReplica(50));
  EXPECT_EQ(r.summary.series, 2u);
  EXPECT_EQ(r.summary.start, "2023-11-14T22:13:20Z");
  EXPECT_DOUBLE_EQ(r.summary.spanSeconds, 240);
  EXPECT_EQ(r.summary.stepSeconds, 60);
  EXPECT_EQ(r.summary.missingPoints, 1u);
  EXPECT_THAT(r.summary.clustersWithoutSeries, ElementsAre("ap"));
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("ap", 100), 0);
}

TEST(ReplayScenarioTest, TheClusterLabelIsTheOneNamed) {
  ReplayOptions options = perReplica(10);
  options.clusterLabel = "region";
  const Replay r = replay(threeClusterFederation(), recordingOf(R"([{"metric": {"cluster": "x", "region": "eu"}, "values": [[0, "10"], [60, "20"]]}])"),
                          options);
  EXPECT_DOUBLE_EQ(r.scenario.demandAt("eu", 60), 2);
  EXPECT_EQ(replayErrorOf([&] { replay(threeClusterFederation(), recordingOf(R"([{"metric": {"cluster": "eu"}, "values": [[0, "1"], [60, "2"]]}])"), options); }),
            "data.result[0].metric: no \"region\" label (its labels: cluster); --cluster-label names the label to read");
}

TEST(ReplayScenarioTest, AMetricLabelGivesEachMetricItsOwnDemand) {
  ReplayOptions options{"cluster", "metric", {std::nullopt, {{"cpu", 0.5}, {"rps", 50}}}};
  const Replay r = replay(federationWithMetrics(), recordingOf(R"([
      {"metric": {"cluster": "eu", "metric": "cpu"}, "values": [[0, "2"], [60, "3"]]},
      {"metric": {"cluster": "eu", "metric": "rps"}, "values": [[0, "500"], [60, "100"]]},
      {"metric": {"cluster": "us", "metric": "rps"}, "values": [[0, "50"], [60, "50"]]}])"),
                          options);
  EXPECT_DOUBLE_EQ(r.scenario.metricDemandAt(0, "eu", 0), 4);   // cpu: 2 cores / 0.5 per replica
  EXPECT_DOUBLE_EQ(r.scenario.metricDemandAt(1, "eu", 0), 10);  // rps: 500 / 50
  EXPECT_DOUBLE_EQ(r.scenario.metricDemandAt(1, "us", 60), 1);
  EXPECT_DOUBLE_EQ(r.scenario.metricDemandAt(0, "us", 60), 0) << "no cpu series for us: no cpu demand";
  EXPECT_TRUE(r.summary.clustersWithoutSeries.empty());
}

TEST(ReplayScenarioTest, SeriesTheFederationCannotPlaceAreErrorsNamingThem) {
  EXPECT_EQ(replayErrorOf([] { replay(threeClusterFederation(), recordingOf(R"([{"metric": {"cluster": "eu"}, "values": [[0, "1"], [60, "1"]]},
                                                              {"metric": {"cluster": "member9"}, "values": [[0, "1"]]}])"),
                               perReplica(1)); }),
            "data.result[1].metric.cluster: \"member9\" is not a cluster of the federation file (its clusters: eu, us, ap)");
  EXPECT_EQ(replayErrorOf([] { replay(threeClusterFederation(), recordingOf(R"([{"metric": {"job": "web", "instance": "a:80"}, "values": [[0, "1"], [60, "1"]]}])"),
                               perReplica(1)); }),
            "data.result[0].metric: no \"cluster\" label (its labels: instance, job); --cluster-label names the label to read");
  EXPECT_EQ(replayErrorOf([] { replay(threeClusterFederation(), recordingOf(R"([{"values": [[0, "1"], [60, "1"]]}])"), perReplica(1)); }),
            "data.result[0].metric: no \"cluster\" label (its labels: none); --cluster-label names the label to read");
  EXPECT_THAT(replayErrorOf([] { replay(threeClusterFederation(), recordingOf(R"([{"metric": {"cluster": "eu", "pod": "a"}, "values": [[0, "1"], [60, "1"]]},
                                                                {"metric": {"cluster": "eu", "pod": "b"}, "values": [[0, "1"]]}])"),
                                  perReplica(1)); }),
              HasSubstr("data.result[1]: a second series for eu (the first is data.result[0]); aggregate the query by the label"));
  ReplayOptions byMetric{"cluster", "metric", {1, {}}};
  EXPECT_EQ(replayErrorOf([&] { replay(federationWithMetrics(), recordingOf(R"([{"metric": {"cluster": "eu", "metric": "qps"}, "values": [[0, "1"], [60, "1"]]}])"),
                                 byMetric); }),
            "data.result[0].metric.metric: \"qps\" is not a metric of federated.metrics");
}

TEST(ReplayScenarioTest, ARecordingWithoutARangeOrTooLongToSimulateIsRefused) {
  EXPECT_EQ(replayErrorOf([] { replay(threeClusterFederation(), recordingOf(R"([{"metric": {"cluster": "eu"}, "values": [[60, "1"]]}])"), perReplica(1)); }),
            "data.result: every sample is at one time; a replay needs a range (start < end)");
  EXPECT_THAT(replayErrorOf([] { replay(threeClusterFederation(), recordingOf(R"([{"metric": {"cluster": "eu"}, "values": [[0, "1"], [2000000, "1"]]}])"),
                                  perReplica(1)); }),
              HasSubstr("simulation steps of stepSeconds 5; replay a shorter range or raise stepSeconds"));
}

TEST(ReplayScenarioTest, PerReplicaFlagsAreAFigureOrMetricEqualsFigure) {
  const DemandPerReplica p = parsePerReplica({"50", "rps=12.5"});
  EXPECT_EQ(p.anyMetric, 50);
  EXPECT_EQ(p.byMetric, (std::map<std::string, double>{{"rps", 12.5}}));
  EXPECT_EQ(replayErrorOf([] { parsePerReplica({"0"}); }), "--per-replica: 0 is not a positive number");
  EXPECT_EQ(replayErrorOf([] { parsePerReplica({"fifty"}); }), "--per-replica: fifty is not a positive number");
  EXPECT_EQ(replayErrorOf([] { parsePerReplica({"rps="}); }), "--per-replica rps:  is not a positive number");
  EXPECT_EQ(replayErrorOf([] { parsePerReplica({"=5"}); }), "--per-replica: =5 lacks the metric's name before =");
  EXPECT_EQ(replayErrorOf([] { parsePerReplica({"5", "6"}); }), "--per-replica: given twice without a metric name (6)");
  EXPECT_EQ(replayErrorOf([] { parsePerReplica({"rps=5", "rps=6"}); }), "--per-replica rps: given twice");
}

TEST(ReplayScenarioTest, OptionsMustFitTheFederation) {
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(threeClusterFederation(), {"cluster", std::nullopt, {}}); }),
            "--per-replica: required, how much of a series' value one replica serves");
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(threeClusterFederation(), {"cluster", std::nullopt, {std::nullopt, {{"rps", 5}}}}); }),
            "--per-replica rps: a figure per metric needs --metric-label");
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(threeClusterFederation(), {"cluster", "metric", {1, {}}}); }),
            "--metric-label: the federation file's federated.metrics lists no metric to give series to");
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(federationWithMetrics(), {"cluster", "metric", {std::nullopt, {{"rps", 5}}}}); }),
            "--per-replica: no figure for metric cpu (give --per-replica cpu=N, or --per-replica N for every metric)");
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(federationWithMetrics(), {"cluster", "metric", {1, {{"qps", 5}}}}); }),
            "--per-replica qps: federated.metrics has no metric of that name");
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(threeClusterFederation(), {"", std::nullopt, {1, {}}}); }), "--cluster-label: must name a label");
  EXPECT_EQ(replayErrorOf([] { checkReplayOptions(federationWithMetrics(), {"cluster", "metric", {1, {}}}); }), "(accepted)");
}

TEST(ReplayScenarioTest, TheFederationFileLeavesTheLoadToTheRecording) {
  for (const char* field : {"demand", "metricDemand", "durationSeconds"}) {
    json document = json::parse(R"({"federated": {"maxReplicas": 30}, "clusters": ["eu"]})");
    document[field] = json::object();
    EXPECT_EQ(replayErrorOf([&] { parseReplayFederation(document); }),
              std::string(field) + ": the recording gives the load and its span; leave it out of a replay's federation file");
  }
  EXPECT_EQ(replayErrorOf([] { parseReplayFederation(json::parse(R"({"clusters": ["eu"]})")); }), "federated: required, an object");
}

}  // namespace
}  // namespace fedhpa::simulation
