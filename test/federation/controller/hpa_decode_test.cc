#include "federation/controller/hpa_decode.h"

#include "federation/api/hpa_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fedhpa::controller {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json v1Hpa(int min, int max) {
  return {{"apiVersion", "autoscaling/v1"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "php-apache"}}},
          {"spec",
           {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "php-apache"}}},
            {"minReplicas", min},
            {"maxReplicas", max},
            {"targetCPUUtilizationPercentage", 50}}}};
}

std::string errorOf(const std::function<void()>& decode) {
  try {
    decode();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DecodeFederatedHpa, ReadsV1SpecAndDefaultsMinToOne) {
  json hpa = v1Hpa(2, 9);
  FederatedHpa decoded = decodeFederatedHpa(hpa, "federated");
  EXPECT_EQ(decoded.spec.limits, (partitioner::Limits{2, 9}));
  EXPECT_EQ(decoded.spec.targetCPUUtilizationPercent, 50);
  hpa["spec"].erase("minReplicas");
  EXPECT_EQ(decodeFederatedHpa(hpa, "federated").spec.limits.min, 1);
}

TEST(DecodeFederatedHpa, ReadsTheV2CpuTargetAndPreferences) {
  const json hpa = json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "x", "annotations": {"federation.kubernetes.io/hpa-preferences":
      "{\"clusters\": {\"member1\": {\"weight\": 2, \"minReplicas\": 1, \"maxReplicas\": 8}}}"}},
    "spec": {"maxReplicas": 10, "metrics": [
      {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}})");
  const FederatedHpa decoded = decodeFederatedHpa(hpa, "federated");
  EXPECT_EQ(decoded.spec.targetCPUUtilizationPercent, 60);
  ASSERT_EQ(decoded.preferences.count("member1"), 1u);
  EXPECT_EQ(decoded.preferences.at("member1").weight, 2);
  EXPECT_EQ(decoded.preferences.at("member1").maxReplicas, 8);
}

TEST(DecodeLocalHpa, ReadsV1StatusAndItsConditionsAnnotation) {
  json hpa = v1Hpa(1, 4);
  hpa["metadata"]["annotations"][api::kV1ConditionsAnnotation] =
      R"([{"type":"ScalingLimited","status":"True","reason":"TooManyReplicas"}])";
  hpa["status"] = {{"currentReplicas", 4}, {"desiredReplicas", 4},
                   {"currentCPUUtilizationPercentage", 92}, {"lastScaleTime", "2026-11-22T09:50:00Z"}};
  const partitioner::LocalHpa local = decodeLocalHpa(hpa, "clusters.member1");
  EXPECT_EQ(local.status.current, 4);
  EXPECT_EQ(local.status.desired, 4);
  EXPECT_EQ(local.status.cpuUtilizationPercent, 92);
  EXPECT_TRUE(local.status.lastScaleTime.has_value());
  EXPECT_EQ(local.status.limitedByMaxReplicas, true);
}

TEST(DecodeLocalHpa, ReadsV2CurrentMetricsAndConditions) {
  const json hpa = json::parse(R"({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "spec": {"minReplicas": 1, "maxReplicas": 4},
    "status": {"currentReplicas": 3, "desiredReplicas": 4,
      "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 77}}}],
      "conditions": [{"type": "ScalingLimited", "status": "False", "reason": "DesiredWithinRange"}]}})");
  const partitioner::LocalHpa local = decodeLocalHpa(hpa, "clusters.member1");
  EXPECT_EQ(local.status.cpuUtilizationPercent, 77);
  EXPECT_EQ(local.status.limitedByMaxReplicas, false);
  EXPECT_FALSE(local.status.lastScaleTime.has_value());
}

TEST(DecodeErrors, NameTheField) {
  json noMax = v1Hpa(1, 5);
  noMax["spec"].erase("maxReplicas");
  EXPECT_EQ(errorOf([&] { decodeFederatedHpa(noMax, "federated"); }),
            "federated.spec.maxReplicas: required");
  EXPECT_THAT(errorOf([&] { decodeFederatedHpa(v1Hpa(5, 3), "federated"); }),
              HasSubstr("federated.spec.minReplicas: must be less than or equal to maxReplicas"));
  EXPECT_EQ(errorOf([&] { decodeLocalHpa(v1Hpa(-1, 3), "clusters.a"); }),
            "clusters.a.spec.minReplicas: must be at least 0");
  EXPECT_EQ(errorOf([&] { decodeFederatedHpa(v1Hpa(0, 3), "federated"); }),
            "federated.spec.minReplicas: must be at least 1");
  json text = v1Hpa(1, 3);
  text["spec"]["maxReplicas"] = "3";
  EXPECT_EQ(errorOf([&] { decodeFederatedHpa(text, "federated"); }),
            "federated.spec.maxReplicas: must be an integer");
  json huge = v1Hpa(1, 3);
  huge["spec"]["maxReplicas"] = 4'000'000'000LL;
  EXPECT_EQ(errorOf([&] { decodeFederatedHpa(huge, "federated"); }),
            "federated.spec.maxReplicas: must fit in int32");
  json badTime = v1Hpa(1, 3);
  badTime["status"] = {{"lastScaleTime", "soon"}};
  EXPECT_THAT(errorOf([&] { decodeLocalHpa(badTime, "clusters.a"); }),
              HasSubstr("clusters.a.status.lastScaleTime: must be an RFC 3339 time"));
  json wrongKind = v1Hpa(1, 3);
  wrongKind["apiVersion"] = "apps/v1";
  EXPECT_THAT(errorOf([&] { decodeFederatedHpa(wrongKind, "federated"); }),
              HasSubstr("federated.apiVersion: must be autoscaling/v1 or autoscaling/v2"));
  EXPECT_EQ(errorOf([&] { decodeFederatedHpa(json::array(), "federated"); }),
            "federated: must be an object");
  EXPECT_EQ(errorOf([&] { decodePreferences("{not json", "p"); }), "p: must be JSON");
}

}  // namespace
}  // namespace fedhpa::controller

