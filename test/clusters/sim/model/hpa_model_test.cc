// The HPA model over several syncs, as a user watching a member sees it: kube's legacy path for an
// HPA without spec.behavior, the behavior path for one with it, bounds before metrics, the first
// recommendation, the controller's flags, and pods that take time to start.
#include "clusters/sim/model/hpa_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace fedhpa::sim {
namespace {

using std::chrono::seconds;

const TimePoint kStart = Clock::from_time_t(1'800'000'000);

HpaSpec spec(int min, int max, int target = 50) {
  HpaSpec out;
  out.minReplicas = min;
  out.maxReplicas = max;
  out.targetUtilization = target;
  return out;
}

HpaSpec withDefaultBehavior(HpaSpec hpa) {
  hpa.behavior = Behavior{};
  return hpa;
}

SyncResult sync(const HpaSpec& hpa, int current, std::optional<double> utilization, HpaMemory& memory, TimePoint now,
                ControllerOptions options = {}) {
  SyncInput input{hpa, current, utilization, now, {}};
  input.options = options;
  return syncHpa(input, memory);
}

const Condition* find(const SyncResult& result, const std::string& type) {
  for (const auto& c : result.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

// Demand of 32 replicas' worth, one sync a second, following the scale as a Deployment would.
std::vector<int> followDemand(const HpaSpec& hpa, int syncs) {
  HpaMemory memory;
  int replicas = 1;
  std::vector<int> seen{replicas};
  for (int i = 1; i <= syncs; ++i) {
    const auto result = sync(hpa, replicas, utilizationFromDemand(32, replicas, hpa.targetUtilization), memory, kStart + seconds(i));
    replicas = result.desiredReplicas;
    seen.push_back(replicas);
  }
  return seen;
}

TEST(HpaModel, WithoutBehaviorEachSyncMayDoubleOrReachFour) {
  EXPECT_THAT(followDemand(spec(1, 100), 5), ::testing::ElementsAre(1, 4, 8, 16, 32, 32));
}

TEST(HpaModel, WithEmptyBehaviorTheDefaultPoliciesHoldForTheirPeriod) {
  const std::vector<int> seen = followDemand(withDefaultBehavior(spec(1, 100)), 16);
  EXPECT_EQ(seen[1], 5) << "1 + 4 pods beats 1 x 2";
  for (int i = 1; i <= 15; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i)], 5) << "second " << i << ": the 15 s period started at 1";
  EXPECT_EQ(seen[16], 10) << "the next period doubles 5";
}

TEST(HpaModel, LegacyScaleUpLimitSaysScaleUpLimit) {
  HpaMemory memory;
  const auto result = sync(spec(1, 100), 3, 5000, memory, kStart);
  EXPECT_EQ(result.desiredReplicas, 6);
  EXPECT_EQ(find(result, "ScalingLimited")->reason, "ScaleUpLimit");
  EXPECT_TRUE(find(result, "ScalingLimited")->status);
}

TEST(HpaModel, ReplicasOutsideTheBoundsMoveFirstEvenWithoutMetrics) {
  HpaMemory memory;
  const auto above = sync(spec(1, 5), 10, std::nullopt, memory, kStart);
  EXPECT_EQ(above.desiredReplicas, 5);
  ASSERT_EQ(above.events.size(), 1u);
  EXPECT_EQ(above.events[0].message, "New size: 5; reason: Current number of replicas above Spec.MaxReplicas");
  EXPECT_EQ(find(above, "ScalingActive"), nullptr) << "no metric was read";
  const auto below = sync(spec(3, 5), 1, std::nullopt, memory, kStart);
  EXPECT_EQ(below.desiredReplicas, 3);
  EXPECT_EQ(below.events[0].message, "New size: 3; reason: Current number of replicas below Spec.MinReplicas");
}

TEST(HpaModel, ANewHpaWaitsTheWindowBeforeItsFirstScaleDown) {
  HpaMemory memory;
  const HpaSpec hpa = spec(1, 10);
  const auto first = sync(hpa, 8, 10, memory, kStart);  // wants 2
  EXPECT_EQ(first.desiredReplicas, 8) << "its first recommendation is the 8 it found";
  EXPECT_EQ(find(first, "AbleToScale")->reason, "ScaleDownStabilized");
  EXPECT_EQ(sync(hpa, 8, 10, memory, kStart + seconds(299)).desiredReplicas, 8);
  EXPECT_EQ(sync(hpa, 8, 10, memory, kStart + seconds(301)).desiredReplicas, 2);
}

TEST(HpaModel, TheDownscaleStabilizationFlagSetsTheLegacyWindow) {
  HpaMemory memory;
  ControllerOptions options;
  options.downscaleStabilization = seconds(60);
  EXPECT_EQ(sync(spec(1, 10), 8, 10, memory, kStart, options).desiredReplicas, 8);
  EXPECT_EQ(sync(spec(1, 10), 8, 10, memory, kStart + seconds(61), options).desiredReplicas, 2);
}

TEST(HpaModel, TheDownscaleStabilizationFlagFillsABehaviorWithoutAWindow) {
  HpaMemory memory;
  ControllerOptions options;
  options.downscaleStabilization = seconds(30);
  const HpaSpec hpa = withDefaultBehavior(spec(1, 10));
  EXPECT_EQ(sync(hpa, 8, 10, memory, kStart, options).desiredReplicas, 8);
  EXPECT_EQ(sync(hpa, 8, 10, memory, kStart + seconds(31), options).desiredReplicas, 2);
}

TEST(HpaModel, TheToleranceFlag) {
  HpaMemory memory;
  EXPECT_EQ(sync(spec(1, 10), 10, 54, memory, kStart).desiredReplicas, 10) << "1.08 is within 0.1";
  ControllerOptions tight;
  tight.tolerance = 0.05;
  HpaMemory other;
  EXPECT_EQ(sync(spec(1, 20), 10, 54, other, kStart, tight).desiredReplicas, 11);
}

TEST(HpaModel, BehaviorReportsScaleUpStabilized) {
  HpaMemory memory;
  HpaSpec hpa = withDefaultBehavior(spec(1, 20));
  hpa.behavior->scaleUp.stabilizationWindow = seconds(60);
  EXPECT_EQ(sync(hpa, 4, 50, memory, kStart).desiredReplicas, 4);
  const auto held = sync(hpa, 4, 100, memory, kStart + seconds(15));  // wants 8
  EXPECT_EQ(held.desiredReplicas, 4) << "the 4 of 15 s ago is the lowest in the 60 s window";
  EXPECT_EQ(find(held, "AbleToScale")->reason, "ScaleUpStabilized");
}

TEST(HpaModel, PolicyPeriodsCountMovesBothWays) {
  // kubernetes#108354: 6 replicas after +4 and -2 within the period: it started at 4, so 300 %
  // allows 16, not 24 (counting the rise alone) or 8 (counting nothing).
  HpaSpec hpa = withDefaultBehavior(spec(1, 100));
  hpa.behavior->scaleUp = {seconds(0), SelectPolicy::Max, {{ScalingPolicy::Type::Percent, 300, seconds(300)}}};
  hpa.behavior->scaleDown.stabilizationWindow = seconds(0);
  HpaMemory memory;
  memory.recommendations.emplace();
  memory.scaleUpEvents = {{kStart - seconds(60), 4}};
  memory.scaleDownEvents = {{kStart - seconds(30), 2}};
  EXPECT_EQ(sync(hpa, 6, 200, memory, kStart).desiredReplicas, 16);
}

TEST(HpaModel, ObjectValueFromZeroProposesTheRatioWithoutTolerance) {
  HpaMemory memory;
  SyncInput input{spec(0, 10), 0, std::nullopt, kStart, {}};
  MetricInput queue{10, 10.5, "external metric queue_depth"};
  queue.source = MetricSource::External;
  queue.targetType = TargetType::Value;
  input.metrics = {queue};
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 2) << "ceil(1.05), tolerance or not";
}

TEST(HpaModel, AnUnreadableMetricSaysWhichAndStopsScaling) {
  HpaMemory memory;
  const auto result = sync(spec(1, 10), 4, std::nullopt, memory, kStart);
  EXPECT_EQ(result.desiredReplicas, 4);
  EXPECT_FALSE(find(result, "ScalingActive")->status);
  EXPECT_EQ(find(result, "ScalingActive")->reason, "FailedGetResourceMetric");
  EXPECT_THAT(find(result, "ScalingActive")->message, ::testing::StartsWith("the HPA was unable to compute the replica count: "));
  ASSERT_EQ(result.events.size(), 2u);
  EXPECT_EQ(result.events[0].reason, "FailedGetResourceMetric");
  EXPECT_EQ(result.events[1].reason, "FailedComputeMetricsReplicas");
}

TEST(HpaModel, PendingPodsCountAsIdleOnAScaleUp) {
  // 4 replicas of which 2 still starting (Pending, no metrics); the 2 ready ones at 100 % of a
  // 50 % target. Counting the starting ones as idle: 200 / 4 = 50 %: no scale-up yet.
  HpaMemory memory;
  SyncInput input{spec(1, 20), 4, 100, kStart, {}};
  const Pod ready{Pod::Phase::Running, true, false, kStart - seconds(600), kStart - seconds(590)};
  const Pod starting{Pod::Phase::Pending, false, false, kStart - seconds(5), kStart - seconds(5)};
  input.pods = {ready, ready, starting, starting};
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 4);
  input.utilizationPercent = 200;  // 400 / 4 = 100 %: twice the target
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 8);
}

