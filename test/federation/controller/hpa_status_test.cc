#include "federation/controller/hpa_status.h"

#include <gtest/gtest.h>

namespace fedhpa::controller {
namespace {


const SystemTime kNow = SystemTime(std::chrono::seconds(1'800'000'000));

MemberHpa member(const std::string& name, MemberHealth health, std::optional<json> hpa) {
  MemberHpa local;
  local.member.name = name;
  local.member.health = health;
  local.hpa = std::move(hpa);
  return local;
}

json localHpa(long long min, long long max, long long current, long long desired, std::optional<long long> cpu,
              const std::string& scaledAt = "", bool limited = false) {
  json status = {{"currentReplicas", current},
                 {"desiredReplicas", desired},
                 {"conditions",
                  {{{"type", "AbleToScale"}, {"status", "True"}},
                   {{"type", "ScalingActive"}, {"status", "True"}},
                   {{"type", "ScalingLimited"}, {"status", limited ? "True" : "False"}}}}};
  if (cpu)
    status["currentMetrics"] = {{{"type", "Resource"}, {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", *cpu}}}}}}};
  if (!scaledAt.empty()) status["lastScaleTime"] = scaledAt;
  return {{"spec", {{"minReplicas", min}, {"maxReplicas", max}}}, {"status", status}};
}

const json* conditionOf(const json& status, const std::string& type) {
  for (const auto& condition : status["conditions"])
    if (condition["type"] == type) return &condition;
  return nullptr;
}

TEST(HpaStatusTest, ReplicasAreSummedAndUtilizationIsWeightedByEachMembersReplicas) {
  const std::vector<MemberHpa> locals = {
      member("member1", MemberHealth::Healthy, localHpa(1, 4, 3, 4, 90, "2026-11-25T10:00:00Z")),
      member("member2", MemberHealth::Healthy, localHpa(1, 6, 1, 1, 10, "2026-11-25T11:00:00Z")),
  };
  const json status = aggregatedStatus(locals, 7, json::array(), kNow);
  EXPECT_EQ(status["observedGeneration"], 7);
  EXPECT_EQ(status["currentReplicas"], 4);
  EXPECT_EQ(status["desiredReplicas"], 5);
  EXPECT_EQ(status["currentMetrics"][0]["resource"]["current"]["averageUtilization"], (3 * 90 + 1 * 10) / 4);
  EXPECT_EQ(status["lastScaleTime"], "2026-11-25T11:00:00Z");
}

TEST(HpaStatusTest, AReleasedMemberCountsNeitherInTheSumsNorInTheBreakdown) {
  const std::vector<MemberHpa> locals = {
      member("member1", MemberHealth::Healthy, localHpa(1, 4, 2, 2, 50)),
      member("gone", MemberHealth::Released, localHpa(1, 6, 5, 5, 100)),
  };
  const json status = aggregatedStatus(locals, 1, json::array(), kNow);
  EXPECT_EQ(status["currentReplicas"], 2);
  EXPECT_EQ(status["currentMetrics"][0]["resource"]["current"]["averageUtilization"], 50);
  const json breakdown = statusBreakdown(locals);
  EXPECT_EQ(breakdown, (json{{"member1", {{"min", 1}, {"max", 4}, {"current", 2}, {"desired", 2}, {"cpuUtilization", 50}}}}));
}

// The server stores quantities in canonical form: a status written as "0m" or "1000m" would read back
// as "0" or "1" and never compare equal to the next one computed, so every resync would write it.
TEST(HpaStatusTest, TheAverageValueIsInTheCanonicalTextTheServerStores) {
  const auto averageValue = [](long long cpu) {
    const json status = aggregatedStatus({member("member1", MemberHealth::Healthy, localHpa(1, 4, 2, 2, cpu))}, 1,
                                         json::array(), kNow);
    return status["currentMetrics"][0]["resource"]["current"]["averageValue"];
  };
  EXPECT_EQ(averageValue(0), "0");
  EXPECT_EQ(averageValue(45), "45m");
  EXPECT_EQ(averageValue(1000), "1");
  EXPECT_EQ(averageValue(1500), "1500m");
}

TEST(HpaStatusTest, WithoutMetricsFromAnyMemberThereIsNoCurrentMetricRatherThanZero) {
  const json status = aggregatedStatus({member("member1", MemberHealth::Healthy, localHpa(1, 4, 0, 0, std::nullopt))}, 1, json::array(), kNow);
  EXPECT_FALSE(status.contains("currentMetrics"));
  EXPECT_FALSE(status.contains("lastScaleTime"));
}

TEST(HpaStatusTest, ALimitedMemberIsNamedAndAnUnchangedConditionKeepsItsTransitionTime) {
  const std::vector<MemberHpa> locals = {
      member("member1", MemberHealth::Healthy, localHpa(1, 4, 4, 4, 95, "", true)),
      member("member2", MemberHealth::Healthy, localHpa(1, 6, 1, 1, 10)),
  };
  const json previous = json::array({{{"type", "ScalingLimited"}, {"status", "True"}, {"lastTransitionTime", "2026-11-25T09:00:00Z"}},
                                     {{"type", "AbleToScale"}, {"status", "False"}, {"lastTransitionTime", "2026-11-25T09:00:00Z"}}});
  const json status = aggregatedStatus(locals, 1, previous, kNow);
  const json* limited = conditionOf(status, "ScalingLimited");
  ASSERT_NE(limited, nullptr);
  EXPECT_EQ((*limited)["status"], "True");
  EXPECT_EQ((*limited)["message"], "limited in member1");
  EXPECT_EQ((*limited)["lastTransitionTime"], "2026-11-25T09:00:00Z");
  const json* able = conditionOf(status, "AbleToScale");
  ASSERT_NE(able, nullptr);
  EXPECT_EQ((*able)["status"], "True");
  EXPECT_NE((*able)["lastTransitionTime"], "2026-11-25T09:00:00Z");  // it changed: the transition is now
}

}  // namespace
}  // namespace fedhpa::controller
