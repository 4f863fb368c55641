#include "clusters/sim/member_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fedhpa::sim {
namespace {

using nlohmann::json;

json deployment(json annotations) { return {{"metadata", {{"annotations", annotations}}}}; }

TEST(MemberMetrics, EveryMetricTypeIsReadFromItsOwnDemandAndShownInCurrentMetrics) {
  const json metrics = json::parse(R"([
    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}},
    {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "300Mi"}}},
    {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
      "target": {"type": "Utilization", "averageUtilization": 60}}},
    {"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"},
      "target": {"type": "AverageValue", "averageValue": "10"}}},
    {"type": "Object", "object": {"metric": {"name": "requests"}, "describedObject": {"kind": "Ingress", "name": "web"},
      "target": {"type": "Value", "value": "2k"}}},
    {"type": "External", "external": {"metric": {"name": "queue_depth"}, "target": {"type": "AverageValue", "averageValue": "500m"}}}
  ])");
  // 4 pods; cpu follows the default demand 2, the others their own.
  const json app = deployment({{"sim.fedhpa.io/demand", "2"},
                               {"metrics.sim.fedhpa.io/memory", "8"},
                               {"metrics.sim.fedhpa.io/http_requests_per_second", "10"},
                               {"metrics.sim.fedhpa.io/requests", "6"},
                               {"metrics.sim.fedhpa.io/queue_depth", "1"}});
  const std::vector<MemberMetric> read = memberMetrics(metrics, app, 4);
  ASSERT_EQ(read.size(), 6u);
  EXPECT_DOUBLE_EQ(*read[0].input.current, 25);                    // 50 % * 2 / 4
  EXPECT_DOUBLE_EQ(*read[1].input.current, 300.0 * 1024 * 1024 * 2);  // 300Mi * 8 / 4
  EXPECT_DOUBLE_EQ(*read[2].input.current, 30);                    // cpu's annotation: the default
  EXPECT_DOUBLE_EQ(*read[3].input.current, 25);                    // 10 * 10 / 4
  EXPECT_DOUBLE_EQ(*read[4].input.current, 3000);                  // 2000 * 6 / 4
  EXPECT_DOUBLE_EQ(*read[5].input.current, 0.125);
  EXPECT_EQ(read[3].input.description, "pods metric http_requests_per_second");

  const json status = currentMetricsJson(read);
  ASSERT_EQ(status.size(), 6u);
  EXPECT_EQ(status[0]["resource"]["current"], json({{"averageUtilization", 25}}));
  EXPECT_FALSE(status[0]["resource"].contains("target"));
  EXPECT_EQ(status[1]["resource"]["current"], json({{"averageValue", "629145600"}}));
  EXPECT_EQ(status[2]["containerResource"]["container"], "app");
  EXPECT_EQ(status[3]["pods"]["current"], json({{"averageValue", "25"}}));
  EXPECT_EQ(status[4]["object"]["current"], json({{"value", "3000"}}));
  EXPECT_EQ(status[4]["object"]["describedObject"]["name"], "web");
  EXPECT_EQ(status[5]["external"]["current"], json({{"averageValue", "125m"}}));
}

TEST(MemberMetrics, UnknownTypesAndTargetsWithoutAValueAreLeftOut) {
  const json metrics = json::parse(R"([
    {"type": "Custom", "custom": {}},
    {"type": "Pods", "pods": {"metric": {"name": "x"}, "target": {"type": "AverageValue"}}},
    {"type": "Pods", "pods": {"metric": {"name": "y"}, "target": {"type": "AverageValue", "averageValue": "1"}}}
  ])");
  const auto read = memberMetrics(metrics, deployment(json::object()), 2);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_DOUBLE_EQ(*read[0].input.current, 0);  // no annotation at all: an idle app
}

}  // namespace
}  // namespace fedhpa::sim