TEST(HpaModel, AFreshlyReadyPodsCpuIsNotTrustedWithinTheInitializationPeriod) {
  HpaMemory memory;
  SyncInput input{spec(1, 20), 2, 100, kStart, {}};
  const Pod old{Pod::Phase::Running, true, false, kStart - seconds(600), kStart - seconds(590)};
  const Pod fresh{Pod::Phase::Running, true, false, kStart - seconds(20), kStart - seconds(5)};  // ready 5 s ago
  input.pods = {old, fresh};
  // The fresh pod's reading falls in its first metrics window: it counts as idle: 50 %, no move.
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 2);
  input.now = kStart + seconds(30);
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 4) << "a window after it went ready, its CPU counts";
}

TEST(HpaModel, MissingTargetAndZeroReplicas) {
  HpaMemory memory;
  const auto missing = syncHpa({spec(1, 10), std::nullopt, 50, kStart, {}}, memory);
  EXPECT_FALSE(find(missing, "AbleToScale")->status);
  EXPECT_EQ(find(missing, "AbleToScale")->reason, "FailedGetScale");
  EXPECT_EQ(missing.events.at(0).reason, "FailedGetScale");
  const auto zero = sync(spec(1, 10), 0, 50, memory, kStart);
  EXPECT_EQ(find(zero, "ScalingActive")->reason, "ScalingDisabled");
  EXPECT_FALSE(zero.rescaled);
}

