// Kubernetes' own HPA controller cases, transcribed as facts: each row is one case of
// pkg/controller/podautoscaler/horizontal_test.go (named by its Go test), with its inputs (spec,
// scale, pods, metric readings, the controller's remembered recommendations) and what kube
// expects: the desired replicas and the conditions. Per-pod CPU readings are percentages of each
// pod's request; where kube's case gives pods different requests the row gives kube's total
// utilisation (sum of usage over sum of requests) instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "clusters/sim/model/hpa_model.h"
#include "test/clusters/sim/model/kube_cases.h"

namespace fedhpa::sim {
namespace {

using namespace kube;
using M = MetricSource;
using T = TargetType;

struct ExpectedCondition {
  std::string type;
  bool status;
  std::string reason;
};

// statusOkWithOverrides: AbleToScale SucceededRescale, ScalingActive ValidMetricFound, ScalingLimited
// DesiredWithinRange, each replaced by an override of its type.
std::vector<ExpectedCondition> ok(std::vector<ExpectedCondition> overrides = {}) {
  std::vector<ExpectedCondition> out = {{"AbleToScale", true, "SucceededRescale"},
                                        {"ScalingActive", true, "ValidMetricFound"},
                                        {"ScalingLimited", false, "DesiredWithinRange"}};
  for (const auto& override : overrides)
    for (auto& condition : out)
      if (condition.type == override.type) condition = override;
  return out;
}

using Recommendations = std::optional<std::vector<HpaMemory::Recommendation>>;
const Recommendations kNewHpa = std::nullopt;            // kube's nil: the first sync records the current size
const Recommendations kNoRecommendations = std::vector<HpaMemory::Recommendation>{};

struct ControllerCase {
  std::string goTest;
  int minReplicas;
  int maxReplicas;
  std::optional<int> specReplicas;  // nullopt: the scale cannot be read
  std::vector<MetricInput> metrics;
  std::vector<Pod> pods;
  Recommendations recommendations;
  std::optional<Behavior> behavior;
  std::optional<int> expectedReplicas;  // nullopt: kube leaves status.desiredReplicas as it was
  std::vector<ExpectedCondition> expectedConditions;
};

std::ostream& operator<<(std::ostream& out, const ControllerCase& c) { return out << c.goTest; }

std::vector<ControllerCase> cases() {
  const auto ready = [](std::initializer_list<bool> readiness, bool hot = false) {
    std::vector<Pod> pods;
    for (bool r : readiness) pods.push_back(hot ? hotPod(r) : coolPod(r));
    return pods;
  };
  Behavior upscaleCap;
  upscaleCap.scaleUp = rules(0, 0, 700, 60, 0);
  Behavior scaleDownWithRules;
  scaleDownWithRules.scaleUp = rules(0, 0, 100, 15, 30);
  const MetricInput failingExternal = metric(M::External, T::Value, 1, std::nullopt);
  std::vector<Pod> failedTwo = coolPods(2);
  failedTwo.push_back({Pod::Phase::Failed, false, false, kNow - std::chrono::minutes(3), kNow - std::chrono::minutes(3)});
  failedTwo.push_back(failedTwo.back());
  std::vector<Pod> deletingTwo = coolPods(2);
  deletingTwo.push_back({Pod::Phase::Running, false, true, kNow - std::chrono::minutes(3), kNow - std::chrono::minutes(3)});
  deletingTwo.push_back(deletingTwo.back());

  return {
      {"TestScaleUp", 2, 6, 3, {cpuUtilization(30, {30, 50, 70})}, coolPods(3), kNewHpa, {}, 5, ok()},
      {"TestScaleUpContainer", 2, 6, 3, {metric(M::ContainerResource, T::Utilization, 30, std::nullopt, {30, 50, 70})}, coolPods(3),
       kNewHpa, {}, 5, ok()},
      {"TestScaleUpDeployment", 2, 6, 3, {cpuUtilization(30, {30, 50, 70})}, coolPods(3), kNewHpa, {}, 5, ok()},
      {"TestScaleUpReplicaSet", 2, 6, 3, {cpuUtilization(30, {30, 50, 70})}, coolPods(3), kNewHpa, {}, 5, ok()},
      {"TestScaleUpUnreadyLessScale", 2, 6, 3, {cpuUtilization(30, {30, 50, 70})}, ready({false, true, true}), kNewHpa, {}, 4, ok()},
      {"TestScaleUpHotCpuLessScale", 2, 6, 3, {cpuUtilization(30, {30, 50, 70})}, {hotPod(), coolPod(), coolPod()}, kNewHpa, {}, 4, ok()},
      {"TestScaleUpUnreadyNoScale", 2, 6, 3, {cpuUtilization(30, {40, 50, 70})}, ready({true, false, false}), kNewHpa, {}, 3,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestScaleUpHotCpuNoScale", 2, 6, 3, {cpuUtilization(30, {40, 50, 70})}, {coolPod(), hotPod(false), hotPod(false)}, kNewHpa, {}, 3,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestScaleUpIgnoresFailedPods", 2, 6, 2, {cpuUtilization(30, {50, 70, std::nullopt, std::nullopt})}, failedTwo, kNewHpa, {}, 4, ok()},
      {"TestScaleUpIgnoresDeletionPods", 2, 6, 2, {cpuUtilization(30, {50, 70, std::nullopt, std::nullopt})}, deletingTwo, kNewHpa, {}, 4,
       ok()},
      {"TestScaleUpCM", 2, 6, 3, {metric(M::Pods, T::AverageValue, 15, std::nullopt, {20, 10, 30})}, coolPods(3), kNewHpa, {}, 4, ok()},
      {"TestScaleUpCMUnreadyAndHotCpuNoLessScale", 2, 6, 3, {metric(M::Pods, T::AverageValue, 15, std::nullopt, {50, 10, 30})},
       {coolPod(), coolPod(), hotPod(false)}, kNewHpa, {}, 6, ok()},
      {"TestScaleUpCMUnreadyandCpuHot", 2, 6, 3, {metric(M::Pods, T::AverageValue, 15, std::nullopt, {50, 15, 30})},
       {hotPod(false), coolPod(), hotPod(false)}, kNewHpa, {}, 6, ok({{"ScalingLimited", true, "TooManyReplicas"}})},
      {"TestScaleUpHotCpuNoScaleWouldScaleDown", 2, 6, 3, {metric(M::Pods, T::AverageValue, 15, std::nullopt, {50, 15, 30})},
       {hotPod(), coolPod(), hotPod()}, kNewHpa, {}, 6, ok({{"ScalingLimited", true, "TooManyReplicas"}})},
      {"TestScaleUpCMObject", 2, 6, 3, {metric(M::Object, T::Value, 15, 20)}, {}, kNewHpa, {}, 4, ok()},
      {"TestScaleUpFromZeroCMObject", 0, 6, 0, {metric(M::Object, T::Value, 15, 20)}, {}, kNewHpa, {}, 2, ok()},
      {"TestScaleUpFromZeroIgnoresToleranceCMObject", 0, 6, 0, {metric(M::Object, T::Value, 1, 1)}, {}, kNewHpa, {}, 1, ok()},
      {"TestScaleUpPerPodCMObject", 2, 6, 3, {metric(M::Object, T::AverageValue, 10, 40.0 / 3)}, {}, kNewHpa, {}, 4, ok()},
      {"TestScaleUpCMExternal", 2, 6, 3, {metric(M::External, T::Value, 6.666, 8.6)}, {}, kNewHpa, {}, 4, ok()},
      {"TestScaleUpPerPodCMExternal", 2, 6, 3, {metric(M::External, T::AverageValue, 2.222, 8.6 / 3)}, {}, kNewHpa, {}, 4, ok()},
      {"TestScaleDown", 2, 6, 5, {cpuUtilization(50, {10, 30, 50, 25, 25})}, coolPods(5), kNoRecommendations, {}, 3, ok()},
      {"TestScaleDownContainerResource", 2, 6, 5, {metric(M::ContainerResource, T::Utilization, 50, std::nullopt, {10, 30, 50, 25, 25})},
       coolPods(5), kNoRecommendations, {}, 3, ok()},
      {"TestScaleDownWithScalingRules", 2, 6, 5, {cpuUtilization(50, {10, 30, 50, 25, 25})}, coolPods(5), kNoRecommendations,
       scaleDownWithRules, 3, ok()},
      {"TestScaleDownStabilizeInitialSize", 2, 6, 5, {cpuUtilization(50, {10, 30, 50, 25, 25})}, coolPods(5), kNewHpa, {}, 5,
       ok({{"AbleToScale", true, "ScaleDownStabilized"}})},
      {"TestScaleDownCM", 2, 6, 5, {metric(M::Pods, T::AverageValue, 20, std::nullopt, {12, 12, 12, 12, 12})}, coolPods(5),
       kNoRecommendations, {}, 3, ok()},
      {"TestScaleDownCMObject", 2, 6, 5, {metric(M::Object, T::Value, 20, 12)}, coolPods(5), kNoRecommendations, {}, 3, ok()},
      {"TestScaleDownToZeroCMObject", 0, 6, 5, {metric(M::Object, T::Value, 20, 0)}, coolPods(5), kNoRecommendations, {}, 0, ok()},
      {"TestToleranceCMExternal", 2, 6, 4, {metric(M::External, T::Value, 8.666, 8.6)}, {}, kNewHpa, {}, 4,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestTolerancePerPodCMObject", 2, 6, 4, {metric(M::Object, T::AverageValue, 2.2, 8.6 / 4)}, {}, kNewHpa, {}, 4,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestTolerancePerPodCMExternal", 2, 6, 4, {metric(M::External, T::AverageValue, 2.2, 8.6 / 4)}, {}, kNewHpa, {}, 4,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      // 115m of 3000m requested: 3 %.
      {"TestMinReplicas", 2, 5, 3, {cpuUtilizationTotal(90, 3)}, {}, kNoRecommendations, {}, 2, ok({{"ScalingLimited", true, "TooFewReplicas"}})},
      {"TestZeroMinReplicasDesiredZero", 0, 5, 3, {cpuUtilizationTotal(90, 0)}, {}, kNoRecommendations, {}, 0, ok()},
      {"TestMinReplicasDesiredZero", 2, 5, 3, {cpuUtilizationTotal(90, 0)}, {}, kNoRecommendations, {}, 2,
       ok({{"ScalingLimited", true, "TooFewReplicas"}})},
      {"TestZeroReplicas", 3, 5, 0, {cpuUtilizationTotal(90, std::nullopt)}, {}, kNewHpa, {}, 0,
       {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "ScalingDisabled"}}},
      {"TestTooFewReplicas", 3, 5, 2, {cpuUtilizationTotal(90, std::nullopt)}, {}, kNewHpa, {}, 3, {{"AbleToScale", true, "SucceededRescale"}}},
      {"TestTooManyReplicas", 3, 5, 10, {cpuUtilizationTotal(90, std::nullopt)}, {}, kNewHpa, {}, 5, {{"AbleToScale", true, "SucceededRescale"}}},
      // 18500m of 3000m requested: 616 %.
      {"TestMaxReplicas", 2, 5, 3, {cpuUtilizationTotal(90, 616)}, {}, kNewHpa, {}, 5, ok({{"ScalingLimited", true, "TooManyReplicas"}})},
      {"TestSuperfluousMetrics", 2, 6, 4, {cpuUtilization(100, {400, 950, 300, 700})}, coolPods(4), kNewHpa, {}, 6,
       ok({{"ScalingLimited", true, "TooManyReplicas"}})},
      {"TestMissingMetrics", 2, 6, 4, {cpuUtilization(100, {40, 9.5, std::nullopt, std::nullopt})}, coolPods(4), kNoRecommendations, {}, 3,
       ok()},
      {"TestEmptyMetrics", 2, 6, 4, {cpuUtilization(100, {std::nullopt, std::nullopt, std::nullopt, std::nullopt})}, coolPods(4), kNewHpa, {},
       4, {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "FailedGetResourceMetric"}}},
      {"TestEventCreated", 1, 5, 1, {cpuUtilization(50, {100})}, coolPods(1), kNewHpa, {}, 2, ok()},
      {"TestEventNotCreated", 1, 5, 2, {cpuUtilization(50, {50, 50})}, coolPods(2), kNewHpa, {}, 2,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestMissingReports", 1, 5, 4, {cpuUtilization(50, {100})}, coolPods(1), kNoRecommendations, {}, 2, ok()},
      {"TestUpscaleCap", 1, 100, 3, {cpuUtilization(10, {100, 200, 300})}, coolPods(3), kNewHpa, upscaleCap, 24,
       ok({{"ScalingLimited", true, "ScaleUpLimit"}})},
      {"TestUpscaleCapGreaterThanMaxReplicas", 1, 20, 3, {cpuUtilization(10, {100, 200, 300})}, coolPods(3), kNewHpa, upscaleCap, 20,
       ok({{"ScalingLimited", true, "TooManyReplicas"}})},
      {"TestMoreReplicasThanSpecNoScale", 1, 8, 4, {cpuUtilization(50, {50, 50, 50, 50, 50})}, coolPods(5), kNewHpa, {}, 4,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestConditionFailedGetMetrics/FailedGetResourceMetric", 1, 100, 3, {cpuUtilizationTotal(10, std::nullopt)}, coolPods(3), kNewHpa, {}, 3,
       {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "FailedGetResourceMetric"}}},
      {"TestConditionFailedGetMetrics/FailedGetPodsMetric", 1, 100, 3, {metric(M::Pods, T::AverageValue, 15, std::nullopt)}, coolPods(3),
       kNewHpa, {}, 3, {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "FailedGetPodsMetric"}}},
      {"TestConditionFailedGetMetrics/FailedGetObjectMetric", 1, 100, 3, {metric(M::Object, T::Value, 15, std::nullopt)}, coolPods(3),
       kNewHpa, {}, 3, {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "FailedGetObjectMetric"}}},
      {"TestConditionFailedGetMetrics/FailedGetExternalMetric", 1, 100, 3, {metric(M::External, T::Value, 0.3, std::nullopt)}, coolPods(3),
       kNewHpa, {}, 3, {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "FailedGetExternalMetric"}}},
      {"TestConditionFailedGetScale", 1, 100, std::nullopt, {cpuUtilization(10, {100, 200, 300})}, coolPods(3), kNewHpa, {},
       std::nullopt, {{"AbleToScale", false, "FailedGetScale"}}},
      {"TestNoBackoffUpscaleCM", 1, 5, 3, {metric(M::Pods, T::AverageValue, 15, std::nullopt, {20, 10, 30})}, coolPods(3), kNewHpa, {}, 4,
       ok()},
      {"TestNoBackoffUpscaleCMNoBackoffCpu", 1, 5, 3,
       {cpuUtilization(10, {2000, 1000, 3000}), metric(M::Pods, T::AverageValue, 15, std::nullopt, {20, 10, 30})}, coolPods(3), kNewHpa, {},
       5, ok({{"ScalingLimited", true, "TooManyReplicas"}})},
      {"TestStabilizeDownscale", 1, 5, 4, {cpuUtilization(100, {50, 50, 50})}, coolPods(3),
       std::vector<HpaMemory::Recommendation>{{kNow - std::chrono::minutes(10), 10}, {kNow - std::chrono::minutes(1), 4}}, {}, 4,
       ok({{"AbleToScale", true, "ScaleDownStabilized"}})},
      // 1500m used of 3000m requested over 10 pods: 50 % against 56 % scales down, against 55 % it
      // is within the tolerance.
      {"TestComputedToleranceAlgImplementation/breach", 0, 1000, 10, {cpuUtilizationTotal(56, 50)}, {}, kNoRecommendations, {}, 9, ok()},
      {"TestComputedToleranceAlgImplementation/within", 0, 1000, 10, {cpuUtilizationTotal(55, 50)}, {}, kNoRecommendations, {}, 10,
       ok({{"AbleToScale", true, "ReadyForNewScale"}})},
      {"TestScaleUpRCImmediately", 2, 6, 1, {cpuUtilization(80, {0, 0, 0, 0})}, coolPods(4), kNewHpa, {}, 2,
       {{"AbleToScale", true, "SucceededRescale"}}},
      {"TestScaleDownRCImmediately", 2, 5, 6, {cpuUtilizationTotal(50, 616)}, {}, kNewHpa, {}, 5, {{"AbleToScale", true, "SucceededRescale"}}},
      {"TestScaleUpOneMetricEmpty", 2, 6, 3, {cpuUtilization(30, {30, 40, 50}), failingExternal}, coolPods(3), kNewHpa, {}, 4, ok()},
      {"TestNoScaleDownOneMetricEmpty", 2, 6, 5, {cpuUtilization(50, {10, 30, 50, 25, 25}), failingExternal}, coolPods(5), kNoRecommendations,
       {}, 5, {{"AbleToScale", true, "SucceededGetScale"}, {"ScalingActive", false, "FailedGetExternalMetric"}}},
  };
}