namespace fedhpa::controller {
namespace {

using Source = partitioner::MetricReading::Source;
using Target = partitioner::MetricReading::Target;

TEST(DecodeLocalHpa, PairsEverySpecMetricWithItsCurrentReading) {
  const json hpa = json::parse(R"({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "spec": {"minReplicas": 1, "maxReplicas": 4, "metrics": [
      {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 60}}},
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "500m"}}},
      {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app", "target": {"type": "Utilization", "averageUtilization": 45}}},
      {"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
      {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "main"}, "metric": {"name": "hits"}, "target": {"type": "Value", "value": "2k"}}},
      {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "AverageValue", "averageValue": "300Mi"}}},
      {"type": "External", "external": {"metric": {"name": "missing"}, "target": {"type": "Value", "value": "1e3"}}}]},
    "status": {"currentReplicas": 4, "desiredReplicas": 4, "currentMetrics": [
      {"type": "External", "external": {"metric": {"name": "queue"}, "current": {"averageValue": "600Mi"}}},
      {"type": "Resource", "resource": {"name": "memory", "current": {"averageUtilization": 90, "averageValue": "1Gi"}}},
      {"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "1500m"}}},
      {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app", "current": {"averageUtilization": 90}}},
      {"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"}, "current": {"averageValue": "25"}}},
      {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "main"}, "metric": {"name": "hits"}, "current": {"value": "3k"}}}]}})");
  const partitioner::LocalHpa local = decodeLocalHpa(hpa, "clusters.member1");
  ASSERT_EQ(local.metrics.size(), 7u);
  const auto& m = local.metrics;
  EXPECT_EQ(m[0].source, Source::Resource);
  EXPECT_EQ(m[0].target, Target::Utilization);
  EXPECT_EQ(m[0].name, "memory");
  EXPECT_EQ(m[0].targetValue, 60);
  EXPECT_EQ(m[0].current, 90);
  EXPECT_EQ(m[1].target, Target::AverageValue);
  EXPECT_DOUBLE_EQ(m[1].targetValue, 0.5);
  EXPECT_DOUBLE_EQ(*m[1].current, 1.5);
  EXPECT_EQ(m[2].source, Source::ContainerResource);
  EXPECT_EQ(m[2].name, "cpu in container app");
  EXPECT_EQ(m[2].current, 90);
  EXPECT_EQ(m[3].source, Source::Pods);
  EXPECT_EQ(m[3].name, "http_requests_per_second");
  EXPECT_EQ(m[3].current, 25);
  EXPECT_EQ(m[4].source, Source::Object);
  EXPECT_EQ(m[4].target, Target::Value);
  EXPECT_EQ(m[4].targetValue, 2000);
  EXPECT_EQ(m[4].current, 3000);
  EXPECT_EQ(m[5].source, Source::External);
  EXPECT_EQ(m[5].targetValue, 300.0 * 1024 * 1024);
  EXPECT_EQ(m[5].current, 600.0 * 1024 * 1024);
  EXPECT_EQ(m[6].targetValue, 1000);
  EXPECT_FALSE(m[6].current.has_value());
}

TEST(DecodeLocalHpa, MetricErrorsNameTheField) {
  json hpa = json::parse(R"({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "spec": {"maxReplicas": 4, "metrics": [
      {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "10 k"}}}]}})");
  EXPECT_EQ(errorOf([&] { decodeLocalHpa(hpa, "clusters.a"); }),
            "clusters.a.spec.metrics[0].pods.target.averageValue: must be a quantity, not \"10 k\"");
  hpa["spec"]["metrics"][0]["pods"]["target"] = {{"type", "Average"}};
  EXPECT_EQ(errorOf([&] { decodeLocalHpa(hpa, "clusters.a"); }),
            "clusters.a.spec.metrics[0].pods.target.type: must be Utilization, AverageValue or Value");
  hpa["spec"]["metrics"][0]["pods"]["target"] = {{"type", "Value"}};
  EXPECT_EQ(errorOf([&] { decodeLocalHpa(hpa, "clusters.a"); }),
            "clusters.a.spec.metrics[0].pods.target: has no value for type Value");
  hpa["spec"]["metrics"][0] = {{"type", "Pods"}};
  EXPECT_EQ(errorOf([&] { decodeLocalHpa(hpa, "clusters.a"); }),
            "clusters.a.spec.metrics[0].pods: required for type Pods");
}

}  // namespace
}  // namespace fedhpa::controller

namespace fedhpa::controller {
namespace {

TEST(DecodePreferences, ReadsTheTier) {
  const auto prefs = decodePreferences(R"({"clusters": {"cloud": {"tier": 1}, "onprem": {"maxReplicas": 4}}})", "p");
  EXPECT_EQ(prefs.at("cloud").tier, 1);
  EXPECT_FALSE(prefs.at("onprem").tier.has_value());
  EXPECT_EQ(errorOf([&] { decodePreferences(R"({"clusters": {"c": {"tier": -1}}})", "p"); }),
            "p.clusters.c.tier: must be at least 0");
}

}  // namespace
}  // namespace fedhpa::controller
