// Table tests: one rule of the partitioner per test, both policies where they should agree,
// each where they differ.
#include "partitioner/invariants.h"
#include "partitioner/partition.h"
#include "partitioner/reasons.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/partitioner/builders.h"

namespace fedhpa::partitioner {
namespace {

using namespace testing;  // NOLINT: the builders
using ::testing::HasSubstr;
using ::testing::Not;
using Kind = Policy::Kind;

constexpr Limits L(Replicas min, Replicas max) { return Limits{min, max}; }

class BothPolicies : public ::testing::TestWithParam<Kind> {};
INSTANTIATE_TEST_SUITE_P(Partition, BothPolicies, ::testing::Values(Kind::Legacy, Kind::Demand),
                         [](const auto& info) { return std::string(policyName(info.param)); });

TEST_P(BothPolicies, DocumentedExampleThreeClustersMax9Min2) {
  const Plan plan = partition(federated(2, 9),
                              {Cluster("member1"), Cluster("member2"), Cluster("member3")},
                              policy(GetParam()), kNow);
  for (const char* name : {"member1", "member2", "member3"}) {
    EXPECT_EQ(planned(plan, name), L(1, 3)) << name;
  }
  EXPECT_EQ(plan.moves.size(), 3u);
}

TEST(Partition, DemandSkipsOneClusterWhenMaxIsBelowTheClusterCount) {
  const Plan plan = partition(federated(1, 2), {Cluster("a"), Cluster("b"), Cluster("c")},
                              policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "a"), L(1, 1));
  EXPECT_EQ(planned(plan, "b"), L(1, 1));
  EXPECT_EQ(planned(plan, "c"), std::nullopt);
}

TEST(Partition, LegacyKeepsKubefedsFloorOfTwoPerCluster) {
  // kubefed v1's per-cluster distribution count never goes below 2, so max 2 lands in one
  // cluster; legacy reproduces it (the demand policy spreads 1 + 1).
  const Plan plan = partition(federated(1, 2), {Cluster("a"), Cluster("b"), Cluster("c")},
                              policy(Kind::Legacy), kNow);
  EXPECT_EQ(planned(plan, "a"), L(1, 2));
  EXPECT_EQ(planned(plan, "b"), std::nullopt);
  EXPECT_EQ(planned(plan, "c"), std::nullopt);
}

TEST(Partition, ZeroClustersGiveAnEmptyPlanWithAReason) {
  for (Kind kind : {Kind::Legacy, Kind::Demand}) {
    const Plan plan = partition(federated(1, 10), {}, policy(kind), kNow);
    EXPECT_TRUE(plan.clusters.empty());
    EXPECT_TRUE(plan.moves.empty());
    EXPECT_THAT(summaryOf(plan), HasSubstr("no eligible cluster"));
  }
}

TEST(Partition, NewClusterJoiningGetsItsShareFromIdleClusters) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 5).running(1, 1).scaledAgo(600s),
      Cluster("member2").hpa(1, 5).running(1, 1).scaledAgo(600s), Cluster("member3")};

  const Plan demand = partition(federated(2, 10), clusters, policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(demand, "member1"), L(1, 4));
  EXPECT_EQ(planned(demand, "member2"), L(1, 3));
  EXPECT_EQ(planned(demand, "member3"), L(1, 3));
  EXPECT_THAT(reasonForCluster(demand, "member3"), HasSubstr("new cluster: received max 1 from member1"));

  // kubefed v1: one replica from each offering cluster, new clusters first.
  const Plan legacy = partition(federated(2, 10), clusters, policy(Kind::Legacy), kNow);
  EXPECT_EQ(planned(legacy, "member1"), L(1, 4));
  EXPECT_EQ(planned(legacy, "member2"), L(1, 4));
  EXPECT_EQ(planned(legacy, "member3"), L(1, 2));
}

TEST(Partition, NewClusterWaitsWhenEveryoneUsesTheirMax) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(50).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(5, 5).cpu(50).scaledAgo(600s),
                               Cluster("member3")},
                              policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "member3"), std::nullopt);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_THAT(summaryOf(plan), HasSubstr("new cluster waits"));
}

