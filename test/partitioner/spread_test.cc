#include "partitioner/spread.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fedhpa::partitioner {
namespace {

using ::testing::ElementsAre;
constexpr Replicas kBig = Replicas{1} << 40;

// The functions under test with a fresh Scratch each call, returning their results by value.
std::vector<Replicas> spreadWeighted(Replicas total, const std::vector<Replicas>& weights,
                                     const std::vector<Replicas>& caps) {
  Scratch scratch;
  std::vector<Replicas> shares(weights.size());
  partitioner::spreadWeighted(total, weights, caps, shares, scratch);
  return shares;
}
Replicas levelDown(std::vector<Replicas>& values, const std::vector<Replicas>& floors, Replicas amount) {
  Scratch scratch;
  return partitioner::levelDown(values, floors, amount, scratch);
}
Replicas levelUp(std::vector<Replicas>& values, const std::vector<Replicas>& caps, Replicas amount) {
  Scratch scratch;
  return partitioner::levelUp(values, caps, amount, scratch);
}
std::vector<Transfer> pairTransfers(const std::vector<Replicas>& takes, const std::vector<Replicas>& gives) {
  std::vector<Transfer> transfers;
  partitioner::pairTransfers(takes, gives, transfers);
  return transfers;
}

TEST(SpreadWeighted, EvenSpreadGivesTheRemainderToTheFirstByName) {
  EXPECT_THAT(spreadWeighted(10, {1, 1, 1}, {kBig, kBig, kBig}), ElementsAre(4, 3, 3));
  EXPECT_THAT(spreadWeighted(2, {1, 1, 1}, {kBig, kBig, kBig}), ElementsAre(1, 1, 0));
}

TEST(SpreadWeighted, FollowsWeights) {
  EXPECT_THAT(spreadWeighted(12, {2, 1, 1}, {kBig, kBig, kBig}), ElementsAre(6, 3, 3));
  EXPECT_THAT(spreadWeighted(5, {0, 1, 0}, {kBig, kBig, kBig}), ElementsAre(0, 5, 0));
}

TEST(SpreadWeighted, CapsSendTheRestToOthers) {
  EXPECT_THAT(spreadWeighted(12, {1, 1, 1}, {2, kBig, kBig}), ElementsAre(2, 5, 5));
  EXPECT_THAT(spreadWeighted(12, {1, 1, 1}, {2, 3, 1}), ElementsAre(2, 3, 1));  // caps too small
}

TEST(SpreadWeighted, HugeTotalsAreExact) {
  EXPECT_THAT(spreadWeighted(2'000'000'000, {1, 1, 1}, {kBig, kBig, kBig}),
              ElementsAre(666'666'667, 666'666'667, 666'666'666));
}

TEST(LevelDown, TakesFromTheHighestFirstAndRespectsFloors) {
  std::vector<Replicas> values{5, 9, 2};
  EXPECT_EQ(levelDown(values, {0, 0, 0}, 5), 5);
  EXPECT_THAT(values, ElementsAre(5, 4, 2));  // 9 -> 5, then one more from the later cluster
  values = {5, 9, 2};
  EXPECT_EQ(levelDown(values, {4, 8, 0}, 100), 4);
  EXPECT_THAT(values, ElementsAre(4, 8, 0));
}

TEST(LevelDown, TiesGiveFromTheLastFirst) {
  std::vector<Replicas> values{3, 3, 3};
  levelDown(values, {0, 0, 0}, 2);
  EXPECT_THAT(values, ElementsAre(3, 2, 2));
}

TEST(LevelUp, GivesToTheLowestFirstUpToCaps) {
  std::vector<Replicas> values{1, 5, 0};
  EXPECT_EQ(levelUp(values, {kBig, kBig, 2}, 6), 6);
  EXPECT_THAT(values, ElementsAre(5, 5, 2));
  values = {0, 0, 0};
  levelUp(values, {kBig, kBig, kBig}, 2);
  EXPECT_THAT(values, ElementsAre(1, 1, 0));
}

TEST(LevelUp, HugeAmountsCostNothingMore) {
  std::vector<Replicas> values{0, 0};
  EXPECT_EQ(levelUp(values, {kBig, kBig}, 2'000'000'001), 2'000'000'001);
  EXPECT_THAT(values, ElementsAre(1'000'000'001, 1'000'000'000));
}

TEST(PairTransfers, PairsDonorsWithReceiversInOrder) {
  const auto transfers = pairTransfers({0, 3, 1}, {2, 0, 2});
  ASSERT_EQ(transfers.size(), 3u);
  EXPECT_EQ(transfers[0].from, 1u);
  EXPECT_EQ(transfers[0].to, 0u);
  EXPECT_EQ(transfers[0].amount, 2);
  EXPECT_EQ(transfers[1].from, 1u);
  EXPECT_EQ(transfers[1].to, 2u);
  EXPECT_EQ(transfers[2].from, 2u);
  EXPECT_EQ(transfers[2].amount, 1);
}

}  // namespace
}  // namespace fedhpa::partitioner
