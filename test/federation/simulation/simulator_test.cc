#include "federation/simulation/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace fedhpa::simulation {
namespace {

using nlohmann::json;
using Kind = partitioner::Policy::Kind;

Scenario scenario(const std::string& text) { return parseScenario(json::parse(text)); }

Scenario standard(const std::string& name) {
  std::ifstream in(std::string(FEDHPA_SOURCE_DIR) + "/test/bench/scenarios/" + name + ".json");
  return parseScenario(json::parse(in));
}

int lastMax(const Outcome& o, const std::string& cluster) { return o.timeline.clusters.at(cluster).back().max.value_or(0); }

TEST(SimulatorTest, DemandWithinTheInitialSharesIsServedWithoutMoves) {
  const Scenario s = scenario(R"({"federated": {"minReplicas": 3, "maxReplicas": 30, "targetCPUUtilizationPercentage": 50},
      "clusters": ["a", "b", "c"], "durationSeconds": 1800, "demand": {"a": [[0, 4]], "b": [[0, 5]], "c": [[0, 6]]}})");
  for (const Kind kind : {Kind::Demand, Kind::Legacy}) {
    const Outcome o = simulate(s, kind);
    EXPECT_EQ(o.limitChanges, 3) << "three HPAs placed, nothing moved";
    EXPECT_GT(o.tracking(), 0.97);
    EXPECT_EQ(lastMax(o, "a") + lastMax(o, "b") + lastMax(o, "c"), 30);
  }
}

TEST(SimulatorTest, PodsThatTakeTimeToStartServeLater) {
  // From 3 replicas' worth to 9 at 300 s: with instant pods the member serves 9 a sync or two
  // later; with 60 s startup its new pods serve nothing for a minute more.
  const std::string text = R"({"federated": {"minReplicas": 1, "maxReplicas": 30, "targetCPUUtilizationPercentage": 50},
      "clusters": ["a"], "durationSeconds": 900, "demand": {"a": [[0, 3], [295, 3], [300, 9]]}})";
  json slow = json::parse(text);
  slow["podStartupSeconds"] = 60;
  const Outcome instant = simulate(scenario(text), Kind::Demand);
  const Outcome delayed = simulate(parseScenario(slow), Kind::Demand);
  EXPECT_LT(delayed.servedReplicaSeconds, instant.servedReplicaSeconds - 6 * 45);
  const auto& samples = delayed.timeline.clusters.at("a");
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (delayed.timeline.seconds[i] >= 300 && delayed.timeline.seconds[i] < 360) {
      EXPECT_LE(samples[i].replicas, 3) << "no new pod is ready within 60 s of the rise, at " << delayed.timeline.seconds[i];
    }
  EXPECT_EQ(samples.back().replicas, 9);
}

TEST(SimulatorTest, SameScenarioSameOutcome) {
  const Scenario s = standard("shift");
  const Outcome first = simulate(s, Kind::Demand);
  const Outcome second = simulate(s, Kind::Demand);
  EXPECT_EQ(first.servedReplicaSeconds, second.servedReplicaSeconds);
  EXPECT_EQ(first.limitChanges, second.limitChanges);
  EXPECT_EQ(first.timeline.clusters.at("member2").back().max, second.timeline.clusters.at("member2").back().max);
}

TEST(SimulatorTest, TheSumOfLocalMaxIsTheFederatedMaxAtEveryStepWhileAllAreUp) {
  const Scenario s = standard("shift");
  for (const Kind kind : {Kind::Demand, Kind::Legacy}) {
    const Outcome o = simulate(s, kind);
    for (std::size_t i = 0; i < o.timeline.seconds.size(); ++i) {
      int sum = 0;
      for (const auto& [name, samples] : o.timeline.clusters) sum += samples[i].max.value_or(0);
      ASSERT_EQ(sum, 30) << "at " << o.timeline.seconds[i] << " s";
    }
  }
}

TEST(SimulatorTest, MaxFollowsTheLoadToTheBusyCluster) {
  const Outcome o = simulate(standard("skewed"), Kind::Demand);
  EXPECT_GE(lastMax(o, "member1"), 20) << "member1 needs 20 replicas and others have spare max";
  EXPECT_EQ(o.timeline.clusters.at("member1").back().replicas, 20);
  EXPECT_GT(o.tracking(), 0.95);
}