TEST(Partition, SaturatedClusterNextToIdleOneReceivesMax) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
      Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s)};

  // demand: ceil(5 * 90 / 50) - 5 = 4 in one step, all member2 does not use.
  const Plan demand = partition(federated(2, 10), clusters, policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(demand, "member1"), L(1, 9));
  EXPECT_EQ(planned(demand, "member2"), L(1, 1));
  EXPECT_THAT(reasonForCluster(demand, "member1"),
              HasSubstr("saturated (5/5 replicas at 90% > 50% target): received max 4 from member2"));
  EXPECT_THAT(reasonForCluster(demand, "member2"), HasSubstr("gave max 4 to member1"));

  // legacy: one replica per giving cluster per reconcile.
  const Plan legacy = partition(federated(2, 10), clusters, policy(Kind::Legacy), kNow);
  EXPECT_EQ(planned(legacy, "member1"), L(1, 6));
  EXPECT_EQ(planned(legacy, "member2"), L(1, 4));
}

// An HPA without spec.behavior (kube's legacy path) keeps wanting the highest recommendation of its
// downscale window after its load has gone: at a lowered max it says TooManyReplicas while its
// metrics are under the target. demand believes the metrics: not saturated, nothing received.
TEST(Partition, DemandTrustsTheMetricsOverAStaleTooManyReplicas) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 5).running(5, 5).cpu(20).limitedByMax(true).scaledAgo(600s),
      Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s)};
  const Plan plan = partition(federated(2, 10), clusters, policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "member1").value_or(L(0, 0)).max, 5) << "member1 received no max";
  EXPECT_THAT(reasonForCluster(plan, "member1"), Not(HasSubstr("saturated")));
  // Metrics above the target still make it saturated, with or without the condition.
  const Plan hot = partition(federated(2, 10),
                             {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).limitedByMax(true).scaledAgo(600s),
                              Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s)},
                             policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(hot, "member1"), L(1, 9));
}

TEST_P(BothPolicies, SaturatedClusterWithNoGiverMovesNothing) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(4, 5).cpu(80).scaledAgo(600s)},
                              policy(GetParam()), kNow);
  EXPECT_EQ(planned(plan, "member1"), L(1, 5));
  EXPECT_EQ(planned(plan, "member2"), L(1, 5));
  EXPECT_TRUE(plan.moves.empty());
}

TEST(Partition, DemandSaysWhySaturationIsNotServed) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(4, 5).cpu(80).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  EXPECT_THAT(summaryOf(plan), HasSubstr("member1 saturated"));
  EXPECT_THAT(summaryOf(plan), HasSubstr("no cluster has unused max"));
}

TEST(Partition, DemandSumsUpUnservedSaturationInOneNote) {
  const Plan plan = partition(federated(3, 15),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
                               Cluster("member3").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  EXPECT_THAT(summaryOf(plan), HasSubstr("member1 saturated (5/5 replicas at 90% > 50% target) and 2 more "
                                      "saturated cluster(s) but no cluster has unused max to give"));
}

TEST(Partition, DemandNeedsEvidenceOfLoadWhereTheStatusGivesIt) {
  // At max, but utilisation at target and ScalingLimited not set: nothing to move.
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(50).limitedByMax(false).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  EXPECT_TRUE(plan.moves.empty());

  // The ScalingLimited condition alone is evidence enough.
  const Plan limited = partition(federated(2, 10),
                                 {Cluster("member1").hpa(1, 5).running(5, 5).limitedByMax(true).scaledAgo(600s),
                                  Cluster("member2").hpa(1, 5).running(1, 1).scaledAgo(600s)},
                                 policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(limited, "member1"), L(1, 6));
}

TEST(Partition, FederatedMaxLoweredTakesTheLargestUnusedMaxFirst) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 5).running(2, 2).scaledAgo(10s),
      Cluster("member2").hpa(1, 5).running(1, 1).scaledAgo(10s)};
  // 10 -> 4: member2 has 4 unused, member1 3; both are inside the window, which a smaller spec
  // overrides.
  const Plan demand = partition(federated(2, 4), clusters, policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(demand, "member1"), L(1, 3));
  EXPECT_EQ(planned(demand, "member2"), L(1, 1));
  EXPECT_THAT(reasonForCluster(demand, "member2"), HasSubstr("fitting the federated max of 4: max 5 -> 1"));
  // kubefed v1 reduces one replica per cluster per round.
  const Plan legacy = partition(federated(2, 4), clusters, policy(Kind::Legacy), kNow);
  EXPECT_EQ(planned(legacy, "member1"), L(1, 2));
  EXPECT_EQ(planned(legacy, "member2"), L(1, 2));
}