TEST(HpaModel, LoadModel) {
  EXPECT_DOUBLE_EQ(utilizationFromDemand(6, 3, 50), 100);
  EXPECT_DOUBLE_EQ(utilizationFromDemand(6, 0, 50), 0);
  EXPECT_DOUBLE_EQ(metricFromDemand(10, 4, 25), 62.5);
}

TEST(HpaModel, RandomInputsStayInRangeAndAreDeterministic) {
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    const int min = std::uniform_int_distribution<int>(1, 5)(random);
    const int max = min + std::uniform_int_distribution<int>(0, 50)(random);
    HpaSpec hpa = spec(min, max, std::uniform_int_distribution<int>(10, 90)(random));
    if (round % 2) hpa.behavior = Behavior{};
    HpaMemory first, second;
    int current = std::uniform_int_distribution<int>(1, 60)(random);
    TimePoint now = kStart;
    for (int step = 0; step < 10; ++step) {
      const double utilization = std::uniform_real_distribution<double>(0, 400)(random);
      const auto a = sync(hpa, current, utilization, first, now);
      const auto b = sync(hpa, current, utilization, second, now);
      ASSERT_EQ(a.desiredReplicas, b.desiredReplicas);
      ASSERT_GE(a.desiredReplicas, min);
      ASSERT_LE(a.desiredReplicas, max);
      // With behavior, within the tolerance nothing moves; the legacy path may still rise to a
      // higher recommendation of its window.
      if (hpa.behavior && std::abs(std::floor(utilization) / hpa.targetUtilization - 1) <= 0.1 && current >= min && current <= max) {
        ASSERT_EQ(a.desiredReplicas, current) << "within tolerance nothing moves";
      }
      current = a.desiredReplicas;
      now += seconds(15);
    }
  }
}

