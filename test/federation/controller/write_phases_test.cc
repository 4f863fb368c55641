// The order in which a plan reaches the members, and what each phase may write: the writes that
// keep Σ local max ≤ federated max and Σ local min ≥ federated min between any two of them.
#include "federation/controller/write_phases.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

namespace fedhpa::controller {
namespace {

using partitioner::Limits;

const nlohmann::json kFederated = {
    {"metadata", {{"namespace", "default"}, {"name", "php-apache"}}},
    {"spec",
     {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "php-apache"}}},
      {"minReplicas", 3},
      {"maxReplicas", 10}}}};

MemberHpa holding(const std::string& name, std::optional<Limits> limits, MemberHealth health = MemberHealth::Healthy) {
  MemberHpa local;
  local.member.name = name;
  local.member.health = health;
  if (limits) {
    local.hpa = nlohmann::json{{"metadata", {{"name", "php-apache"}, {"resourceVersion", "7"}}},
                               {"spec", localSpec(kFederated, *limits)}};
    local.limits = limits;
  }
  return local;
}

partitioner::Plan planOf(std::vector<partitioner::ClusterPlan> clusters) {
  partitioner::Plan plan;
  plan.clusters = std::move(clusters);
  return plan;
}

const std::vector<MemberWrite>& writesOf(const std::vector<WritePhase>& phases, WritePhaseKind kind) {
  for (const auto& phase : phases)
    if (phase.kind == kind) return phase.writes;
  throw std::logic_error("no such phase");
}

TEST(WritePhases, FivePhasesInTheirOrderAndOnlyCreatesAndRaisesMayRaise) {
  const auto phases = writePhases(kFederated, planOf({}), {});
  ASSERT_EQ(phases.size(), 5u);
  const WritePhaseKind order[] = {WritePhaseKind::MinsRaised, WritePhaseKind::Lowerings, WritePhaseKind::Creates,
                                  WritePhaseKind::Raises, WritePhaseKind::MinsLowered};
  for (std::size_t i = 0; i < phases.size(); ++i) {
    EXPECT_EQ(phases[i].kind, order[i]) << "phase " << i;
    EXPECT_EQ(phases[i].mayRaise(), order[i] == WritePhaseKind::Creates || order[i] == WritePhaseKind::Raises);
  }
}

// min and max move from a to b: b's min goes up first as far as its max allows, a is lowered
// keeping its min, b is raised, and only then does a give its min up.
TEST(WritePhases, AMinMovesOnlyOnceItsNewHolderHoldsIt) {
  const std::vector<MemberHpa> locals = {holding("a", Limits{2, 6}), holding("b", Limits{1, 4})};
  const auto phases = writePhases(kFederated, planOf({{"a", Limits{1, 3}}, {"b", Limits{2, 7}}}), locals);
  EXPECT_EQ(writesOf(phases, WritePhaseKind::MinsRaised), (std::vector<MemberWrite>{{1, Limits{2, 4}}}));
  EXPECT_EQ(writesOf(phases, WritePhaseKind::Lowerings), (std::vector<MemberWrite>{{0, Limits{2, 3}}}));
  EXPECT_TRUE(writesOf(phases, WritePhaseKind::Creates).empty());
  EXPECT_EQ(writesOf(phases, WritePhaseKind::Raises), (std::vector<MemberWrite>{{1, Limits{2, 7}}}));
  EXPECT_EQ(writesOf(phases, WritePhaseKind::MinsLowered), (std::vector<MemberWrite>{{0, Limits{1, 3}}}));
}

TEST(WritePhases, ACopyThePlanLeavesOutIsDeletedWithTheLoweringsAndANewOneCreatedAfter) {
  const std::vector<MemberHpa> locals = {holding("leaving", Limits{1, 5}), holding("joining", std::nullopt),
                                         holding("staying", Limits{2, 5})};
  const auto phases = writePhases(kFederated, planOf({{"joining", Limits{1, 5}}, {"staying", Limits{2, 5}}}), locals);
  EXPECT_EQ(writesOf(phases, WritePhaseKind::Lowerings), (std::vector<MemberWrite>{{0, std::nullopt}}));
  EXPECT_EQ(writesOf(phases, WritePhaseKind::Creates), (std::vector<MemberWrite>{{1, Limits{1, 5}}}));
  for (const auto& phase : phases)
    for (const auto& write : phase.writes) EXPECT_NE(write.local, 2u) << "a copy that already holds its plan is not written";
}