TEST(Partition, FederatedMaxLoweredBelowTheClusterCountDropsTheLeastBusy) {
  const Plan plan = partition(federated(1, 1),
                              {Cluster("member1").hpa(1, 3).running(3, 3).scaledAgo(600s),
                               Cluster("member2").hpa(1, 3).running(1, 1).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "member1"), L(1, 1));
  EXPECT_EQ(planned(plan, "member2"), std::nullopt);
  EXPECT_THAT(reasonForCluster(plan, "member2"), HasSubstr("fitting the federated max of 1"));
}

TEST(Partition, FederatedMaxRaisedGoesToSaturatedClustersFirst) {
  const Plan plan = partition(federated(2, 14),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(100).scaledAgo(30s),
                               Cluster("member2").hpa(1, 5).running(2, 2).cpu(40).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  // member1 asks for ceil(5 * 100 / 50) - 5 = 5: the 4 new ones, and 1 member2 does not use.
  EXPECT_EQ(planned(plan, "member1"), L(1, 10));
  EXPECT_EQ(planned(plan, "member2"), L(1, 4));
  EXPECT_THAT(reasonForCluster(plan, "member1"), HasSubstr("filling the federated max of 14: max 5 -> 9"));
  EXPECT_THAT(reasonForCluster(plan, "member1"), HasSubstr("received max 1 from member2"));
}

// The members may hold less than the federated max with the spec unchanged: the raise that a
// lowering made room for was not written in the last pass. The reason says what is filled, not
// that the user raised anything.
TEST(Partition, SumOfMaxBelowAnUnchangedFederatedMaxIsFilledNotRaised) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 3).running(3, 3).cpu(100).scaledAgo(30s),
                               Cluster("member2").hpa(1, 5).running(2, 2).cpu(40).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "member1")->max + planned(plan, "member2")->max, 10);
  EXPECT_THAT(reasonForCluster(plan, "member1"), HasSubstr("filling the federated max of 10: max 3 -> 5"));
  EXPECT_THAT(reasonForCluster(plan, "member1"), Not(HasSubstr("raised")));
}

TEST(Partition, LegacyFederatedMaxRaisedFollowsKubefed) {
  const Plan plan = partition(federated(2, 20),
                              {Cluster("member1").hpa(1, 5).running(1, 1).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(1, 1).scaledAgo(600s)},
                              policy(Kind::Legacy), kNow);
  // Σ max 10 -> 20: kubefed v1 hands its distribution count (20 / 2) to the first cluster.
  EXPECT_EQ(planned(plan, "member1"), L(1, 15));
  EXPECT_EQ(planned(plan, "member2"), L(1, 5));
}

TEST_P(BothPolicies, FederatedMinRaisedAndLowered) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 5).running(3, 3).scaledAgo(600s),
      Cluster("member2").hpa(1, 5).running(3, 3).scaledAgo(600s)};
  const Plan raised = partition(federated(6, 10), clusters, policy(GetParam()), kNow);
  EXPECT_EQ(planned(raised, "member1")->min + planned(raised, "member2")->min, 6);

  const std::vector<ClusterState> high = {
      Cluster("member1").hpa(3, 5).running(3, 3).scaledAgo(600s),
      Cluster("member2").hpa(3, 5).running(3, 3).scaledAgo(600s)};
  const Plan lowered = partition(federated(2, 10), high, policy(GetParam()), kNow);
  EXPECT_EQ(planned(lowered, "member1")->min, 1);
  EXPECT_EQ(planned(lowered, "member2")->min, 1);
}

TEST(Partition, LegacyMinMovesToAClusterThatWantsItFromOneThatOffersIt) {
  const Plan plan = partition(federated(4, 10),
                              {Cluster("member1").hpa(3, 5).running(3, 3).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(4, 4).scaledAgo(600s)},
                              policy(Kind::Legacy), kNow);
  EXPECT_EQ(planned(plan, "member1"), L(2, 5));
  EXPECT_EQ(planned(plan, "member2"), L(2, 5));
}

