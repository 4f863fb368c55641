#include "clusters/sim/deployment_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/time.h"

namespace fedhpa::sim {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const auto kStart = *api::parseRfc3339("2026-11-29T10:00:00Z");

json deployment(int replicas) {
  return {{"metadata", {{"name", "web"}, {"generation", 2}}},
          {"spec",
           {{"replicas", replicas},
            {"strategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}}},
            {"progressDeadlineSeconds", 600}}}};
}

// The Deployment after its controller wrote `status` (what the next sync reads).
json after(json object, const json& status) {
  object["status"] = status;
  return object;
}

json condition(const json& status, const std::string& type) {
  for (const json& c : status.value("conditions", json::array()))
    if (c.value("type", "") == type) return c;
  return nullptr;
}

std::string reasonOf(const json& status, const std::string& type) {
  const json c = condition(status, type);
  return c.is_null() ? "(none)" : c.value("status", "") + " " + c.value("reason", "");
}

TEST(DeploymentStatus, CountsAtZeroAreLeftOutAsKubesOmitemptyFields) {
  const json scaledToZero = deploymentStatus(deployment(0), {0, 0, 0}, kStart);
  EXPECT_EQ(scaledToZero["observedGeneration"], 2);
  for (const char* field : {"replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"})
    EXPECT_FALSE(scaledToZero.contains(field)) << field;
  EXPECT_EQ(reasonOf(scaledToZero, "Available"), "True MinimumReplicasAvailable");
  EXPECT_EQ(reasonOf(scaledToZero, "Progressing"), "True NewReplicaSetAvailable");

  const json starting = deploymentStatus(deployment(3), {3, 0, 0}, kStart);
  EXPECT_EQ(starting["replicas"], 3);
  EXPECT_EQ(starting["updatedReplicas"], 3);
  EXPECT_FALSE(starting.contains("readyReplicas"));
  EXPECT_FALSE(starting.contains("availableReplicas"));
  EXPECT_EQ(starting["unavailableReplicas"], 3);
}

// A Deployment of 4 whose pods start: Available once 3 (4 less maxUnavailable 25 %) are available,
// Progressing ReplicaSetUpdated while pods become ready, then NewReplicaSetAvailable, which a later
// scale-up leaves alone while Available goes False again.
TEST(DeploymentStatus, AvailableAndProgressingFollowThePodsAsKubesController) {
  json web = deployment(4);
  const json created = deploymentStatus(web, {4, 0, 0}, kStart);
  EXPECT_EQ(reasonOf(created, "Available"), "False MinimumReplicasUnavailable");
  EXPECT_EQ(condition(created, "Available")["message"], "Deployment does not have minimum availability.");
  EXPECT_EQ(reasonOf(created, "Progressing"), "True ReplicaSetUpdated");
  EXPECT_EQ(condition(created, "Progressing")["message"], "Deployment \"web\" is progressing.");
  web = after(web, created);

  EXPECT_EQ(deploymentStatus(web, {4, 0, 0}, kStart + seconds(5)), created) << "no change, no new times";

  const json threeReady = deploymentStatus(web, {4, 3, 3}, kStart + seconds(20));
  EXPECT_EQ(reasonOf(threeReady, "Available"), "True MinimumReplicasAvailable");
  EXPECT_EQ(condition(threeReady, "Available")["message"], "Deployment has minimum availability.");
  EXPECT_EQ(condition(threeReady, "Available")["lastTransitionTime"], "2026-11-29T10:00:20Z");
  const json progressing = condition(threeReady, "Progressing");
  EXPECT_EQ(progressing["reason"], "ReplicaSetUpdated");
  EXPECT_EQ(progressing["lastUpdateTime"], "2026-11-29T10:00:20Z") << "progress moves lastUpdateTime";
  EXPECT_EQ(progressing["lastTransitionTime"], "2026-11-29T10:00:00Z") << "the status stayed True";
  web = after(web, threeReady);

  const json allReady = deploymentStatus(web, {4, 4, 4}, kStart + seconds(25));
  EXPECT_FALSE(allReady.contains("unavailableReplicas"));
  EXPECT_EQ(reasonOf(allReady, "Progressing"), "True NewReplicaSetAvailable");
  EXPECT_EQ(condition(allReady, "Progressing")["message"], "Deployment \"web\" has successfully progressed.");
  EXPECT_EQ(condition(allReady, "Available"), condition(threeReady, "Available"));
  web = after(web, allReady);

  web["spec"]["replicas"] = 8;  // the HPA scales up: 2 may be unavailable, 4 are
  const json scaledUp = deploymentStatus(web, {8, 4, 4}, kStart + seconds(60));
  EXPECT_EQ(scaledUp["unavailableReplicas"], 4);
  EXPECT_EQ(reasonOf(scaledUp, "Available"), "False MinimumReplicasUnavailable");
  EXPECT_EQ(condition(scaledUp, "Progressing"), condition(allReady, "Progressing")) << "a completed rollout stays complete";
}

TEST(DeploymentStatus, NoProgressWithinTheDeadlineSaysProgressDeadlineExceeded) {
  json web = deployment(2);
  web["spec"]["progressDeadlineSeconds"] = 60;
  web = after(web, deploymentStatus(web, {2, 0, 0}, kStart));
  EXPECT_EQ(deploymentStatus(web, {2, 0, 0}, kStart + seconds(60)), web["status"]) << "the deadline is not yet passed";
  const json timedOut = deploymentStatus(web, {2, 0, 0}, kStart + seconds(61));
  EXPECT_EQ(reasonOf(timedOut, "Progressing"), "False ProgressDeadlineExceeded");
  EXPECT_EQ(condition(timedOut, "Progressing")["message"], "Deployment \"web\" has timed out progressing.");
  web = after(web, timedOut);
  EXPECT_EQ(deploymentStatus(web, {2, 0, 0}, kStart + seconds(200)), timedOut);
  const json recovered = deploymentStatus(web, {2, 1, 1}, kStart + seconds(210));
  EXPECT_EQ(reasonOf(recovered, "Progressing"), "True ReplicaSetUpdated");
  EXPECT_EQ(condition(recovered, "Progressing")["lastTransitionTime"], "2026-11-29T10:03:30Z");
}

TEST(DeploymentStatus, WithoutAProgressDeadlineThereIsNoProgressingCondition) {
  json web = deployment(2);
  web["spec"]["progressDeadlineSeconds"] = 2147483647;  // kube's "no deadline"
  const json status = deploymentStatus(web, {2, 0, 0}, kStart);
  EXPECT_EQ(reasonOf(status, "Progressing"), "(none)");
  EXPECT_EQ(reasonOf(status, "Available"), "False MinimumReplicasUnavailable");
}

TEST(DeploymentStatus, AvailableCountsPodsReadyForMinReadySeconds) {
  json web = deployment(2);
  web["spec"]["strategy"] = {{"type", "Recreate"}};  // no pod may be unavailable
  const json readyNotAvailable = deploymentStatus(web, {2, 2, 1}, kStart);
  EXPECT_EQ(readyNotAvailable["readyReplicas"], 2);
  EXPECT_EQ(readyNotAvailable["availableReplicas"], 1);
  EXPECT_EQ(readyNotAvailable["unavailableReplicas"], 1);
  EXPECT_EQ(reasonOf(readyNotAvailable, "Available"), "False MinimumReplicasUnavailable");
}

TEST(DeploymentStatus, MaxUnavailableResolvesTheStrategysFenceposts) {
  struct Case {
    json strategy;
    int replicas;
    int expected;
  };
  const json rolling25 = {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}};
  const Case cases[] = {
      {rolling25, 4, 1},
      {rolling25, 10, 2},     // 2.5 rounds down
      {rolling25, 1, 0},      // 0.25 rounds down to 0; the surge (rounded up) is 1
      {rolling25, 0, 0},
      {{{"type", "Recreate"}}, 10, 0},
      {{{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 0}, {"maxSurge", "0%"}}}}, 5, 1},  // both 0: 1
      {{{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 7}, {"maxSurge", 1}}}}, 3, 3},     // at most replicas
      {{{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", "50%"}}}}, 5, 2},                  // maxSurge left out: 25 %
  };
  for (const Case& c : cases) {
    json object = deployment(c.replicas);
    object["spec"]["strategy"] = c.strategy;
    EXPECT_EQ(maxUnavailable(object), c.expected) << c.strategy.dump() << " replicas " << c.replicas;
  }
}

}  // namespace
}  // namespace fedhpa::sim
