// kube's replica calculator cases (pkg/controller/podautoscaler/replica_calculator_test.go),
// transcribed as facts: each row names its Go test, gives the pods (phase, readiness, start), each
// pod's reading (CPU as a percentage of a 1-CPU request; where kube's case gives pods different
// requests, kube's total utilisation) and kube's expected replicas.
#include "clusters/sim/model/replica_calculator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <variant>

#include "test/clusters/sim/model/kube_cases.h"

namespace fedhpa::sim {
namespace {

using namespace kube;
using M = MetricSource;
using T = TargetType;

struct CalculatorCase {
  std::string goTest;
  int currentReplicas;
  MetricInput metric;
  std::vector<Pod> pods;
  int expectedReplicas;
};

std::ostream& operator<<(std::ostream& out, const CalculatorCase& c) { return out << c.goTest; }

Pod pod(Pod::Phase phase, bool ready, bool hot = false, bool deleting = false) {
  Pod out = hot ? hotPod(ready) : coolPod(ready);
  out.phase = phase;
  out.deleting = deleting;
  return out;
}

std::vector<Pod> readiness(std::initializer_list<bool> ready) {
  std::vector<Pod> out;
  for (bool r : ready) out.push_back(coolPod(r));
  return out;
}

std::vector<CalculatorCase> calculatorCases() {
  constexpr auto R = Pod::Phase::Running;
  constexpr auto P = Pod::Phase::Pending;
  constexpr auto F = Pod::Phase::Failed;
  const std::optional<double> none;
  return {
      {"TestReplicaCalcScaleUpCMExternalIgnoresUnreadyPods", 3, metric(M::External, T::Value, 4.4, 8.6),
       readiness({false, true, false}), 2},
      {"TestReplicaCalcScaleUpCMExternalNoLabels", 1, metric(M::Pods, T::AverageValue, 4.4, none, {8.6}), coolPods(1), 2},
      {"TestReplicaCalcScaleUpPerPodCMExternal", 3, metric(M::External, T::AverageValue, 2.15, 8.6 / 3), {}, 4},
      {"TestReplicaCalcScaleDown", 5, cpuUtilization(50, {10, 30, 50, 25, 25}), coolPods(5), 3},
      {"TestReplicaCalcScaleDownCM", 5, metric(M::Pods, T::AverageValue, 20, none, {12, 12, 12, 12, 12}), coolPods(5), 3},
      {"TestReplicaCalcScaleDownPerPodCMObject", 5, metric(M::Object, T::AverageValue, 2, 6.0 / 5), {}, 3},
      {"TestReplicaCalcScaleDownCMObject", 5, metric(M::Object, T::Value, 20, 12), {}, 3},
      {"TestReplicaCalcScaleDownCMExternal", 5, metric(M::External, T::Value, 14.334, 8.6), {}, 3},
      {"TestReplicaCalcScaleDownPerPodCMExternal", 5, metric(M::External, T::AverageValue, 2.867, 8.6 / 5), {}, 3},
      {"TestReplicaCalcScaleDownIncludeUnreadyPods", 5, cpuUtilization(50, {10, 30, 50, 25, 25}),
       readiness({true, true, true, false, false}), 2},
      {"TestReplicaCalcScaleDownExcludeUnscheduledPods", 5, cpuUtilization(50, {10, none, none, none, none}),
       {pod(R, true), pod(P, false), pod(P, false), pod(P, false), pod(P, false)}, 1},
      {"TestReplicaCalcScaleDownIgnoreHotCpuPods", 5, cpuUtilization(50, {10, 30, 50, 25, 25}),
       {coolPod(), coolPod(), coolPod(), hotPod(), hotPod()}, 2},
      {"TestReplicaCalcScaleDownIgnoresFailedPods", 5, cpuUtilization(50, {10, 30, 50, 25, 25, none, none}),
       {pod(R, true), pod(R, true), pod(R, true), pod(R, true), pod(R, true), pod(F, false), pod(F, false)}, 3},
      {"TestReplicaCalcScaleDownIgnoresDeletionPods", 5, cpuUtilization(50, {10, 30, 50, 25, 25, none, none}),
       {pod(R, true), pod(R, true), pod(R, true), pod(R, true), pod(R, true), pod(R, false, false, true), pod(R, false, false, true)}, 3},
      // 3060m of 3000m requested: 102 %.
      {"TestReplicaCalcTolerance", 3, cpuUtilizationTotal(100, 102), {}, 3},
      {"TestReplicaCalcToleranceCM", 3, metric(M::Pods, T::AverageValue, 20, none, {20, 21, 21}), coolPods(3), 3},
      {"TestReplicaCalcToleranceCMObject", 3, metric(M::Object, T::Value, 20, 20.666), {}, 3},
      {"TestReplicaCalcTolerancePerPodCMObject", 4, metric(M::Object, T::AverageValue, 5, 20.166 / 4), {}, 4},
      {"TestReplicaCalcToleranceCMExternal", 3, metric(M::External, T::Value, 8.888, 8.6), {}, 3},
      {"TestReplicaCalcTolerancePerPodCMExternal", 3, metric(M::External, T::AverageValue, 2.9, 8.6 / 3), {}, 3},
      {"TestReplicaCalcSuperfluousMetrics", 4, cpuUtilization(100, {400, 950, 300, 700}), coolPods(4), 24},
      {"TestReplicaCalcMissingMetrics", 4, cpuUtilization(100, {40, 9.5, none, none}), coolPods(4), 3},
      {"TestReplicaCalcMissingMetricsNoChangeEq", 2, cpuUtilization(100, {100, none}), coolPods(2), 2},
      {"TestReplicaCalcMissingMetricsNoChangeGt", 2, cpuUtilization(100, {190, none}), coolPods(2), 2},
      {"TestReplicaCalcMissingMetricsNoChangeLt", 2, cpuUtilization(100, {60, none}), coolPods(2), 2},
      {"TestReplicaCalcMissingMetricsUnreadyChange", 3, cpuUtilization(50, {10, 45, none}), readiness({false, true, true}), 3},
      {"TestReplicaCalcMissingMetricsHotCpuNoChange", 3, cpuUtilization(50, {10, 45, none}), {hotPod(), coolPod(), coolPod()}, 3},
  };
}

class KubeReplicaCalculatorCase : public ::testing::TestWithParam<CalculatorCase> {};

TEST_P(KubeReplicaCalculatorCase, ProposesAsKube) {
  const CalculatorCase& c = GetParam();
  const auto proposal = proposeReplicas(c.metric, c.currentReplicas, c.pods, {kNow, kTestMetricWindow}, testController());
  ASSERT_TRUE(std::holds_alternative<ReplicaProposal>(proposal)) << std::get<MetricError>(proposal).message;
  EXPECT_EQ(std::get<ReplicaProposal>(proposal).replicas, c.expectedReplicas);
}

INSTANTIATE_TEST_SUITE_P(ReplicaCalculatorTest, KubeReplicaCalculatorCase, ::testing::ValuesIn(calculatorCases()),
                         [](const ::testing::TestParamInfo<CalculatorCase>& info) {
                           std::string name = info.param.goTest;
                           std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
                           return name;
                         });

TEST(KubeReplicaCalculatorErrors, TestReplicaCalcEmptyMetrics) {
  const auto proposal = proposeReplicas(cpuUtilizationTotal(100, std::nullopt), 4, coolPods(3), {kNow, kTestMetricWindow}, testController());
  ASSERT_TRUE(std::holds_alternative<MetricError>(proposal));
  EXPECT_EQ(std::get<MetricError>(proposal).reason, "FailedGetResourceMetric");
  EXPECT_THAT(std::get<MetricError>(proposal).message,
              ::testing::HasSubstr("unable to get metrics for resource cpu: no metrics returned from resource metrics API"));
}

TEST(KubeReplicaCalculatorErrors, EveryPodUnreadyGivesNoMetrics) {
  const auto proposal = proposeReplicas(cpuUtilization(50, {std::nullopt, std::nullopt}), 2,
                                        {{Pod::Phase::Pending, false, false, kNow, kNow}, {Pod::Phase::Pending, false, false, kNow, kNow}},
                                        {kNow, kTestMetricWindow}, testController());
  ASSERT_TRUE(std::holds_alternative<MetricError>(proposal));
  EXPECT_THAT(std::get<MetricError>(proposal).message, ::testing::HasSubstr("did not receive metrics for targeted pods"));
}

}  // namespace
}  // namespace fedhpa::sim