TEST(SimulatorTest, AClusterInAnOutageServesNothingAndItsShareMovesAfterTheGrace) {
  const Scenario s = standard("outage");
  const Outcome o = simulate(s, Kind::Demand);
  const auto& times = o.timeline.seconds;
  const auto index = [&](double t) { return static_cast<std::size_t>(std::find(times.begin(), times.end(), t) - times.begin()); };
  EXPECT_FALSE(o.timeline.clusters.at("member3")[index(1000)].up);
  // 40 s of grace and a 15 s reconcile later, member1 and member2 hold all 30.
  const std::size_t later = index(1000);
  EXPECT_EQ(o.timeline.clusters.at("member1")[later].max.value_or(0) + o.timeline.clusters.at("member2")[later].max.value_or(0), 30);
  // Back up: the partition covers three clusters again, with Σ max 30.
  const std::size_t back = index(1700);
  int sum = 0;
  for (const auto& [name, samples] : o.timeline.clusters) sum += samples[back].max.value_or(0);
  EXPECT_EQ(sum, 30);
  EXPECT_TRUE(o.timeline.clusters.at("member3")[back].max.has_value());
}

TEST(SimulatorTest, AdaptationIsMeasuredForEveryRise) {
  const Outcome o = simulate(standard("spike"), Kind::Demand);
  ASSERT_EQ(o.adaptations.size(), 1u) << "spike has one rise, on member1 at 595 s";
  EXPECT_EQ(o.adaptations[0].cluster, "member1");
  EXPECT_EQ(o.adaptations[0].risesAt, 595);
  ASSERT_TRUE(o.adaptations[0].seconds.has_value());
  EXPECT_LE(*o.adaptations[0].seconds, 120) << "the demand policy moves max within a few reconciles";
}

// Every scenario of test/bench/scenarios/, by name: a scenario added there is held to the goals too.
std::vector<std::string> standardScenarios() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(FEDHPA_SOURCE_DIR) + "/test/bench/scenarios"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The goals set for the default policy, checked on every standard scenario: within 0.95 of one
// shared pool, and never behind kubefed v1's schedule.
TEST(SimulatorTest, TheDemandPolicyTracksEveryStandardScenario) {
  const auto names = standardScenarios();
  EXPECT_THAT(names, ::testing::IsSupersetOf({"shift", "spike", "slow-pods", "many", "tiers"}));
  for (const auto& name : names) {
    const Scenario s = standard(name);
    const double demand = simulate(s, Kind::Demand).tracking();
    EXPECT_GE(demand, 0.95) << name;
    EXPECT_GE(demand, simulate(s, Kind::Legacy).tracking()) << name;
  }
}

// Only the custom metric says where replicas are needed (CPU is low everywhere): the member HPAs
// scale on it, and the partitioner reads it from their metric lists.
TEST(SimulatorTest, ACustomMetricMovesMaxToWhereItIsHigh) {
  const Scenario s = standard("custom-metric");
  const Outcome o = simulate(s, Kind::Demand);
  const auto& member2 = o.timeline.clusters.at("member2");
  // 30 minutes in, the requests are on member2 (15 replicas' worth).
  const std::size_t at = static_cast<std::size_t>(1800 / s.step.count());
  EXPECT_GE(member2[at].max.value_or(0), 15);
  EXPECT_GE(member2[at].replicas, 15);
}

// Burst tiers with overflow: on-prem holds at most its cap, the cloud serves what spills over
// and, when the load falls, drops its replicas before on-prem does.
TEST(SimulatorTest, TheCloudTierTakesTheOverflowAndGivesItBackFirst) {
  const Scenario s = standard("tiers");
  const Outcome o = simulate(s, Kind::Demand);
  const auto sample = [&](const char* cluster, double seconds) {
    return o.timeline.clusters.at(cluster)[static_cast<std::size_t>(seconds / static_cast<double>(s.step.count()))];
  };
  EXPECT_LE(sample("onprem1", 1500).max.value_or(0), 10);
  EXPECT_EQ(sample("onprem1", 1500).replicas, 10);
  EXPECT_GE(sample("cloud", 1500).replicas, 10);     // 6 + 4 spilled, and its own 1
  EXPECT_LE(sample("cloud", 600).replicas, 1);       // nothing spills before on-prem is full
  EXPECT_LE(sample("cloud", 2700).replicas, 1);      // the overflow has gone back ...
  EXPECT_EQ(sample("onprem1", 2400).replicas, 10);   // ... while on-prem still runs at its cap
}

TEST(SimulatorTest, TheDemandPolicyBeatsLegacyWhereLoadIsUneven) {
  for (const char* name : {"shift", "spike", "skewed", "rotation"}) {
    const Scenario s = standard(name);
    EXPECT_GT(simulate(s, Kind::Demand).tracking(), simulate(s, Kind::Legacy).tracking()) << name;
  }
}

}  // namespace
}  // namespace fedhpa::simulation
