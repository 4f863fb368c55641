// Where a ConfigMap or Service goes: which Deployments use it, and where those are placed.
#include "federation/controller/object_propagation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/controller/cluster_selector.h"
#include "federation/controller/deployment_reconciler.h"

namespace fedhpa::controller {
namespace {

json deployment(json podSpec, json labels = {{"app", "web"}}) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec", {{"template", {{"metadata", {{"labels", labels}}}, {"spec", podSpec}}}}}};
}

Member member(const std::string& name, MemberHealth health, std::map<std::string, std::string> labels = {}) {
  Member out;
  out.name = name;
  out.health = health;
  out.labels = std::move(labels);
  return out;
}

TEST(UsesConfigMap, EveryWayAPodTemplateReadsOne) {
  EXPECT_TRUE(usesConfigMap(deployment({{"volumes", {{{"name", "v"}, {"configMap", {{"name", "cfg"}}}}}}}), "cfg"));
  EXPECT_TRUE(usesConfigMap(
      deployment({{"volumes", {{{"name", "v"}, {"projected", {{"sources", {{{"configMap", {{"name", "cfg"}}}}}}}}}}}}),
      "cfg"));
  EXPECT_TRUE(usesConfigMap(deployment({{"containers", {{{"name", "c"}, {"envFrom", {{{"configMapRef", {{"name", "cfg"}}}}}}}}}}), "cfg"));
  EXPECT_TRUE(usesConfigMap(
      deployment({{"initContainers",
                   {{{"name", "c"}, {"env", {{{"name", "X"}, {"valueFrom", {{"configMapKeyRef", {{"name", "cfg"}, {"key", "x"}}}}}}}}}}}}),
      "cfg"));
  EXPECT_FALSE(usesConfigMap(deployment({{"volumes", {{{"name", "v"}, {"configMap", {{"name", "other"}}}}}}}), "cfg"));
  EXPECT_FALSE(usesConfigMap(deployment({{"volumes", {{{"name", "v"}, {"secret", {{"secretName", "cfg"}}}}}}}), "cfg"));
}

TEST(SelectsPodsOf, TheSelectorMustMatchThePodTemplateLabels) {
  const json service = {{"spec", {{"selector", {{"app", "web"}}}}}};
  EXPECT_TRUE(selectsPodsOf(service, deployment(json::object(), {{"app", "web"}, {"tier", "front"}})));
  EXPECT_FALSE(selectsPodsOf(service, deployment(json::object(), {{"app", "api"}})));
  const json noSelector = {{"spec", {{"ports", json::array()}}}};
  EXPECT_FALSE(selectsPodsOf(noSelector, deployment(json::object())));  // selects no pods, follows no Deployment
}

TEST(DeploymentPlacement, TheHpasClustersElseTheHealthySelectedMembers) {
  const std::vector<Member> members = {member("member1", MemberHealth::Healthy),
                                       member("member2", MemberHealth::Healthy, {{"region", "eu"}}),
                                       member("member3", MemberHealth::Unknown, {{"region", "eu"}})};
  json spread = deployment(json::object());
  EXPECT_EQ(*deploymentPlacement(spread, members, nullptr), (std::set<std::string>{"member1", "member2"}));

  json selected = spread;
  selected["metadata"]["annotations"][kClusterSelectorAnnotation] = R"([{"key":"region","operator":"In","values":["eu"]}])";
  EXPECT_EQ(*deploymentPlacement(selected, members, nullptr), (std::set<std::string>{"member2"}));

  json hpaTarget = spread;
  hpaTarget["metadata"]["annotations"][kHpaTargetClusterListAnnotation] = R"({"Names":["member1","member3"]})";
  EXPECT_EQ(*deploymentPlacement(hpaTarget, members, nullptr), (std::set<std::string>{"member1", "member3"}));

  json broken = spread;
  broken["metadata"]["annotations"][kClusterSelectorAnnotation] = "not a selector";
  EXPECT_FALSE(deploymentPlacement(broken, members, nullptr));
}

}  // namespace
}  // namespace fedhpa::controller
