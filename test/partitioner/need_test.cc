// The member HPA's need from its metrics (need.h), and the demand policy acting on it.
#include "partitioner/need.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "partitioner/cluster_view.h"
#include "partitioner/partition.h"
#include "partitioner/reasons.h"
#include "test/partitioner/builders.h"

namespace fedhpa::partitioner {
namespace {

using namespace testing;  // NOLINT: the builders
using ::testing::HasSubstr;
using Source = MetricReading::Source;
using Target = MetricReading::Target;

MetricReading reading(Source source, Target target, double targetValue,
                      std::optional<double> current) {
  return {source, target, "m", targetValue, current};
}

struct MetricCase {
  const char* what;
  MetricReading metric;
  Replicas current;
  std::optional<Replicas> expected;
};

TEST(ReplicasForMetric, KubesFormulaPerMetricAndTargetType) {
  const MetricCase cases[] = {
      {"cpu utilisation 92% of 50% at 4", reading(Source::Resource, Target::Utilization, 50, 92), 4, 8},
      {"memory utilisation 80% of 60% at 3", reading(Source::Resource, Target::Utilization, 60, 80), 3, 4},
      {"cpu average 1.5 of 0.5 cores at 2", reading(Source::Resource, Target::AverageValue, 0.5, 1.5), 2, 6},
      {"container cpu 90% of 45% at 5", reading(Source::ContainerResource, Target::Utilization, 45, 90), 5, 10},
      {"pods 25 of 10 per pod at 4", reading(Source::Pods, Target::AverageValue, 10, 25), 4, 10},
      {"object value 300 of 100 at 2", reading(Source::Object, Target::Value, 100, 300), 2, 6},
      {"object 50 of 20 per pod at 3", reading(Source::Object, Target::AverageValue, 20, 50), 3, 8},
      {"external value 0.5 of 1 at 4", reading(Source::External, Target::Value, 1, 0.5), 4, 2},
      {"external 15 of 5 per pod at 2", reading(Source::External, Target::AverageValue, 5, 15), 2, 6},
      {"within tolerance above (+9%)", reading(Source::Pods, Target::AverageValue, 10, 10.9), 7, 7},
      {"within tolerance below (-9%)", reading(Source::Pods, Target::AverageValue, 10, 9.1), 7, 7},
      {"just outside tolerance below", reading(Source::Pods, Target::AverageValue, 100, 89), 10, 9},
      {"just outside tolerance above", reading(Source::Pods, Target::AverageValue, 100, 111), 10, 12},
      {"idle scales to 0 proposals", reading(Source::Pods, Target::AverageValue, 10, 0), 4, 0},
      {"missing reading", reading(Source::Pods, Target::AverageValue, 10, std::nullopt), 4, std::nullopt},
      {"zero target", reading(Source::Pods, Target::AverageValue, 0, 5), 4, std::nullopt},
      {"nothing running", reading(Source::Pods, Target::AverageValue, 10, 25), 0, std::nullopt},
  };
  for (const MetricCase& c : cases) {
    EXPECT_EQ(replicasForMetric(c.metric, c.current), c.expected) << c.what;
  }
}

TEST(NeedFromMetrics, TakesTheLargestProposal) {
  const std::vector<MetricReading> metrics = {
      reading(Source::Resource, Target::Utilization, 50, 20),  // 2 at 5
      reading(Source::Pods, Target::AverageValue, 10, 30),     // 15 at 5
      reading(Source::External, Target::Value, 100, 150)};     // 8 at 5
  const auto need = needFromMetrics(metrics, 5);
  ASSERT_TRUE(need);
  EXPECT_EQ(need->replicas, 15);
  EXPECT_EQ(need->decidedBy, 1);
}

TEST(NeedFromMetrics, MissingMetricsCountAsTheHpaCountsThem) {
  // Some missing: scaling up on the others goes ahead...
  auto need = needFromMetrics({reading(Source::Pods, Target::AverageValue, 10, 30),
                               reading(Source::External, Target::Value, 1, std::nullopt)},
                              4);
  ASSERT_TRUE(need);
  EXPECT_EQ(need->replicas, 12);
  // ...scaling down does not: the HPA keeps its count.
  need = needFromMetrics({reading(Source::Pods, Target::AverageValue, 10, 2),
                          reading(Source::External, Target::Value, 1, std::nullopt)},
                         4);
  ASSERT_TRUE(need);
  EXPECT_EQ(need->replicas, 4);
  EXPECT_EQ(need->decidedBy, -1);
  // All missing: no proposal at all.
  EXPECT_FALSE(needFromMetrics({reading(Source::Pods, Target::AverageValue, 10, std::nullopt)}, 4));
  EXPECT_FALSE(needFromMetrics({}, 4));
}

// The example: saturated on a Pods metric, 25 against an AverageValue target of 10 at
// 4/4 replicas, next to an idle member with 5 spare max. Its own HPA needs 10.
TEST(DemandOnMetrics, PodsMetricMovesWhatTheHpaNeedsNotOne) {
  const Plan plan = partition(
      federated(2, 10, std::nullopt),
      {Cluster("member1").hpa(1, 4).running(4, 4).limitedByMax(true).scaledAgo(600s)
           .metric(Source::Pods, "http_requests_per_second", Target::AverageValue, 10, 25),
       Cluster("member2").hpa(1, 6).running(1, 1).scaledAgo(600s)
           .metric(Source::Pods, "http_requests_per_second", Target::AverageValue, 10, 2)},
      kDemand, kNow);
  EXPECT_EQ(planned(plan, "member1"), (Limits{1, 9}));
  EXPECT_EQ(planned(plan, "member2"), (Limits{1, 1}));
  EXPECT_THAT(reasonForCluster(plan, "member1"),
              HasSubstr("saturated (4/4 replicas at http_requests_per_second 25 > 10 per pod "
                        "target, need 10 (ScalingLimited: TooManyReplicas)): received max 5 from member2"));
  EXPECT_THAT(reasonForCluster(plan, "member2"), HasSubstr("gave max 5 to member1"));

  // legacy moves one, as kubefed v1 did.
  const Plan legacy = partition(
      federated(2, 10, std::nullopt),
      {Cluster("member1").hpa(1, 4).running(4, 4).limitedByMax(true).scaledAgo(600s)
           .metric(Source::Pods, "http_requests_per_second", Target::AverageValue, 10, 25),
       Cluster("member2").hpa(1, 6).running(1, 1).scaledAgo(600s)
           .metric(Source::Pods, "http_requests_per_second", Target::AverageValue, 10, 2)},
      policy(Policy::Kind::Legacy), kNow);
  EXPECT_EQ(planned(legacy, "member1"), (Limits{1, 5}));
}

struct SaturatedOn {
  const char* what;
  Source source;
  Target target;
  double targetValue;
  double current;
  Replicas expectedMax;  // member1 at 4/4, member2 has max 16 at 2 replicas
};

TEST(DemandOnMetrics, EveryMetricTypeSaturates) {
  const SaturatedOn cases[] = {
      {"memory utilisation 90% of 60%", Source::Resource, Target::Utilization, 60, 90, 6},
      {"object value 250 of 100", Source::Object, Target::Value, 100, 250, 10},
      {"object 30 of 10 per pod", Source::Object, Target::AverageValue, 10, 30, 12},
      {"external value 2 of 1", Source::External, Target::Value, 1, 2, 8},
      {"external 1.5k of 500 per pod", Source::External, Target::AverageValue, 500, 1500, 12},
  };
  for (const SaturatedOn& c : cases) {
    const Plan plan = partition(
        federated(2, 20, std::nullopt),
        {Cluster("member1").hpa(1, 4).running(4, 4).scaledAgo(600s)
             .metric(c.source, "m", c.target, c.targetValue, c.current),
         Cluster("member2").hpa(1, 16).running(2, 2).scaledAgo(600s)
             .metric(c.source, "m", c.target, c.targetValue, c.current / 4)},
        kDemand, kNow);
    EXPECT_EQ(planned(plan, "member1")->max, c.expectedMax) << c.what;
    EXPECT_EQ(planned(plan, "member1")->max + planned(plan, "member2")->max, 20) << c.what;
  }
}

TEST(DemandOnMetrics, LowCpuDoesNotHideAHighCustomMetric) {
  const Plan plan = partition(
      federated(2, 12, 50),
      {Cluster("member1").hpa(1, 3).running(3, 3).cpu(20).scaledAgo(600s)
           .metric(Source::Resource, "cpu", Target::Utilization, 50, 20)
           .metric(Source::Pods, "queue_depth", Target::AverageValue, 10, 30),
       Cluster("member2").hpa(1, 9).running(1, 1).cpu(10).scaledAgo(600s)
           .metric(Source::Resource, "cpu", Target::Utilization, 50, 10)
           .metric(Source::Pods, "queue_depth", Target::AverageValue, 10, 1)},
      kDemand, kNow);
  EXPECT_EQ(planned(plan, "member1"), (Limits{1, 9}));
  EXPECT_THAT(reasonForCluster(plan, "member1"), HasSubstr("queue_depth 30 > 10 per pod target, need 9"));
}

TEST(DemandOnMetrics, WithinToleranceIsNotSaturated) {
  // cpu 54% of 50% at max: the member's HPA stays at 4 (within 10 %), so nothing moves.
  const Plan plan = partition(
      federated(2, 10, 50),
      {Cluster("member1").hpa(1, 4).running(4, 4).cpu(54).scaledAgo(600s),
       Cluster("member2").hpa(1, 6).running(1, 1).cpu(10).scaledAgo(600s)},
      kDemand, kNow);
  EXPECT_TRUE(plan.moves.empty()) << summaryOf(plan);
}

TEST(DemandOnMetrics, AllMetricsMissingFallsBackToTheReplicaCounts) {
  // No reading at all: kubefed v1's test (at max, desired == current) decides, one at a time.
  const Plan plan = partition(
      federated(2, 10, std::nullopt),
      {Cluster("member1").hpa(1, 4).running(4, 4).scaledAgo(600s)
           .metric(Source::External, "jobs", Target::Value, 10, std::nullopt),
       Cluster("member2").hpa(1, 6).running(1, 1).scaledAgo(600s)
           .metric(Source::External, "jobs", Target::Value, 10, std::nullopt)},
      kDemand, kNow);
  EXPECT_EQ(planned(plan, "member1"), (Limits{1, 5}));
}

}  // namespace
}  // namespace fedhpa::partitioner