// Only what the cache can vouch for is written: a member that is not answering, a copy fedhpa did
// not create, a member that may hold more than its cache shows.
TEST(WritePhases, MembersWhoseStateIsNotKnownAreNeverWritten) {
  std::vector<MemberHpa> locals = {holding("unknown", Limits{1, 2}, MemberHealth::Unknown),
                                   holding("released", Limits{1, 2}, MemberHealth::Released), holding("foreign", Limits{1, 2}),
                                   holding("unseen", Limits{1, 2})};
  locals[2].foreign = true;
  locals[3].unseen = true;
  const auto phases = writePhases(kFederated, planOf({{"unknown", Limits{1, 5}}, {"foreign", Limits{1, 3}}}), locals);
  for (const auto& phase : phases) EXPECT_TRUE(phase.writes.empty()) << static_cast<int>(phase.kind);
}

// A lowering whose member kept its min on an earlier pass (the raises failed then): only the min
// is left to give up.
TEST(WritePhases, ALoweringDoneOnAnEarlierPassLeavesOnlyItsMin) {
  const std::vector<MemberHpa> locals = {holding("a", Limits{2, 3}), holding("b", Limits{2, 7})};
  const auto phases = writePhases(kFederated, planOf({{"a", Limits{1, 3}}, {"b", Limits{2, 7}}}), locals);
  EXPECT_TRUE(writesOf(phases, WritePhaseKind::Lowerings).empty());
  EXPECT_EQ(writesOf(phases, WritePhaseKind::MinsLowered), (std::vector<MemberWrite>{{0, Limits{1, 3}}}));
}

TEST(WritePhases, AChangeOfTheFederatedSpecBeyondTheLimitsIsWrittenToEveryCopy) {
  const std::vector<MemberHpa> locals = {holding("a", Limits{1, 5}), holding("b", Limits{2, 5})};
  nlohmann::json federated = kFederated;
  federated["spec"]["metrics"] = {{{"type", "Resource"},
                                   {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 60}}}}}}};
  const auto phases = writePhases(federated, planOf({{"a", Limits{1, 5}}, {"b", Limits{2, 5}}}), locals);
  EXPECT_EQ(writesOf(phases, WritePhaseKind::Lowerings).size(), 2u) << "same limits, new metrics: rewritten, raising nothing";
}

// What each phase may write, over many random moves between healthy members: whatever subset of a
// phase's writes has landed, and whatever the phases before it wrote, Σ max never exceeds the
// federated max, and Σ min never falls below the federated min where the plan keeps every new min
// within the member's current max (how the partitioner moves mins: within what members hold).
TEST(WritePhases, NoMomentBetweenWritesBreaksTheSums) {
  std::mt19937 random(20261129);
  for (int round = 0; round < 2000; ++round) {
    const int members = 2 + static_cast<int>(random() % 4);
    const auto split = [&](long long total, long long floor) {
      std::vector<partitioner::Replicas> parts(members, floor);
      for (long long left = total - floor * members; left > 0; --left) ++parts[random() % members];
      return parts;
    };
    const long long federatedMax = 10 + random() % 20;
    const auto maxBefore = split(federatedMax, 1), maxAfter = split(federatedMax, 1);
    std::vector<MemberHpa> locals;
    std::vector<partitioner::ClusterPlan> plan;
    long long minSumBefore = 0, minSumAfter = 0;
    std::vector<Limits> now(members);
    for (int i = 0; i < members; ++i) {
      const Limits before{1 + static_cast<long long>(random() % maxBefore[i]), maxBefore[i]};
      const long long minCap = std::min<long long>(maxAfter[i], before.max);
      const Limits after{1 + static_cast<long long>(random() % minCap), maxAfter[i]};
      locals.push_back(holding("m" + std::to_string(i), before));
      plan.push_back({"m" + std::to_string(i), after});
      minSumBefore += before.min;
      minSumAfter += after.min;
      now[i] = before;
    }
    const long long federatedMin = std::min(minSumBefore, minSumAfter);
    for (const auto& phase : writePhases(kFederated, planOf(plan), locals)) {
      long long worstMax = 0, worstMin = 0;  // each write of the phase landed or not, as is worst
      for (int i = 0; i < members; ++i) {
        Limits next = now[i];
        for (const auto& write : phase.writes)
          if (write.local == static_cast<std::size_t>(i)) next = *write.limits;
        if (!phase.mayRaise()) {
          EXPECT_LE(next.max, now[i].max) << "phase " << static_cast<int>(phase.kind) << " raised a max";
        }
        worstMax += std::max(now[i].max, next.max);
        worstMin += std::min(now[i].min, next.min);
        now[i] = next;
      }
      ASSERT_LE(worstMax, federatedMax) << "round " << round << ", phase " << static_cast<int>(phase.kind);
      ASSERT_GE(worstMin, federatedMin) << "round " << round << ", phase " << static_cast<int>(phase.kind);
    }
    for (int i = 0; i < members; ++i) EXPECT_EQ(now[i], *plan[i].limits) << "round " << round << ": the plan is reached";
  }
}

}  // namespace
}  // namespace fedhpa::controller