TEST(HpaModel, TheLargestProposalOverTheMetricsWinsAndNamesItsMetric) {
  HpaMemory memory;
  SyncInput input{spec(1, 20), 4, std::nullopt, kStart, {}};
  MetricInput requests{10, 25, "pods metric http_requests_per_second"};
  requests.source = MetricSource::Pods;
  requests.targetType = TargetType::AverageValue;
  input.metrics = {{50, 20, "cpu resource utilization (percentage of request)"}, requests};
  const SyncResult result = syncHpa(input, memory);
  EXPECT_EQ(result.desiredReplicas, 8);  // 4 -> 10 wanted, the legacy limit allows 2 x 4
  EXPECT_THAT(result.events.at(0).message, ::testing::HasSubstr("pods metric http_requests_per_second above target"));
  EXPECT_THAT(find(result, "ScalingActive")->message, ::testing::HasSubstr("http_requests_per_second"));
}

TEST(HpaModel, AMissingMetricStopsScaleDownButNotScaleUp) {
  HpaMemory memory;
  memory.recommendations.emplace();
  SyncInput input{spec(1, 20), 6, std::nullopt, kStart, {}};
  MetricInput queue{10, std::nullopt, "external metric queue_depth"};
  queue.source = MetricSource::External;
  queue.targetType = TargetType::Value;
  queue.name = "queue_depth";
  input.metrics = {{50, 10, "cpu resource utilization (percentage of request)"}, queue};
  const SyncResult down = syncHpa(input, memory);
  EXPECT_EQ(down.desiredReplicas, 6);  // CPU alone would go to 2
  EXPECT_EQ(find(down, "ScalingActive")->reason, "FailedGetExternalMetric");
  input.metrics[0].current = 100;
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 12);
}

// A ContainerResource metric that cannot be read says so with its own reason. kube's
// TestConditionFailedGetMetrics has rows for Resource, Pods, Object and External only; the reason
// is the one kube's computeStatusForContainerResourceMetric sets.
TEST(HpaModel, AnUnreadableContainerResourceMetricSaysFailedGetContainerResourceMetric) {
  HpaMemory memory;
  SyncInput input{spec(1, 100), 3, std::nullopt, kStart, {}};
  MetricInput container{10, std::nullopt, "cpu container resource utilization (percentage of request)"};
  container.source = MetricSource::ContainerResource;
  input.metrics = {container};
  const SyncResult result = syncHpa(input, memory);
  EXPECT_EQ(result.desiredReplicas, 3);
  EXPECT_FALSE(find(result, "ScalingActive")->status);
  EXPECT_EQ(find(result, "ScalingActive")->reason, "FailedGetContainerResourceMetric");
  ASSERT_EQ(result.events.size(), 2u);
  EXPECT_EQ(result.events[0].reason, "FailedGetContainerResourceMetric");
  EXPECT_EQ(result.events[1].reason, "FailedComputeMetricsReplicas");
}

// A CPU target given as an average value (kube's GetRawResourceReplicas; kube's test tables have
// no such row): the pods' mean usage against the value, times the ready pods, and a pod without a
// reading counts on a scale-down as using the target itself, not 100 % of its request as for a
// utilisation target.
TEST(HpaModel, ACpuAverageValueTargetComparesMeanUsageAndFillsMissingPodsWithTheTarget) {
  const Pod pod{Pod::Phase::Running, true, false, kStart - seconds(600), kStart - seconds(590)};
  MetricInput cores{500, std::nullopt, "cpu resource"};  // 500m per pod
  cores.targetType = TargetType::AverageValue;

  HpaMemory up;
  SyncInput hot{spec(1, 10), 3, std::nullopt, kStart, {}};
  hot.pods = {pod, pod, pod};
  cores.perPod = {700, 800, 900};  // mean 800m: 1.6 x target, ceil(4.8)
  hot.metrics = {cores};
  EXPECT_EQ(syncHpa(hot, up).desiredReplicas, 5);

  HpaMemory down;
  down.recommendations.emplace();
  SyncInput idle{spec(1, 10), 4, std::nullopt, kStart, {}};
  idle.pods = {pod, pod, pod, pod};
  cores.perPod = {200, 200, 200, std::nullopt};  // 0.4 x target; the fourth counted at 500m: 0.55
  idle.metrics = {cores};
  EXPECT_EQ(syncHpa(idle, down).desiredReplicas, 3) << "ceil(0.55 x 4); filled at 100 it would be 2";
}

}  // namespace
}  // namespace fedhpa::sim
