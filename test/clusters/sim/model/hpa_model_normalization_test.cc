// kube's normalisation steps against kube's own table cases (horizontal_test.go): the legacy path's
// stabilisation and limits (TestNormalizeDesiredReplicas, TestConvertDesiredReplicasWithRules) and
// the behavior path's (TestNormalizeDesiredReplicasWithBehavior, TestScalingWithRules,
// TestCalculateScaleUpLimitWithScalingRules, TestCalculateScaleDownLimitWithBehaviors).
#include <gtest/gtest.h>

#include "clusters/sim/model/hpa_model.h"
#include "test/clusters/sim/model/kube_cases.h"

namespace fedhpa::sim {
namespace {

using namespace kube;
using std::chrono::minutes;
using std::chrono::seconds;
using Recommendation = HpaMemory::Recommendation;

std::vector<Recommendation> recs(std::initializer_list<std::pair<int, minutes>> list) {
  std::vector<Recommendation> out;
  for (const auto& [replicas, ago] : list) out.push_back({kNow - ago, replicas});
  return out;
}

std::vector<int> replicasOf(const HpaMemory& memory) {
  std::vector<int> out;
  for (const auto& r : *memory.recommendations) out.push_back(r.replicas);
  return out;
}

// --- TestNormalizeDesiredReplicas (legacy stabilisation, 5 min window) ---

struct LegacyStabilizeCase {
  std::string name;
  std::vector<Recommendation> recommendations;
  int prenormalized;
  int expected;
  std::size_t expectedLogLength;
};

TEST(TestNormalizeDesiredReplicas, AsKube) {
  const std::vector<LegacyStabilizeCase> cases = {
      {"empty log", {}, 5, 5, 1},
      {"stabilize", recs({{4, minutes(2)}, {5, minutes(1)}}), 3, 5, 3},
      {"no stabilize", recs({{1, minutes(2)}, {2, minutes(1)}}), 3, 3, 3},
      {"no stabilize - old recommendations", recs({{10, minutes(10)}, {9, minutes(9)}}), 3, 3, 2},
      {"stabilize - old recommendations", recs({{10, minutes(10)}, {4, minutes(1)}, {5, minutes(2)}, {9, minutes(9)}}), 3, 5, 4},
  };
  for (const auto& c : cases) {
    HpaMemory memory;
    memory.recommendations = c.recommendations;
    EXPECT_EQ(stabilizeLegacy(c.prenormalized, minutes(5), kNow, memory), c.expected) << c.name;
    EXPECT_EQ(memory.recommendations->size(), c.expectedLogLength) << c.name;
  }
}

// --- TestConvertDesiredReplicasWithRules (legacy limits) ---

struct LegacyLimitCase {
  std::string name;
  int current, desired, min, max, expected;
  std::string condition;
};

TEST(TestConvertDesiredReplicasWithRules, AsKube) {
  const std::vector<LegacyLimitCase> cases = {
      {"prenormalized desired replicas within range", 5, 7, 3, 8, 7, "DesiredWithinRange"},
      {"prenormalized desired replicas < minReplicas", 3, 1, 2, 8, 2, "TooFewReplicas"},
      {"prenormalized desired zeroed replicas within range", 1, 0, 0, 10, 0, "DesiredWithinRange"},
      {"maxReplicas is the limit because maxReplicas < scaleUpLimit", 20, 1000, 1, 10, 10, "TooManyReplicas"},
      // kube's row expects calculateScaleUpLimit(3), which is 24 in its test package: an init()
      // there sets scaleUpLimitFactor to 8 "so we don't accidentally run into it". The production
      // factor is 2, so the limit here is max(2 x 3, 4) = 6.
      {"scaleUpLimit is the limit because scaleUpLimit < maxReplicas", 3, 1000, 1, 2000, 6, "ScaleUpLimit"},
  };
  for (const auto& c : cases) {
    const Normalized out = limitLegacy(c.current, c.desired, c.min, c.max);
    EXPECT_EQ(out.replicas, c.expected) << c.name;
    EXPECT_EQ(out.reason, c.condition) << c.name;
  }
}

// --- TestNormalizeDesiredReplicasWithBehavior (behavior stabilisation) ---

struct BehaviorStabilizeCase {
  std::string name;
  std::vector<Recommendation> recommendations;
  int current, prenormalized, expected;
  std::vector<int> expectedRecommendations;  // empty: kube does not check them
  int upWindow, downWindow;
};

TEST(TestNormalizeDesiredReplicasWithBehavior, AsKube) {
  const std::vector<BehaviorStabilizeCase> cases = {
      {"empty recommendations for scaling down", {}, 100, 5, 5, {5}, 0, 0},
      {"simple scale down stabilization", recs({{4, minutes(2)}, {5, minutes(1)}}), 100, 3, 5, {4, 5, 3}, 0, 180},
      {"simple scale up stabilization", recs({{4, minutes(2)}, {5, minutes(1)}}), 1, 7, 4, {4, 5, 7}, 300, 0},
      {"no scale down stabilization", recs({{1, minutes(2)}, {2, minutes(1)}}), 100, 3, 3, {1, 2, 3}, 300, 0},
      {"no scale up stabilization", recs({{4, minutes(2)}, {5, minutes(1)}}), 1, 3, 3, {4, 5, 3}, 0, 300},
      {"no scale down stabilization, reuse recommendation element", recs({{10, minutes(10)}, {9, minutes(9)}}), 100, 3, 3, {10, 3}, 0, 0},
      {"no scale up stabilization, reuse recommendation element", recs({{10, minutes(10)}, {9, minutes(9)}}), 1, 100, 100, {10, 100}, 0, 0},
      {"scale down stabilization, reuse one of obsolete recommendation element",
       recs({{10, minutes(10)}, {4, minutes(1)}, {5, minutes(2)}, {9, minutes(9)}}), 100, 3, 5, {10, 4, 5, 3}, 0, 180},
      {"scale up stabilization, reuse one of obsolete recommendation element",
       recs({{10, minutes(100)}, {6, minutes(1)}, {5, minutes(2)}, {9, minutes(3)}}), 1, 100, 5, {100, 6, 5, 9}, 300, 0},
      {"scale up and down stabilization, do not scale up when prenormalized rec goes down", recs({{2, minutes(100)}, {3, minutes(3)}}), 2, 1,
       2, {}, 300, 300},
      {"scale up and down stabilization, do not scale down when prenormalized rec goes up", recs({{2, minutes(100)}, {1, minutes(3)}}), 2, 3,
       2, {}, 300, 300},
  };
  for (const auto& c : cases) {
    HpaMemory memory;
    memory.recommendations = c.recommendations;
    const Normalized out = stabilizeWithBehavior(c.current, c.prenormalized, seconds(c.upWindow), seconds(c.downWindow), kNow, memory);
    EXPECT_EQ(out.replicas, c.expected) << c.name;
    if (!c.expectedRecommendations.empty()) {
      EXPECT_EQ(replicasOf(memory), c.expectedRecommendations) << c.name;
    }
  }
}

// --- TestScalingWithRules (behavior rate limits with past scale events) ---

struct RateCase {
  std::string name;
  std::vector<HpaMemory::ScaleEvent> upEvents;
  std::vector<HpaMemory::ScaleEvent> downEvents;
  int min, max;
  std::optional<ScalingRules> scaleUp;    // nullopt: autoscaling/v2's default
  std::optional<ScalingRules> scaleDown;
  int current, prenormalized, expected;
  std::string condition;
};

TEST(TestScalingWithRules, AsKube) {
  const auto e = uniformEvents;
  const std::vector<RateCase> cases = {
      {"prenormalized desired replicas within range", {}, {}, 3, 8, {}, {}, 5, 7, 7, "DesiredWithinRange"},
      {"prenormalized desired replicas < minReplicas", {}, {}, 2, 8, {}, {}, 3, 1, 2, "TooFewReplicas"},
      {"prenormalized desired replicas within range when minReplicas is 0", {}, {}, 0, 10, {}, {}, 1, 0, 0, "DesiredWithinRange"},
      {"maxReplicas is the limit because maxReplicas < scaleUpLimit", {}, {}, 1, 10, {}, {}, 20, 1000, 10, "TooManyReplicas"},
      {"desired replica count is more than the maximum replica count", {}, {}, 100, 150, {}, {}, 100, 1000, 150, "TooManyReplicas"},
      {"scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies", {}, {}, 1, 2000, rules(0, 0, 1, 60, 0), {}, 3,
       1000, 4, "ScaleUpLimit"},
      // Marked `testThis: true` in kube's table, a flag for singling rows out while debugging, so
      // kube's own run may not assert it. fedhpa does: a Pods policy of 20 per 60 s takes 1000 to 980.
      {"scaleDownLimit is the limit because scaleDownLimit > minReplicas with user defined policies", {}, {}, 3, 2000, {},
       rules(20, 60, 0, 0, 0), 1000, 3, 980, "ScaleDownLimit"},
      {"scaleUp with default behavior", {}, {}, 1, 1000, {}, {}, 10, 50, 20, "ScaleUpLimit"},
      {"scaleUp with pods policy larger than percent policy", {}, {}, 1, 1000, rules(100, 60, 100, 60, 0), {}, 10, 500, 110, "ScaleUpLimit"},
      {"scaleUp with percent policy larger than pods policy", {}, {}, 1, 1000, rules(2, 60, 100, 60, 0), {}, 10, 500, 20, "ScaleUpLimit"},
      {"scaleUp with spec MaxReplicas limitation with large pod policy", {}, {}, 1, 1000, rules(100, 60, 0, 0, 0), {}, 10, 50, 50,
       "DesiredWithinRange"},
      {"scaleUp with spec MaxReplicas limitation with large percent policy", {}, {}, 1, 1000, rules(10000, 60, 0, 0, 0), {}, 10, 50, 50,
       "DesiredWithinRange"},
      {"scaleUp with pod policy limitation", {}, {}, 1, 1000, rules(30, 60, 0, 0, 0), {}, 10, 50, 40, "ScaleUpLimit"},
      {"scaleUp with percent policy limitation", {}, {}, 1, 1000, rules(0, 0, 200, 60, 0), {}, 10, 50, 30, "ScaleUpLimit"},
      {"scaleDown with percent policy larger than pod policy", {}, {}, 1, 1000, {}, rules(20, 60, 1, 60, 300), 100, 2, 80, "ScaleDownLimit"},
      {"scaleDown with pod policy larger than percent policy", {}, {}, 1, 1000, {}, rules(2, 60, 1, 60, 300), 100, 2, 98, "ScaleDownLimit"},
      {"scaleDown with spec MinReplicas=nil limitation with large pod policy", {}, {}, 1, 1000, {}, rules(100, 60, 0, 0, 300), 10, 0, 1,
       "TooFewReplicas"},
      {"scaleDown with spec MinReplicas limitation with large percent policy", {}, {}, 5, 1000, {}, rules(0, 0, 100, 60, 300), 10, 2, 5,
       "TooFewReplicas"},
      {"scaleDown with pod policy limitation", {}, {}, 1, 1000, {}, rules(5, 60, 0, 0, 300), 10, 2, 5, "ScaleDownLimit"},
      {"scaleDown with percent policy limitation", {}, {}, 1, 1000, {}, rules(0, 0, 50, 60, 300), 10, 5, 5, "DesiredWithinRange"},
      {"scaleUp with spec MaxReplicas limitation with large pod policy and events", e({1, 5, 9}, 120), {}, 1, 200, rules(300, 60, 0, 0, 0), {},
       100, 500, 200, "TooManyReplicas"},
      {"scaleUp with spec MaxReplicas limitation with large percent policy and events", e({1, 5, 9}, 120), {}, 1, 200,
       rules(0, 0, 10000, 60, 0), {}, 100, 500, 200, "TooManyReplicas"},
      {"scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of recent scale up events", e({1, 5, 9}, 120), {}, 1, 1000,
       rules(5, 120, 0, 0, 0), {}, 100, 500, 100, "ScaleUpLimit"},
      {"scaleUp with pod policy and previous scale up events", e({1, 5, 9}, 120), {}, 1, 1000, rules(150, 120, 0, 0, 0), {}, 100, 500, 235,
       "ScaleUpLimit"},
      {"scaleUp with percent policy and previous scale up events", e({1, 5, 9}, 120), {}, 1, 1000, rules(0, 0, 200, 120, 0), {}, 100, 500,
       255, "ScaleUpLimit"},
      {"scaleUp with percent policy and previous scale up and down events", e({4}, 120), e({2}, 120), 1, 1000, rules(0, 0, 300, 300, 0), {},
       6, 24, 16, "ScaleUpLimit"},
      {"scaleDown with default policy and previous events", {}, e({1, 5, 9}, 120), 1, 1000, {}, {}, 10, 5, 5, "DesiredWithinRange"},
      {"scaleDown with spec MinReplicas=nil limitation with large pod policy and previous events", {}, e({1, 5, 9}, 120), 1, 1000, {},
       rules(115, 120, 0, 0, 300), 100, 0, 1, "TooFewReplicas"},
      {"scaleDown with spec MinReplicas limitation with large pod policy and previous events", {}, e({1, 5, 9}, 120), 5, 1000, {},
       rules(130, 120, 0, 0, 300), 100, 0, 5, "TooFewReplicas"},
      {"scaleDown with spec MinReplicas limitation with large percent policy and previous events", {}, e({1, 5, 9}, 120), 5, 1000, {},
       rules(0, 0, 100, 120, 300), 100, 2, 5, "TooFewReplicas"},
      {"scaleDown with pod policy limitation and previous events", {}, e({1, 5, 9}, 120), 1, 1000, {}, rules(5, 120, 0, 0, 300), 100, 2, 100,
       "ScaleDownLimit"},
      {"scaleDown with percent policy limitation and previous events", {}, e({2, 4, 6}, 120), 1, 1000, {}, rules(0, 0, 50, 120, 300), 100, 0,
       56, "ScaleDownLimit"},
      {"scaleDown with percent policy and previous scale up and down events", e({2}, 120), e({4}, 120), 1, 1000, {}, rules(0, 0, 50, 180, 0),
       10, 1, 6, "ScaleDownLimit"},
      {"scaleDown with previous events preventing further scale down", {}, e({10, 10, 10}, 120), 1, 1000, {}, rules(0, 0, 10, 120, 300), 100,
       0, 100, "ScaleDownLimit"},
      {"scaleDown with with previous events still allowing more scale down", {}, e({10, 10, 10}, 120), 1, 1000, {},
       rules(0, 0, 1000, 120, 300), 10, 5, 5, "DesiredWithinRange"},
      {"check 'outdated' flag for events for one behavior for up", e({8, 12, 9, 11}, 120), {}, 1, 1000, rules(1000, 60, 0, 0, 0), {}, 100,
       200, 200, "DesiredWithinRange"},
      {"check that events were not marked 'outdated' for two different policies in the behavior for up", e({8, 12, 9, 11}, 120), {}, 1,
       1000, rules(1000, 120, 100, 60, 0), {}, 100, 200, 200, "DesiredWithinRange"},
      {"check that events were marked 'outdated' for two different policies in the behavior for up", e({8, 12, 9, 11}, 120), {}, 1, 1000,
       rules(1000, 30, 100, 60, 0), {}, 100, 200, 200, "DesiredWithinRange"},
      {"check 'outdated' flag for events for one behavior for down", {}, e({8, 12, 9, 11}, 120), 1, 1000, {}, rules(1000, 60, 0, 0, 300),
       100, 5, 5, "DesiredWithinRange"},
      {"check that events were not marked 'outdated' for two different policies in the behavior for down", {}, e({8, 12, 9, 11}, 120), 1,
       1000, {}, rules(1000, 120, 100, 60, 300), 100, 5, 5, "DesiredWithinRange"},
      {"check that events were marked 'outdated' for two different policies in the behavior for down", {}, e({8, 12, 9, 11}, 120), 1, 1000,
       {}, rules(1000, 30, 100, 60, 300), 100, 5, 5, "DesiredWithinRange"},
  };
  for (const auto& c : cases) {
    Behavior behavior;
    if (c.scaleUp) behavior.scaleUp = *c.scaleUp;
    if (c.scaleDown) behavior.scaleDown = *c.scaleDown;
    HpaMemory memory;
    memory.scaleUpEvents = c.upEvents;
    memory.scaleDownEvents = c.downEvents;
    const Normalized out = limitWithBehavior(c.current, c.prenormalized, c.min, c.max, behavior, memory, kNow);
    EXPECT_EQ(out.replicas, c.expected) << c.name;
    EXPECT_EQ(out.reason, c.condition) << c.name;
  }
}

// --- TestCalculateScaleUpLimitWithScalingRules, TestCalculateScaleDownLimitWithBehaviors ---

TEST(TestCalculateScaleUpLimitWithScalingRules, SelectMinTakesTheSmallerRise) {
  Behavior behavior;
  behavior.scaleUp = {seconds(300), SelectPolicy::Min,
                      {{ScalingPolicy::Type::Pods, 2, seconds(60)}, {ScalingPolicy::Type::Percent, 50, seconds(60)}}};
  EXPECT_EQ(limitWithBehavior(1, 1000, 1, 1000, behavior, HpaMemory{}, kNow).replicas, 2);
}

TEST(TestCalculateScaleDownLimitWithBehaviors, SelectMinTakesTheSmallerFall) {
  Behavior behavior;
  behavior.scaleDown = {seconds(300), SelectPolicy::Min,
                        {{ScalingPolicy::Type::Pods, 2, seconds(60)}, {ScalingPolicy::Type::Percent, 50, seconds(60)}}};
  EXPECT_EQ(limitWithBehavior(5, 0, 0, 1000, behavior, HpaMemory{}, kNow).replicas, 3);
}

}  // namespace
}  // namespace fedhpa::sim