class KubeControllerCase : public ::testing::TestWithParam<ControllerCase> {};

TEST_P(KubeControllerCase, DesiredReplicasAndConditionsAsKube) {
  const ControllerCase& c = GetParam();
  HpaMemory memory;
  memory.recommendations = c.recommendations;
  SyncInput input;
  input.spec.minReplicas = c.minReplicas;
  input.spec.maxReplicas = c.maxReplicas;
  input.spec.behavior = c.behavior;
  input.currentReplicas = c.specReplicas;
  input.now = kNow;
  input.metrics = c.metrics;
  input.pods = c.pods;
  input.options = testController();
  input.metricWindow = kTestMetricWindow;
  const SyncResult result = syncHpa(input, memory);
  if (c.expectedReplicas) {
    EXPECT_EQ(result.desiredReplicas, *c.expectedReplicas);
  }
  ASSERT_EQ(result.conditions.size(), c.expectedConditions.size());
  for (std::size_t i = 0; i < c.expectedConditions.size(); ++i) {
    EXPECT_EQ(result.conditions[i].type, c.expectedConditions[i].type);
    EXPECT_EQ(result.conditions[i].status, c.expectedConditions[i].status) << c.expectedConditions[i].type;
    EXPECT_EQ(result.conditions[i].reason, c.expectedConditions[i].reason) << c.expectedConditions[i].type;
  }
}

INSTANTIATE_TEST_SUITE_P(HorizontalTest, KubeControllerCase, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<ControllerCase>& info) {
                           std::string name = info.param.goTest;
                           std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
                           return name;
                         });

// TestEventCreated's event text.
TEST(KubeControllerEvents, TestEventCreatedSaysNewSizeAndTheMetric) {
  HpaMemory memory;
  SyncInput input;
  input.spec = {1, 5, 50, std::nullopt};
  input.currentReplicas = 1;
  input.now = kNow;
  input.metrics = {cpuUtilization(50, {100})};
  input.pods = coolPods(1);
  input.options = testController();
  const SyncResult result = syncHpa(input, memory);
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(result.events[0].reason, "SuccessfulRescale");
  EXPECT_EQ(result.events[0].message, "New size: 2; reason: cpu resource utilization (percentage of request) above target");
}

}  // namespace
}  // namespace fedhpa::sim