namespace fedhpa::partitioner {
namespace {

using namespace testing;  // NOLINT: the builders

// member2 still runs 10 replicas (its HPA's scale-down stabilisation) at 10 % of a 50 % target:
// it needs 2, and keeps 2 + a margin of 1 while member1 is saturated.
TEST(Reclaim, ASaturatedClusterTakesWhatAnotherHoldsBeyondItsNeedPlusMargin) {
  const Plan plan = partition(
      federated(2, 14, 50),
      {Cluster("member1").hpa(1, 4).running(4, 4).cpu(250).scaledAgo(600s),
       Cluster("member2").hpa(1, 10).running(10, 10).cpu(10).scaledAgo(600s)},
      policy(Policy::Kind::Demand), kNow);
  EXPECT_EQ(reclaimMargin(2), 1);
  EXPECT_EQ(planned(plan, "member2"), (Limits{1, 3}));
  EXPECT_EQ(planned(plan, "member1"), (Limits{1, 11}));
  EXPECT_THAT(reasonForCluster(plan, "member2"),
              HasSubstr("holds more than it needs (10/10 replicas at 10% <= 50% target; "
                        "keeps need 2 + margin 1): gave max 7 to member1"));
}

TEST(Reclaim, UnusedMaxGoesFirstThenReclaim) {
  const Plan plan = partition(
      federated(3, 24, 50),
      {Cluster("a").hpa(1, 4).running(4, 4).cpu(200).scaledAgo(600s),     // needs 16
       Cluster("b").hpa(1, 10).running(10, 10).cpu(5).scaledAgo(600s),    // needs 1, keeps 2
       Cluster("c").hpa(1, 10).running(4, 4).cpu(50).scaledAgo(600s)},    // 6 unused
      policy(Policy::Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "c"), (Limits{1, 4}));
  EXPECT_EQ(planned(plan, "b"), (Limits{1, 4}));
  EXPECT_EQ(planned(plan, "a"), (Limits{1, 16}));
}

TEST(Reclaim, NeverBelowMinOrPreferenceFloorOrWithoutAReading) {
  const auto run = [](Cluster donor) {
    return partition(federated(2, 20, 50),
                     {Cluster("member1").hpa(1, 4).running(4, 4).cpu(500).scaledAgo(600s), donor},
                     policy(Policy::Kind::Demand), kNow);
  };
  EXPECT_EQ(planned(run(Cluster("member2").hpa(7, 16).running(16, 16).cpu(5).scaledAgo(600s)),
                    "member2")->max, 7);
  EXPECT_EQ(planned(run(Cluster("member2").hpa(1, 16).running(16, 16).cpu(5).scaledAgo(600s)
                            .prefer(std::nullopt, 9, std::nullopt)), "member2")->max, 9);
  // No utilisation reading: nothing says it holds too much.
  EXPECT_EQ(planned(run(Cluster("member2").hpa(1, 16).running(16, 16).scaledAgo(600s)),
                    "member2")->max, 16);
  // Inside the scale-forbidden window it gives nothing.
  EXPECT_EQ(planned(run(Cluster("member2").hpa(1, 16).running(16, 16).cpu(5).scaledAgo(30s)),
                    "member2")->max, 16);
}

TEST(Reclaim, OnlyWhileAnotherClusterIsSaturated) {
  const Plan plan = partition(
      federated(2, 14, 50),
      {Cluster("member1").hpa(1, 4).running(3, 3).cpu(50).scaledAgo(600s),
       Cluster("member2").hpa(1, 10).running(10, 10).cpu(10).scaledAgo(600s)},
      policy(Policy::Kind::Demand), kNow);
  EXPECT_TRUE(plan.moves.empty()) << summaryOf(plan);
}

}  // namespace
}  // namespace fedhpa::partitioner
