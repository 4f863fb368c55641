// Burst tiers (preference `tier`): fill order, spill, serving order, reverse scale-in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "partitioner/partition.h"
#include "test/partitioner/builders.h"

namespace fedhpa::partitioner {
namespace {

using namespace testing;  // NOLINT: the builders

TEST(Tiers, MaxFillsTheLowestTierFirstAndSpillsBeyondItsCaps) {
  const auto place = [](Replicas max) {
    return partition(federated(1, max),
                     {Cluster("onprem1").prefer(std::nullopt, std::nullopt, 4),
                      Cluster("onprem2").prefer(std::nullopt, std::nullopt, 4),
                      Cluster("cloud").tier(1)},
                     kDemand, kNow);
  };
  Plan plan = place(6);
  EXPECT_EQ(planned(plan, "onprem1"), (Limits{1, 3}));
  EXPECT_EQ(planned(plan, "onprem2"), (Limits{1, 3}));
  EXPECT_EQ(planned(plan, "cloud"), std::nullopt);
  plan = place(12);
  EXPECT_EQ(planned(plan, "onprem1"), (Limits{1, 4}));
  EXPECT_EQ(planned(plan, "onprem2"), (Limits{1, 4}));
  EXPECT_EQ(planned(plan, "cloud"), (Limits{1, 4}));
}

TEST(Tiers, WeightsAndFloorsHoldInsideATier) {
  const Plan plan = partition(federated(1, 12),
                              {Cluster("a").prefer(2, std::nullopt, std::nullopt),
                               Cluster("b").prefer(1, std::nullopt, std::nullopt),
                               Cluster("c").tier(1).prefer(std::nullopt, 3, std::nullopt)},
                              kDemand, kNow);
  EXPECT_EQ(planned(plan, "a")->max, 6);
  EXPECT_EQ(planned(plan, "b")->max, 3);
  EXPECT_EQ(planned(plan, "c")->max, 3);  // its floor, though a higher tier
}

TEST(Tiers, TheHighestTierGivesFirstToASaturatedCluster) {
  const Plan plan = partition(
      federated(3, 15),
      {Cluster("a").hpa(1, 5).running(5, 5).cpu(80).scaledAgo(600s),       // needs 8
       Cluster("b").hpa(1, 5).running(2, 2).cpu(50).scaledAgo(600s),       // 3 unused, tier 0
       Cluster("c").tier(1).hpa(1, 5).running(2, 2).cpu(50).scaledAgo(600s)},  // 3 unused, tier 1
      kDemand, kNow);
  EXPECT_EQ(planned(plan, "a")->max, 8);
  EXPECT_EQ(planned(plan, "b")->max, 5);
  EXPECT_EQ(planned(plan, "c")->max, 2);
}

TEST(Tiers, SaturatedClustersOfTheLowerTierAreServedFirst) {
  const Plan plan = partition(
      federated(3, 15),
      {Cluster("a").tier(1).hpa(1, 5).running(5, 5).cpu(80).scaledAgo(600s),  // needs 8, cloud
       Cluster("b").hpa(1, 5).running(2, 2).cpu(50).scaledAgo(600s),           // 3 unused
       Cluster("c").hpa(1, 5).running(5, 5).cpu(80).scaledAgo(600s)},          // needs 8, on-prem
      kDemand, kNow);
  EXPECT_EQ(planned(plan, "c")->max, 8);
  EXPECT_EQ(planned(plan, "a")->max, 5);
}

TEST(Tiers, ASmallerFederatedMaxIsTakenFromTheHighestTierFirst) {
  const Plan plan = partition(
      federated(2, 7),
      {Cluster("onprem").hpa(1, 5).running(2, 2).cpu(50).scaledAgo(600s),
       Cluster("cloud").tier(1).hpa(1, 5).running(2, 2).cpu(50).scaledAgo(600s)},
      kDemand, kNow);
  EXPECT_EQ(planned(plan, "onprem")->max, 5);
  EXPECT_EQ(planned(plan, "cloud")->max, 2);
}

}  // namespace
}  // namespace fedhpa::partitioner
