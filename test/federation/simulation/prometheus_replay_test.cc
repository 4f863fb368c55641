#include "federation/simulation/prometheus_replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace fedhpa::simulation {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A query_range answer holding `result` (the JSON text of the series list).
std::string matrixAnswer(const std::string& result) {
  return R"({"status":"success","data":{"resultType":"matrix","result":)" + result + "}}";
}

std::string parseErrorFor(const std::string& text) {
  try {
    parsePrometheusRange(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(PrometheusReplayTest, ReadsEverySeriesWithItsLabelsAndSamples) {
  const Recording r = parsePrometheusRange(matrixAnswer(R"([
      {"metric": {"cluster": "eu", "job": "web"}, "values": [[1700000000, "12.5"], [1700000060, "13"], [1700000120, "0"]]},
      {"metric": {"cluster": "us"}, "values": [[1700000060.5, "1e2"], [1700000120.5, "7.25"]]}])"));
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.series[0].labels, (std::map<std::string, std::string>{{"cluster", "eu"}, {"job", "web"}}));
  ASSERT_EQ(r.series[0].samples.size(), 3u);
  EXPECT_DOUBLE_EQ(r.series[0].samples[1].unixSeconds, 1700000060);
  EXPECT_DOUBLE_EQ(r.series[0].samples[1].value, 13);
  EXPECT_DOUBLE_EQ(r.series[1].samples[0].value, 100);
  EXPECT_EQ(r.series[1].position, "data.result[1]");
  EXPECT_DOUBLE_EQ(r.startUnixSeconds, 1700000000);
  EXPECT_DOUBLE_EQ(r.endUnixSeconds, 1700000120.5);
  EXPECT_DOUBLE_EQ(r.spanSeconds(), 120.5);
  ASSERT_TRUE(r.stepSeconds);
  EXPECT_DOUBLE_EQ(*r.stepSeconds, 60);
  EXPECT_EQ(r.missingPoints(), 0u);
}

TEST(PrometheusReplayTest, NanValuesAreDroppedAndCountedAsMissing) {
  const Recording r = parsePrometheusRange(
      matrixAnswer(R"([{"metric": {"cluster": "eu"}, "values": [[0, "1"], [60, "NaN"], [120, "3"], [180, "NaN"], [240, "5"]]}])"));
  ASSERT_EQ(r.series[0].samples.size(), 3u);
  EXPECT_EQ(r.series[0].nanValues, 2u);
  EXPECT_DOUBLE_EQ(*r.stepSeconds, 60) << "the step is read from the samples that remain";
  EXPECT_EQ(r.missingPoints(), 2u);
}

TEST(PrometheusReplayTest, GapsAndLateStartsAreCountedPerSeriesWithinItsOwnRange) {
  // eu lacks 120 and 180; us starts late, which is not a gap of its own.
  const Recording r = parsePrometheusRange(matrixAnswer(R"([
      {"metric": {"cluster": "eu"}, "values": [[0, "1"], [60, "1"], [240, "1"], [300, "1"]]},
      {"metric": {"cluster": "us"}, "values": [[180, "2"], [240, "2"], [300, "2"]]}])"));
  EXPECT_DOUBLE_EQ(*r.stepSeconds, 60);
  EXPECT_EQ(r.missingPoints(), 2u);
  EXPECT_DOUBLE_EQ(r.startUnixSeconds, 0);
  EXPECT_DOUBLE_EQ(r.series[1].samples.front().unixSeconds, 180);
}

TEST(PrometheusReplayTest, ASingleTimeHasNoStep) {
  const Recording r = parsePrometheusRange(matrixAnswer(R"([{"metric": {"cluster": "eu"}, "values": [[60, "1"]]}])"));
  EXPECT_FALSE(r.stepSeconds);
  EXPECT_EQ(r.missingPoints(), 0u);
}

TEST(PrometheusReplayTest, KeepsPrometheusWarnings) {
  const Recording r = parsePrometheusRange(
      R"({"status":"success","warnings":["PromQL info: metric might not be a counter"],"data":{"resultType":"matrix",)"
      R"("result":[{"metric":{"cluster":"eu"},"values":[[0,"1"],[60,"2"]]}]}})");
  EXPECT_EQ(r.warnings, std::vector<std::string>{"PromQL info: metric might not be a counter"});
}

TEST(PrometheusReplayTest, AnErrorAnswerGivesPrometheusOwnReason) {
  EXPECT_EQ(parseErrorFor(R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:6: parse error"})"),
            "status: Prometheus answered with an error: bad_data: invalid parameter \"query\": 1:6: parse error");
  EXPECT_EQ(parseErrorFor(R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})"),
            "status: Prometheus answered with an error: timeout: query timed out in expression evaluation");
  EXPECT_THAT(parseErrorFor(R"({"status":"pending"})"), StartsWith("status: must be \"success\" or \"error\""));
}

TEST(PrometheusReplayTest, AnInstantQueryAnswerIsNotARecording) {
  const std::string vector = R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"cluster":"eu"},"value":[0,"1"]}]}})";
  EXPECT_THAT(parseErrorFor(vector), StartsWith("data.resultType: \"vector\", not \"matrix\""));
  EXPECT_THAT(parseErrorFor(vector), HasSubstr("/api/v1/query_range"));
  EXPECT_THAT(parseErrorFor(R"({"status":"success","data":{"resultType":"scalar","result":[0,"1"]}})"),
              StartsWith("data.resultType: \"scalar\""));
}

