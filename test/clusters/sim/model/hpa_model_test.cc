// The HPA algorithm against the worked examples of the Kubernetes documentation, and properties
// every sync keeps.
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

SyncResult sync(const HpaSpec& hpa, int current, double utilization, HpaMemory& memory, TimePoint now) {
  return syncHpa({hpa, current, utilization, now, {}}, memory);
}

const Condition* find(const SyncResult& result, const std::string& type) {
  for (const auto& c : result.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

TEST(HpaModel, DoubleTheTargetDoublesTheReplicas) {
  HpaMemory memory;
  const auto result = sync(spec(1, 10), 1, 100, memory, kStart);  // 200 % of a 50 % target
  EXPECT_EQ(result.desiredReplicas, 2);
  EXPECT_TRUE(result.rescaled);
  ASSERT_TRUE(result.event);
  EXPECT_EQ(result.event->message, "New size: 2; reason: cpu resource utilization (percentage of request) above target");
  EXPECT_EQ(result.currentUtilizationPercent, 100);
}

TEST(HpaModel, WithinTheToleranceNothingMoves) {
  HpaMemory memory;
  const auto result = sync(spec(1, 10), 4, 54, memory, kStart);  // ratio 1.08
  EXPECT_EQ(result.desiredReplicas, 4);
  EXPECT_FALSE(result.rescaled);
  EXPECT_EQ(find(result, "AbleToScale")->reason, "ReadyForNewScale");
}

TEST(HpaModel, ClampsToMaxAndSaysTooManyReplicas) {
  HpaMemory memory;
  const auto result = sync(spec(1, 4), 4, 150, memory, kStart);  // wants 12
  EXPECT_EQ(result.desiredReplicas, 4);
  EXPECT_FALSE(result.rescaled);
  const Condition* limited = find(result, "ScalingLimited");
  ASSERT_NE(limited, nullptr);
  EXPECT_TRUE(limited->status);
  EXPECT_EQ(limited->reason, "TooManyReplicas");
}

TEST(HpaModel, ClampsToMinAndSaysTooFewReplicas) {
  HpaMemory memory;
  HpaSpec hpa = spec(3, 10);
  hpa.scaleDown.stabilizationWindow = seconds(0);
  const auto result = sync(hpa, 4, 5, memory, kStart);
  EXPECT_EQ(result.desiredReplicas, 3);
  EXPECT_EQ(find(result, "ScalingLimited")->reason, "TooFewReplicas");
  EXPECT_EQ(result.event->message, "New size: 3; reason: All metrics below target");
}

TEST(HpaModel, ScaleDownWaitsForTheStabilizationWindow) {
  HpaMemory memory;
  const HpaSpec hpa = spec(1, 10);
  EXPECT_EQ(sync(hpa, 8, 50, memory, kStart).desiredReplicas, 8);
  const auto held = sync(hpa, 8, 10, memory, kStart + seconds(15));  // wants 2
  EXPECT_EQ(held.desiredReplicas, 8) << "the 8 of 15 s ago is still in the 300 s window";
  EXPECT_EQ(find(held, "AbleToScale")->reason, "ScaleDownStabilized");
  const auto later = sync(hpa, 8, 10, memory, kStart + seconds(301));
  EXPECT_EQ(later.desiredReplicas, 2) << "after the window the low recommendation wins";
}

TEST(HpaModel, ScaleUpIsRateLimitedToTheLargerOfDoubleOrFourPods) {
  HpaMemory memory;
  const HpaSpec hpa = spec(1, 100);
  const auto first = sync(hpa, 1, 5000, memory, kStart);  // wants 100
  EXPECT_EQ(first.desiredReplicas, 5) << "1 + 4 pods beats 1 x 2";
  EXPECT_EQ(find(first, "ScalingLimited")->reason, "ScaleUpLimit");
  const auto inSamePeriod = sync(hpa, 5, 1000, memory, kStart + seconds(5));
  EXPECT_EQ(inSamePeriod.desiredReplicas, 5) << "the period started at 1 replica: 1 + 4 is used up";
  const auto nextPeriod = sync(hpa, 5, 1000, memory, kStart + seconds(16));
  EXPECT_EQ(nextPeriod.desiredReplicas, 10) << "then doubling (5 x 2 beats 5 + 4)";
}

TEST(HpaModel, SelectPolicyMinAndDisabled) {
  HpaMemory memory;
  HpaSpec hpa = spec(1, 100);
  hpa.scaleUp.select = SelectPolicy::Min;
  EXPECT_EQ(sync(hpa, 10, 500, memory, kStart).desiredReplicas, 14) << "min(10 + 4, 10 x 2)";
  HpaMemory other;
  hpa.scaleUp.select = SelectPolicy::Disabled;
  EXPECT_EQ(sync(hpa, 10, 500, other, kStart).desiredReplicas, 10);
}

TEST(HpaModel, AnHpasOwnBehaviorReplacesTheDefaults) {
  HpaMemory memory;
  HpaSpec hpa = spec(1, 100);
  hpa.scaleDown = {seconds(0), SelectPolicy::Max, {{ScalingPolicy::Type::Pods, 1, seconds(60)}}};
  EXPECT_EQ(sync(hpa, 10, 5, memory, kStart).desiredReplicas, 9) << "one pod per minute";
  EXPECT_EQ(sync(hpa, 9, 5, memory, kStart + seconds(30)).desiredReplicas, 9);
  EXPECT_EQ(sync(hpa, 9, 5, memory, kStart + seconds(61)).desiredReplicas, 8);
}

TEST(HpaModel, MissingTargetAndZeroReplicas) {
  HpaMemory memory;
  const auto missing = syncHpa({spec(1, 10), std::nullopt, 50, kStart, {}}, memory);
  EXPECT_FALSE(find(missing, "ScalingActive")->status);
  EXPECT_EQ(find(missing, "ScalingActive")->reason, "FailedGetScale");
  EXPECT_EQ(missing.event->reason, "FailedGetScale");
  const auto zero = sync(spec(1, 10), 0, 50, memory, kStart);
  EXPECT_EQ(find(zero, "ScalingActive")->reason, "ScalingDisabled");
  EXPECT_FALSE(zero.rescaled);
}

TEST(HpaModel, LoadModel) {
  EXPECT_DOUBLE_EQ(utilizationFromDemand(6, 3, 50), 100);
  EXPECT_DOUBLE_EQ(utilizationFromDemand(6, 0, 50), 0);
}

TEST(HpaModel, RandomInputsStayInRangeAndAreDeterministic) {
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    const int min = std::uniform_int_distribution<int>(1, 5)(random);
    const int max = min + std::uniform_int_distribution<int>(0, 50)(random);
    const HpaSpec hpa = spec(min, max, std::uniform_int_distribution<int>(10, 90)(random));
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
      if (std::abs(utilization / hpa.targetUtilization - 1) <= 0.1 && current >= min && current <= max) {
        ASSERT_EQ(a.desiredReplicas, current) << "within tolerance nothing moves";
      }
      current = a.desiredReplicas;
      now += seconds(15);
    }
  }
}

}  // namespace
TEST(HpaModel, TheLargestProposalOverTheMetricsWinsAndNamesItsMetric) {
  HpaMemory memory;
  // CPU at 20 % of a 50 % target wants 2, requests at 25 per pod against 10 want 10.
  SyncInput input{spec(1, 20), 4, std::nullopt, kStart, {}};
  input.metrics = {{50, 20, "cpu resource utilization (percentage of request)"},
                   {10, 25, "pods metric http_requests_per_second"}};
  const SyncResult result = syncHpa(input, memory);
  EXPECT_EQ(result.desiredReplicas, 8);  // 4 -> 10 wanted, the scale-up limit allows 8
  EXPECT_THAT(result.event->message, ::testing::HasSubstr("pods metric http_requests_per_second above target"));
  EXPECT_THAT(find(result, "ScalingActive")->message, ::testing::HasSubstr("http_requests_per_second"));
}

TEST(HpaModel, AMissingMetricStopsScaleDownButNotScaleUp) {
  HpaMemory memory;
  SyncInput input{spec(1, 20), 6, std::nullopt, kStart, {}};
  input.metrics = {{50, 10, "cpu resource utilization (percentage of request)"},
                   {10, std::nullopt, "external metric queue_depth"}};
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 6);  // CPU alone would go to 2
  input.metrics[0].current = 100;
  EXPECT_EQ(syncHpa(input, memory).desiredReplicas, 12);
  input.metrics[0].current.reset();
  const SyncResult none = syncHpa(input, memory);
  EXPECT_FALSE(find(none, "ScalingActive")->status);
}

TEST(HpaModel, EveryMetricReadsTargetTimesDemandOverReplicas) {
  EXPECT_DOUBLE_EQ(metricFromDemand(10, 4, 25), 62.5);
  EXPECT_DOUBLE_EQ(metricFromDemand(10, 0, 25), 0);
}

}  // namespace fedhpa::sim