TEST(Partition, DemandMinMovesFromAnIdleClusterToASaturatedOne) {
  const Plan plan = partition(federated(4, 10),
                              {Cluster("member1").hpa(3, 5).running(3, 3).cpu(20).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(5, 5).cpu(80).scaledAgo(600s)},
                              policy(Kind::Demand), kNow);
  // member1 needs ceil(3 * 20 / 50) = 2: it gives max 2 (5 - 3 in use) and min 1.
  EXPECT_EQ(planned(plan, "member1"), L(2, 3));
  EXPECT_EQ(planned(plan, "member2"), L(2, 7));
  EXPECT_THAT(reasonForCluster(plan, "member2"), HasSubstr("received min 1 from member1"));
}

TEST_P(BothPolicies, ForbiddenWindowStopsAGiver) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(30s)},
                              policy(GetParam(), 120s), kNow);
  EXPECT_TRUE(plan.moves.empty());
}

TEST(Partition, ForbiddenWindowStopsALegacyReceiverButNotADemandOne) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(30s),
      Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s)};
  EXPECT_TRUE(partition(federated(2, 10), clusters, policy(Kind::Legacy), kNow).moves.empty());
  const Plan demand = partition(federated(2, 10), clusters, policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(demand, "member1"), L(1, 9));
  // With the window at 0 legacy moves too.
  const Plan legacy = partition(federated(2, 10), clusters, policy(Kind::Legacy, 0s), kNow);
  EXPECT_EQ(planned(legacy, "member1"), L(1, 6));
}

TEST(Partition, PristineClusterMayGive) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
                               Cluster("member2").hpa(1, 5)},
                              policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "member1"), L(1, 9));
  EXPECT_EQ(planned(plan, "member2"), L(1, 1));
}

TEST(Partition, PreferencesBoundAMove) {
  const Plan plan = partition(federated(2, 10),
                              {Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s).prefer({}, {}, 7),
                               Cluster("member2").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s).prefer({}, 3, {})},
                              policy(Kind::Demand), kNow);
  // member1 wants 4 more but may hold at most 7; member2 keeps its preferred floor of 3.
  EXPECT_EQ(planned(plan, "member1"), L(1, 7));
  EXPECT_EQ(planned(plan, "member2")->max, 3);
  EXPECT_GE(planned(plan, "member2")->min, 3);
}

TEST(Partition, PreferenceWeightsShapeTheInitialSpread) {
  const Plan plan = partition(federated(4, 12),
                              {Cluster("a").prefer(2, {}, {}), Cluster("b"), Cluster("c")},
                              policy(Kind::Demand), kNow);
  EXPECT_EQ(planned(plan, "a"), L(2, 6));
  EXPECT_EQ(planned(plan, "b"), L(1, 3));
  EXPECT_EQ(planned(plan, "c"), L(1, 3));
}

TEST_P(BothPolicies, KubefedHangCaseGivesAValidPlan) {
  // kubefed v1's min distribution loop never ends here: member2 got no max and member1 is
  // inside its window, so nobody can take the min still to distribute.
  const Plan plan = partition(federated(2, 10),
                              {Cluster("c1").hpa(1, 10).running(4, 4).scaledAgo(0s), Cluster("c2")},
                              policy(GetParam()), kNow);
  EXPECT_EQ(planned(plan, "c1"), L(2, 10));
  EXPECT_EQ(planned(plan, "c2"), std::nullopt);
  if (GetParam() == Kind::Legacy) {
    EXPECT_THAT(summaryOf(plan), HasSubstr("never finish"));
  }
}

TEST_P(BothPolicies, QuietFederationIsStable) {
  const std::vector<ClusterState> clusters = {
      Cluster("member1").hpa(1, 4).running(3, 3).cpu(45).scaledAgo(600s),
      Cluster("member2").hpa(1, 3).running(2, 1).cpu(30).scaledAgo(600s),
      Cluster("member3").hpa(1, 3).running(1, 1).cpu(20).scaledAgo(600s)};
  const Plan plan = partition(federated(3, 10), clusters, policy(GetParam()), kNow);
  EXPECT_TRUE(plan.moves.empty()) << partitioner::reasonFor(plan, plan.moves.front());
  EXPECT_EQ(planned(plan, "member1"), L(1, 4));
}

