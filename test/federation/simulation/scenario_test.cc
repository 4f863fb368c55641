#include "federation/simulation/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fedhpa::simulation {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json minimal() {
  return json::parse(R"({"federated": {"minReplicas": 3, "maxReplicas": 30, "targetCPUUtilizationPercentage": 50},
                         "clusters": ["member1", "member2"],
                         "demand": {"member1": [[0, 2], [600, 12], [1200, 2]]},
                         "outages": [{"cluster": "member2", "from": 900, "to": 1500}]})");
}

std::string errorFor(const json& document) {
  try {
    parseScenario(document);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ScenarioTest, DefaultsAreTheDocumentedOnes) {
  const Scenario s = parseScenario(minimal());
  EXPECT_EQ(s.federated, (partitioner::Limits{3, 30}));
  EXPECT_EQ(s.targetUtilization, 50);
  EXPECT_EQ(s.duration.count(), 3600);
  EXPECT_EQ(s.step.count(), 5);
  EXPECT_EQ(s.hpaSync.count(), 15);
  EXPECT_EQ(s.reconcile.count(), 15);
  EXPECT_EQ(s.scaleForbiddenWindow.count(), 120);
  EXPECT_EQ(s.unhealthyGrace.count(), 40);
  EXPECT_DOUBLE_EQ(s.controller.tolerance, 0.1) << "kube-controller-manager's defaults";
  EXPECT_EQ(s.controller.downscaleStabilization.count(), 300);
  EXPECT_EQ(s.controller.cpuInitializationPeriod.count(), 300);
  EXPECT_EQ(s.controller.initialReadinessDelay.count(), 30);
}

TEST(ScenarioTest, TheHpaControllersFlagsUnderKubesNames) {
  json document = minimal();
  document["horizontalPodAutoscalerTolerance"] = 0.05;
  document["horizontalPodAutoscalerDownscaleStabilizationSeconds"] = 60;
  document["horizontalPodAutoscalerCpuInitializationPeriodSeconds"] = 120;
  document["horizontalPodAutoscalerInitialReadinessDelaySeconds"] = 10;
  const Scenario s = parseScenario(document);
  EXPECT_DOUBLE_EQ(s.controller.tolerance, 0.05);
  EXPECT_EQ(s.controller.downscaleStabilization.count(), 60);
  EXPECT_EQ(s.controller.cpuInitializationPeriod.count(), 120);
  EXPECT_EQ(s.controller.initialReadinessDelay.count(), 10);
  document["horizontalPodAutoscalerTolerance"] = -1;
  EXPECT_THAT(errorFor(document), HasSubstr("horizontalPodAutoscalerTolerance"));
}

TEST(ScenarioTest, TheSyncPeriodIsKubesFlagAndTheOldNameStillReads) {
  json document = minimal();
  document["horizontalPodAutoscalerSyncPeriodSeconds"] = 30;
  EXPECT_EQ(parseScenario(document).hpaSync.count(), 30);
  document["horizontalPodAutoscalerSyncPeriodSeconds"] = 7;
  EXPECT_THAT(errorFor(document), HasSubstr("horizontalPodAutoscalerSyncPeriodSeconds: must be a multiple of stepSeconds"));
  document["horizontalPodAutoscalerSyncPeriodSeconds"] = 0;
  EXPECT_THAT(errorFor(document), HasSubstr("horizontalPodAutoscalerSyncPeriodSeconds: must be at least 1"));

  json old = minimal();
  old["hpaSyncSeconds"] = 20;
  EXPECT_EQ(parseScenario(old).hpaSync.count(), 20) << "scenarios written before keep working";
  old["hpaSyncSeconds"] = 7;
  EXPECT_THAT(errorFor(old), HasSubstr("hpaSyncSeconds: must be a multiple of stepSeconds")) << "the error names the key given";
  old["hpaSyncSeconds"] = 20;
  old["horizontalPodAutoscalerSyncPeriodSeconds"] = 20;
  EXPECT_THAT(errorFor(old), HasSubstr("hpaSyncSeconds: the old name of horizontalPodAutoscalerSyncPeriodSeconds; give one of them"));
}

TEST(ScenarioTest, PodStartupIsOneFigureOrPerCluster) {
  EXPECT_EQ(parseScenario(minimal()).podStartupFor("member1").count(), 0) << "by default pods are ready at once";
  json all = minimal();
  all["podStartupSeconds"] = 45;
  const Scenario everyCluster = parseScenario(all);
  EXPECT_EQ(everyCluster.podStartupFor("member1").count(), 45);
  EXPECT_EQ(everyCluster.podStartupFor("member2").count(), 45);
  EXPECT_EQ(everyCluster.sharedPoolPodStartup().count(), 45);
  json some = minimal();
  some["podStartupSeconds"] = {{"member2", 90}};
  const Scenario perCluster = parseScenario(some);
  EXPECT_EQ(perCluster.podStartupFor("member1").count(), 0);
  EXPECT_EQ(perCluster.podStartupFor("member2").count(), 90);
  EXPECT_EQ(perCluster.sharedPoolPodStartup().count(), 0) << "the shared pool gets the shortest";
  some["podStartupSeconds"] = {{"member9", 10}};
  EXPECT_THAT(errorFor(some), HasSubstr("podStartupSeconds.member9"));
  all["podStartupSeconds"] = -1;
  EXPECT_THAT(errorFor(all), HasSubstr("podStartupSeconds: must be at least 0"));
  all["podStartupSeconds"] = "30s";
  EXPECT_THAT(errorFor(all), HasSubstr("podStartupSeconds: must be an integer or an object"));
}

TEST(ScenarioTest, DemandIsPiecewiseLinearAndConstantOutsideItsPoints) {
  const Scenario s = parseScenario(minimal());
  EXPECT_DOUBLE_EQ(s.demandAt("member1", 0), 2);
  EXPECT_DOUBLE_EQ(s.demandAt("member1", 300), 7);
  EXPECT_DOUBLE_EQ(s.demandAt("member1", 600), 12);
  EXPECT_DOUBLE_EQ(s.demandAt("member1", 900), 7);
  EXPECT_DOUBLE_EQ(s.demandAt("member1", 5000), 2);
  EXPECT_DOUBLE_EQ(s.demandAt("member2", 100), 0) << "a cluster without a curve has no demand";
}

TEST(ScenarioTest, OutagesCoverFromUpToButNotIncludingTo) {
  const Scenario s = parseScenario(minimal());
  EXPECT_FALSE(s.isDown("member2", 899));
  EXPECT_TRUE(s.isDown("member2", 900));
  EXPECT_TRUE(s.isDown("member2", 1499));
  EXPECT_FALSE(s.isDown("member2", 1500));
  EXPECT_FALSE(s.isDown("member1", 1000));
}

TEST(ScenarioTest, PreferencesReadAsTheAnnotationDoes) {
  json document = minimal();
  document["preferences"] = {{"clusters", {{"member1", {{"weight", 2}, {"maxReplicas", 8}}}}}};
  const Scenario s = parseScenario(document);
  EXPECT_EQ(s.preferences.at("member1").weight, 2);
  EXPECT_EQ(s.preferences.at("member1").maxReplicas, 8);
}

TEST(ScenarioTest, EveryBrokenRuleIsNamed) {
  json unknownDemand = minimal();
  unknownDemand["demand"]["member9"] = json::parse("[[0, 1]]");
  EXPECT_THAT(errorFor(unknownDemand), HasSubstr("demand.member9: unknown cluster member9"));

  json unknownOutage = minimal();
  unknownOutage["outages"][0]["cluster"] = "member9";
  EXPECT_THAT(errorFor(unknownOutage), HasSubstr("outages[0].cluster: unknown cluster"));

  json negative = minimal();
  negative["demand"]["member1"][1][1] = -4;
  EXPECT_THAT(errorFor(negative), HasSubstr("demand.member1[1][1]: must not be negative"));

  json minAboveMax = minimal();
  minAboveMax["federated"]["minReplicas"] = 40;
  EXPECT_THAT(errorFor(minAboveMax), HasSubstr("federated.minReplicas: 40 is more than maxReplicas 30"));

  json noClusters = minimal();
  noClusters["clusters"] = json::array();
  noClusters.erase("demand");
  noClusters.erase("outages");
  EXPECT_THAT(errorFor(noClusters), HasSubstr("clusters: at least one cluster"));

  json backwards = minimal();
  backwards["demand"]["member1"] = json::parse("[[0, 1], [600, 2], [600, 3]]");
  EXPECT_THAT(errorFor(backwards), HasSubstr("demand.member1[2]: times must increase"));

  json noMax = minimal();
  noMax["federated"].erase("maxReplicas");
  EXPECT_THAT(errorFor(noMax), HasSubstr("federated.maxReplicas: required"));

  json typo = minimal();
  typo["durationSecond"] = 60;
  EXPECT_THAT(errorFor(typo), HasSubstr("durationSecond: unknown field"));

  json outageBackwards = minimal();
  outageBackwards["outages"][0]["to"] = 100;
  EXPECT_THAT(errorFor(outageBackwards), HasSubstr("outages[0].to: must be after from"));

  json offStep = minimal();
  offStep["horizontalPodAutoscalerSyncPeriodSeconds"] = 7;
  EXPECT_THAT(errorFor(offStep), HasSubstr("horizontalPodAutoscalerSyncPeriodSeconds: must be a multiple of stepSeconds"));

  json twice = minimal();
  twice["clusters"].push_back("member1");
  EXPECT_THAT(errorFor(twice), HasSubstr("clusters[2]: member1 appears twice"));
}

}  // namespace
TEST(ScenarioTest, MetricListsGiveEachMetricItsOwnDemandOrTheSingleOne) {
  json document = minimal();
  document["federated"]["metrics"] = json::parse(R"([
    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}},
    {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "2k"}}}])");
  document["metricDemand"] = {{"queue", {{"member2", json::parse("[[0, 7]]")}}}};
  const Scenario s = parseScenario(document);
  ASSERT_EQ(s.demandCount(), 2u);
  EXPECT_EQ(s.metrics[1].targetValue, 2000);
  EXPECT_EQ(s.metricDemandAt(1, "member2", 100), 7);
  EXPECT_EQ(s.metricDemandAt(0, "member2", 100), 0);          // cpu: member2's single demand (none)
  EXPECT_EQ(s.metricDemandAt(1, "member1", 600), 12);         // queue on member1: its single demand
}

TEST(ScenarioTest, MetricDemandAndSpillRulesAreNamed) {
  json unknownMetric = minimal();
  unknownMetric["metricDemand"] = {{"queue", {{"member1", json::parse("[[0, 1]]")}}}};
  EXPECT_THAT(errorFor(unknownMetric), HasSubstr("metricDemand.queue: federated.metrics has no metric of that name"));

  json badMetric = minimal();
  badMetric["federated"]["metrics"] = json::parse(R"([{"type": "Pods", "pods": {"metric": {"name": "x"}, "target": {"type": "Nope"}}}])");
  EXPECT_THAT(errorFor(badMetric), HasSubstr("federated.metrics[0].pods.target.type"));

  json chain = minimal();
  chain["clusters"].push_back("member3");
  chain["spill"] = {{"member1", "member2"}, {"member2", "member3"}};
  EXPECT_THAT(errorFor(chain), HasSubstr("spill.member2: member1 spills into it, so it cannot spill on"));

  json unknownTarget = minimal();
  unknownTarget["spill"] = {{"member1", "member9"}};
  EXPECT_THAT(errorFor(unknownTarget), HasSubstr("spill.member1: unknown cluster member9"));
}

}  // namespace fedhpa::simulation