TEST(PrometheusReplayTest, TextThatIsNotJsonNamesLineAndColumn) {
  EXPECT_EQ(parseErrorFor("{\"status\": \"success\",\n  \"data\": {\"resultType\": matrix}}"), "line 2, column 26: not JSON");
  EXPECT_EQ(parseErrorFor(""), "line 1, column 1: not JSON");
  EXPECT_THAT(parseErrorFor(std::string(1000, '[')), StartsWith("(top level): nested deeper than"));
  // Found by prometheus_replay_fuzz: a number beyond a double's range ended the process.
  EXPECT_EQ(parseErrorFor(matrixAnswer(R"([{"metric":{},"values":[[1e99999,"1"]]}])")), "line 1, column 85: a number beyond a double's range");
}

TEST(PrometheusReplayTest, ValuesThatAreNotDemandNameTheirPosition) {
  const auto with = [](const std::string& values) {
    return parseErrorFor(matrixAnswer(R"([{"metric":{"cluster":"eu"},"values":[[0,"1"],[60,"2"]]},{"metric":{"cluster":"us"},"values":)" +
                           values + "}]"));
  };
  EXPECT_EQ(with(R"([[0,"1"],[60,"+Inf"]])"), "data.result[1].values[1][1]: +Inf is not a demand (a division by zero in the query?)");
  EXPECT_EQ(with(R"([[0,"-Inf"]])"), "data.result[1].values[0][1]: -Inf is not a demand (a division by zero in the query?)");
  EXPECT_EQ(with(R"([[0,"-3"]])"), "data.result[1].values[0][1]: -3 is negative; demand cannot be");
  EXPECT_EQ(with(R"([[0,"12 rps"]])"), "data.result[1].values[0][1]: \"12 rps\" is not a number");
  EXPECT_EQ(with(R"([[0,"1e999"]])"), "data.result[1].values[0][1]: \"1e999\" is not a number");
  EXPECT_EQ(with(R"([[0,12]])"), "data.result[1].values[0][1]: must be a number in a string, as Prometheus writes values");
  EXPECT_EQ(with(R"([[0,"1"],[0,"2"]])"), "data.result[1].values[1][0]: times must increase by a millisecond at least (0.000000 after 0.000000)");
  EXPECT_EQ(with(R"([["0","1"]])"), "data.result[1].values[0][0]: must be a number");
  EXPECT_EQ(with(R"([[1e12,"1"]])"), "data.result[1].values[0][0]: 1000000000000.000000 is past the year 2262");
  EXPECT_EQ(with(R"([[0,"1",2]])"), "data.result[1].values[0]: must be [<unix seconds>, \"<value>\"]");
  EXPECT_EQ(with(R"([[0,"NaN"]])"), "data.result[1].values: no sample with a number (every value is NaN)");
  EXPECT_EQ(with(R"([])"), "data.result[1].values: no sample with a number");
}

TEST(PrometheusReplayTest, SeriesOfTheWrongShapeNameTheirPosition) {
  EXPECT_EQ(parseErrorFor(matrixAnswer("[]")), "data.result: no series; the query matched nothing in that range");
  EXPECT_EQ(parseErrorFor(matrixAnswer(R"([{"metric":{"cluster":"eu"}}])")),
            "data.result[0].values: required, a list of [<unix seconds>, \"<value>\"]");
  EXPECT_EQ(parseErrorFor(matrixAnswer(R"([{"metric":{"cluster":"eu"},"histograms":[[0,{"count":"3"}]]}])")),
            "data.result[0].histograms: native histogram samples are not a demand; query a rate or a count");
  EXPECT_EQ(parseErrorFor(matrixAnswer(R"([{"metric":{"cluster":7},"values":[[0,"1"]]}])")),
            "data.result[0].metric.cluster: a label's value must be a string");
  EXPECT_EQ(parseErrorFor(matrixAnswer(R"(["eu"])")), "data.result[0]: must be an object with \"metric\" and \"values\"");
  EXPECT_EQ(parseErrorFor(R"({"status":"success"})"), "data: required, an object with resultType and result");
  EXPECT_EQ(parseErrorFor(R"([1, 2])"), "(top level): must be an object, the answer of /api/v1/query_range");
}

}  // namespace
}  // namespace fedhpa::simulation
