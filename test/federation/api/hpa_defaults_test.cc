#include "federation/api/hpa_defaults.h"

#include <gtest/gtest.h>

#include "federation/api/hpa_type.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;

const json kCpu80 = json::parse(
    R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}])");
const json kScaleUpPolicies =
    json::parse(R"([{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}])");
const json kScaleDownPolicies = json::parse(R"([{"type":"Percent","value":100,"periodSeconds":15}])");

json defaulted(json spec) {
  applyHpaV2Defaults(spec);
  return spec;
}

TEST(ApplyHpaV2Defaults, ABareSpecGetsMinReplicasAndTheCpuTarget) {
  const json spec = defaulted({{"maxReplicas", 10}});
  EXPECT_EQ(spec, json({{"maxReplicas", 10}, {"minReplicas", 1}, {"metrics", kCpu80}}));
  EXPECT_FALSE(spec.contains("behavior")) << "no behavior is given one";
}

TEST(ApplyHpaV2Defaults, EmptyOrNullMetricsAndNullMinReplicasAreDefaultedToo) {
  EXPECT_EQ(defaulted({{"metrics", json::array()}})["metrics"], kCpu80);
  EXPECT_EQ(defaulted({{"metrics", nullptr}, {"minReplicas", nullptr}}), json({{"metrics", kCpu80}, {"minReplicas", 1}}));
  EXPECT_EQ(defaulted(nullptr), json({{"minReplicas", 1}, {"metrics", kCpu80}}));
}

TEST(ApplyHpaV2Defaults, WhatIsSetStays) {
  const json spec = json::parse(R"({"minReplicas":3,"maxReplicas":9,
    "metrics":[{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}}],
    "behavior":{"scaleUp":{"stabilizationWindowSeconds":30,"selectPolicy":"Min","policies":[{"type":"Pods","value":1,"periodSeconds":60}]},
                "scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Disabled","policies":[]}}})");
  EXPECT_EQ(defaulted(spec), spec) << "an explicit empty policy list is kept, as Kubernetes keeps a non-nil slice";
}

TEST(ApplyHpaV2Defaults, AnEmptyBehaviorGetsKubernetesRulesAndNoScaleDownWindow) {
  const json behavior = defaulted({{"behavior", json::object()}})["behavior"];
  EXPECT_EQ(behavior["scaleUp"], json({{"stabilizationWindowSeconds", 0}, {"selectPolicy", "Max"}, {"policies", kScaleUpPolicies}}));
  EXPECT_EQ(behavior["scaleDown"], json({{"selectPolicy", "Max"}, {"policies", kScaleDownPolicies}}))
      << "the scale-down window is the member controller's flag, not a stored default";
}

TEST(ApplyHpaV2Defaults, APartialRuleIsCompletedFieldByField) {
  const json spec = defaulted(json::parse(R"({"behavior":{"scaleDown":{"stabilizationWindowSeconds":0},"scaleUp":{"selectPolicy":"Min"}}})"));
  EXPECT_EQ(spec["behavior"]["scaleDown"],
            json({{"stabilizationWindowSeconds", 0}, {"selectPolicy", "Max"}, {"policies", kScaleDownPolicies}}));
  EXPECT_EQ(spec["behavior"]["scaleUp"],
            json({{"stabilizationWindowSeconds", 0}, {"selectPolicy", "Min"}, {"policies", kScaleUpPolicies}}));
}

TEST(ApplyHpaV2Defaults, IsIdempotent) {
  for (const json& spec : {json::object(), json({{"behavior", json::object()}}),
                           json::parse(R"({"minReplicas":2,"behavior":{"scaleUp":null,"scaleDown":{"policies":null}}})")}) {
    const json once = defaulted(spec);
    EXPECT_EQ(defaulted(once), once) << spec;
  }
}

TEST(ApplyHpaV2Defaults, LeavesWrongTypesForValidation) {
  EXPECT_EQ(defaulted("spec"), json("spec"));
  const json spec = defaulted({{"metrics", "cpu"}, {"behavior", {{"scaleUp", 7}}}, {"minReplicas", 2}});
  EXPECT_EQ(spec["metrics"], "cpu");
  EXPECT_EQ(spec["behavior"]["scaleUp"], 7);
}

TEST(ApplyHpaV2Defaults, IsWhatTheServedHpaTypeApplies) {
  json hpa = {{"apiVersion", "autoscaling/v2"}, {"kind", "HorizontalPodAutoscaler"},
              {"metadata", {{"name", "web"}}}, {"spec", {{"maxReplicas", 4}, {"behavior", json::object()}}}};
  json expected = hpa;
  applyHpaV2Defaults(expected["spec"]);
  horizontalPodAutoscalerType()->applyDefaults(hpa);
  EXPECT_EQ(hpa, expected);
}

}  // namespace
}  // namespace fedhpa::api