TEST_P(BothPolicies, InputOrderDoesNotMatter) {
  std::vector<ClusterState> clusters = {
      Cluster("b").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
      Cluster("a").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s), Cluster("c")};
  const Plan first = partition(federated(2, 10), clusters, policy(GetParam()), kNow);
  std::reverse(clusters.begin(), clusters.end());
  const Plan second = partition(federated(2, 10), clusters, policy(GetParam()), kNow);
  EXPECT_EQ(first.clusters, second.clusters);
  EXPECT_EQ(first.clusters.front().name, "a");
}

// A workspace remembers the order it last sorted the clusters into; a federation of the same size
// in another order, or with other names, must still be planned in name order.
TEST_P(BothPolicies, ReusedWorkspaceSortsEachFederationAfresh) {
  std::vector<ClusterState> clusters = {
      Cluster("m10").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s),
      Cluster("m9").hpa(1, 5).running(1, 1).cpu(10).scaledAgo(600s), Cluster("m2")};
  Workspace workspace;
  const Plan first = partition(federated(2, 10), clusters, policy(GetParam()), kNow, workspace);
  EXPECT_EQ(first.clusters.front().name, "m10");
  std::rotate(clusters.begin(), clusters.begin() + 1, clusters.end());
  EXPECT_EQ(partition(federated(2, 10), clusters, policy(GetParam()), kNow, workspace).clusters,
            first.clusters);
  clusters[2].name = "m0";  // was "m10": the remembered order no longer sorts these names
  const Plan renamed = partition(federated(2, 10), clusters, policy(GetParam()), kNow, workspace);
  ASSERT_EQ(renamed.clusters.size(), 3u);
  EXPECT_EQ(renamed.clusters[0].name, "m0");
  EXPECT_EQ(renamed.clusters[1].name, "m2");
  EXPECT_EQ(renamed.clusters[2].name, "m9");
}

}  // namespace
}  // namespace fedhpa::partitioner

namespace fedhpa::partitioner {
namespace {

using namespace testing;  // NOLINT: the builders

// Karmada's guide: max 10 over member1 and member2 at 1:1, then 2:1. The static policy splits by
// weight alone: a saturated member gets nothing beyond its share, an idle one keeps its share.
TEST(StaticWeights, SplitMaxByWeightWhateverTheLoad) {
  const Plan first = partition(federated(1, 10),
                               {Cluster("member1").prefer(1, std::nullopt, std::nullopt),
                                Cluster("member2").prefer(1, std::nullopt, std::nullopt)},
                               policy(Policy::Kind::Static), kNow);
  EXPECT_EQ(planned(first, "member1"), L(1, 5));
  EXPECT_EQ(planned(first, "member2"), L(1, 5)) << "min 1 each: no local min 0";

  // 2:1: 20/3 = 6.67 and 10/3 = 3.33; largest remainder gives the tenth replica to member1.
  const Plan reweighed = partition(federated(1, 10),
                                   {Cluster("member1").hpa(1, 5).running(1, 1).cpu(5).prefer(2, std::nullopt, std::nullopt),
                                    Cluster("member2").hpa(1, 5).running(5, 9).cpu(300).limitedByMax(true).prefer(
                                        1, std::nullopt, std::nullopt)},
                                   policy(Policy::Kind::Static), kNow);
  EXPECT_EQ(planned(reweighed, "member1"), L(1, 7));
  EXPECT_EQ(planned(reweighed, "member2"), L(1, 3)) << "saturated, yet held at its share";
  EXPECT_EQ(reasonForCluster(reweighed, "member2"), "share by static weight of the federated max of 10: max 5 -> 3");
}

TEST(StaticWeights, ZeroWeightHoldsNoHpaAndMinFollowsTheShares) {
  const Plan plan = partition(federated(4, 9),
                              {Cluster("a").hpa(2, 3).prefer(1, std::nullopt, std::nullopt),
                               Cluster("b").hpa(1, 3).prefer(2, std::nullopt, std::nullopt),
                               Cluster("c").hpa(1, 3).prefer(0, std::nullopt, std::nullopt)},
                              policy(Policy::Kind::Static), kNow);
  EXPECT_EQ(planned(plan, "a"), L(2, 3));
  EXPECT_EQ(planned(plan, "b"), L(2, 6));
  EXPECT_EQ(planned(plan, "c"), std::nullopt);
  EXPECT_TRUE(invariantViolations(federated(4, 9), resultOf(plan)).empty());
}

}  // namespace
}  // namespace fedhpa::partitioner
