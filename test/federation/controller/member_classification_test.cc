// Which members a reconcile plans over: what a user sees as "this member kept its share while it
// was not answering" and "a member outside the selector gets nothing".
#include "federation/controller/member_classification.h"

#include <gtest/gtest.h>

#include "federation/controller/cluster_selector.h"

namespace fedhpa::controller {
namespace {

using partitioner::Limits;

MemberHpa member(const std::string& name, MemberHealth health, std::optional<Limits> limits,
                 std::map<std::string, std::string> labels = {}) {
  MemberHpa local;
  local.member.name = name;
  local.member.health = health;
  local.member.labels = std::move(labels);
  if (limits) {
    local.hpa = nlohmann::json{{"spec", {{"minReplicas", limits->min}, {"maxReplicas", limits->max}}}};
    local.limits = limits;
  }
  return local;
}

std::vector<std::string> plannedNames(const MemberClassification& classified) {
  std::vector<std::string> names;
  for (const auto& state : classified.planned) names.push_back(state.name);
  return names;
}

TEST(ClassifyMembers, HealthyMembersArePlannedWithTheirCopiesAndPreferences) {
  FederatedHpa federated;
  federated.preferences["a"].weight = 3;
  const auto classified = classifyMembers({member("a", MemberHealth::Healthy, Limits{1, 4}), member("b", MemberHealth::Healthy, std::nullopt)},
                                          federated, "");
  ASSERT_EQ(plannedNames(classified), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(classified.planned[0].hpa);
  EXPECT_EQ(classified.planned[0].hpa->limits, (Limits{1, 4}));
  EXPECT_EQ(classified.planned[0].preferences.weight, 3);
  EXPECT_FALSE(classified.planned[1].hpa);
  EXPECT_EQ(classified.frozen, (Limits{0, 0}));
  EXPECT_TRUE(classified.unread.empty());
}

TEST(ClassifyMembers, AMemberNotAnsweringKeepsWhatItHoldsOutOfThePlan) {
  const auto classified = classifyMembers({member("a", MemberHealth::Unknown, Limits{2, 4}), member("b", MemberHealth::Healthy, Limits{1, 6})},
                                          FederatedHpa{}, "");
  EXPECT_EQ(plannedNames(classified), (std::vector<std::string>{"b"}));
  EXPECT_EQ(classified.frozen, (Limits{2, 4}));
  EXPECT_TRUE(classified.unread.empty()) << "its copy was read before: what it holds is known";
}

TEST(ClassifyMembers, AMemberNeverReadOrThatMayHoldMoreBlocksRaises) {
  auto unseen = member("unseen", MemberHealth::Healthy, Limits{1, 3});
  unseen.unseen = true;
  const auto classified = classifyMembers({member("never-read", MemberHealth::Unknown, std::nullopt), unseen}, FederatedHpa{}, "");
  EXPECT_TRUE(classified.planned.empty());
  EXPECT_EQ(classified.unread, (std::vector<std::string>{"never-read", "unseen"}));
  EXPECT_EQ(classified.frozen, (Limits{1, 3}));
}

TEST(ClassifyMembers, ReleasedAndForeignMembersCountForNothing) {
  auto foreign = member("foreign", MemberHealth::Healthy, Limits{5, 5});
  foreign.foreign = true;
  const auto classified = classifyMembers({member("released", MemberHealth::Released, Limits{2, 4}), foreign}, FederatedHpa{}, "");
  EXPECT_TRUE(classified.planned.empty());
  EXPECT_EQ(classified.frozen, (Limits{0, 0}));
  EXPECT_TRUE(classified.unread.empty());
}

TEST(ClassifyMembers, TheClusterSelectorChoosesAmongHealthyMembersAndABadOneIsAnError) {
  const std::vector<MemberHpa> locals = {member("eu", MemberHealth::Healthy, std::nullopt, {{"region", "eu"}}),
                                         member("us", MemberHealth::Healthy, std::nullopt, {{"region", "us"}})};
  EXPECT_EQ(plannedNames(classifyMembers(locals, FederatedHpa{}, R"([{"key": "region", "operator": "In", "values": ["eu"]}])")), (std::vector<std::string>{"eu"}));
  EXPECT_THROW(classifyMembers(locals, FederatedHpa{}, R"([{"key": "region", "operator": "Near", "values": ["eu"]}])"), SelectorError);
}

}  // namespace
}  // namespace fedhpa::controller
