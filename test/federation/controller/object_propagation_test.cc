// Where a ConfigMap or Service goes: which Deployments use it, and where those are placed.
#include "federation/controller/object_propagation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/controller/cache_transforms.h"
#include "federation/controller/cluster_selector.h"
#include "federation/controller/deployment_reconciler.h"
#include "test/federation/common/fake_time_source.h"
#include "test/federation/controller/fake_api.h"

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

// One federated ConfigMap or Service and one member, through the caches' transforms, as the
// controller-manager runs ObjectPropagator; no Deployment uses the object, so it goes to every
// healthy member.
class ObjectPropagatorTest : public ::testing::Test, public MemberClusters {
 protected:
  using FakeApi = testing::FakeApi;
  using SnapshotLister = testing::SnapshotLister;

  std::vector<Member> members() override {
    Member out = member("member1", MemberHealth::Healthy);
    out.client = memberApi_;
    out.copies = {{kConfigMaps.resource, memberConfigMaps_}, {kServices.resource, memberServices_}};
    return {out};
  }
  void reconcile(ObjectPropagator& propagator, const std::string& key) {
    federatedConfigMaps_.refresh();
    federatedServices_.refresh();
    memberConfigMaps_->refresh();
    memberServices_->refresh();
    propagator.reconcile(key);
  }

  fedhpa::testing::FakeTimeSource time_;
  FakeApi federation_;
  SnapshotLister federatedHpas_{federation_, kHpas, federationObjectTransform()};
  SnapshotLister federatedDeployments_{federation_, kDeployments, federationObjectTransform()};
  SnapshotLister federatedConfigMaps_{federation_, kConfigMaps, federationObjectTransform()};
  SnapshotLister federatedServices_{federation_, kServices, federationObjectTransform()};
  clusters::Informer deploymentInformer_{federation_, kDeployments, {}};  // never started: no Deployment uses anything
  std::shared_ptr<FakeApi> memberApi_ = std::make_shared<FakeApi>();
  std::shared_ptr<SnapshotLister> memberConfigMaps_ = std::make_shared<SnapshotLister>(*memberApi_, kConfigMaps, trimMemberCopy);
  std::shared_ptr<SnapshotLister> memberServices_ = std::make_shared<SnapshotLister>(*memberApi_, kServices, trimMemberCopy);
  MemberCalls calls_{time_};
  ControllerMetrics metrics_;
  EventRecorder events_{federation_, time_};
  StatusWriter status_{1, [](const std::string&) {}};
  ReconcilerContext context_{federation_, federatedHpas_, federatedDeployments_, *this, calls_, time_, metrics_, events_, status_};
  ObjectPropagator services_{context_, kServices, federatedServices_, deploymentInformer_};
  ObjectPropagator configMaps_{context_, kConfigMaps, federatedConfigMaps_, deploymentInformer_};
};

TEST_F(ObjectPropagatorTest, AnUpdatedServiceKeepsTheMembersClusterIpAndForeignAnnotations) {
  federation_.put(kServices, {{"apiVersion", "v1"},
                              {"kind", "Service"},
                              {"metadata", {{"name", "web"}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
                              {"spec", {{"selector", {{"app", "web"}}}, {"ports", {{{"port", 80}, {"protocol", "TCP"}}}}}}});
  reconcile(services_, "default/web");
  ASSERT_TRUE(memberApi_->peek(kServices, "default", "web"));
  // The member allocates its cluster IP; another controller there annotates the copy.
  memberApi_->touch(kServices, "default", "web", [](json& service) {
    service["spec"]["clusterIP"] = "10.96.0.10";
    service["spec"]["clusterIPs"] = {"10.96.0.10"};
    service["metadata"]["annotations"]["mesh.example.com/injected"] = "true";
  });

  federation_.touch(kServices, "default", "web", [](json& service) {
    service["spec"]["ports"] = {{{"port", 8080}, {"protocol", "TCP"}}};
    service["metadata"]["labels"]["tier"] = "front";
  });
  reconcile(services_, "default/web");

  const json copy = *memberApi_->peek(kServices, "default", "web");
  EXPECT_EQ(copy["spec"]["ports"][0]["port"], 8080);
  EXPECT_EQ(copy["spec"]["clusterIP"], "10.96.0.10");
  EXPECT_EQ(copy["spec"]["clusterIPs"], json({"10.96.0.10"}));
  EXPECT_EQ(copy["metadata"]["annotations"]["mesh.example.com/injected"], "true");
  EXPECT_EQ(copy["metadata"]["labels"], json({{"app", "web"}, {"tier", "front"}, {kManagedByLabel, kManagedByValue}}));

  // Converged: the copy the cache shows next is what fedhpa wants, and nothing is written again.
  const int writes = memberApi_->writes;
  reconcile(services_, "default/web");
  EXPECT_EQ(memberApi_->writes, writes);
}

TEST_F(ObjectPropagatorTest, ACopyCarriesNoAddressOfItsOwnAndKeepsTheMembersNodePortsOnlyWhileItsTypeHasThem) {
  federation_.put(kServices, {{"apiVersion", "v1"},
                              {"kind", "Service"},
                              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
                              {"spec", {{"type", "NodePort"}, {"ports", {{{"port", 80}, {"protocol", "TCP"}}}}}}});
  reconcile(services_, "default/web");
  const json created = *memberApi_->peek(kServices, "default", "web");
  EXPECT_FALSE(created["spec"].contains("clusterIP")) << "the member allocates it";
  EXPECT_FALSE(created["spec"]["ports"][0].contains("nodePort")) << "the member allocates it";
  memberApi_->touch(kServices, "default", "web", [](json& service) {
    service["spec"]["clusterIP"] = "10.96.0.10";
    service["spec"]["clusterIPs"] = {"10.96.0.10"};
    service["spec"]["ports"][0]["nodePort"] = 30080;
  });

  // A change elsewhere keeps both; a change to ClusterIP keeps the address and drops the node port.
  federation_.touch(kServices, "default", "web", [](json& service) { service["metadata"]["labels"]["tier"] = "front"; });
  reconcile(services_, "default/web");
  EXPECT_EQ((*memberApi_->peek(kServices, "default", "web"))["spec"]["ports"][0]["nodePort"], 30080);
  federation_.touch(kServices, "default", "web", [](json& service) { service["spec"]["type"] = "ClusterIP"; });
  reconcile(services_, "default/web");
  const json copy = *memberApi_->peek(kServices, "default", "web");
  EXPECT_EQ(copy["spec"]["type"], "ClusterIP");
  EXPECT_EQ(copy["spec"]["clusterIP"], "10.96.0.10");
  EXPECT_FALSE(copy["spec"]["ports"][0].contains("nodePort"));
}

TEST_F(ObjectPropagatorTest, AConfigMapCopyLosesTheKeysTheFederatedOneDroppedAndNothingElse) {
  federation_.put(kConfigMaps, {{"apiVersion", "v1"},
                                {"kind", "ConfigMap"},
                                {"metadata", {{"name", "cfg"}, {"namespace", "default"}}},
                                {"data", {{"a", "1"}, {"b", "2"}}}});
  reconcile(configMaps_, "default/cfg");
  memberApi_->touch(kConfigMaps, "default", "cfg",
                    [](json& configMap) { configMap["metadata"]["annotations"]["backup.example.com/at"] = "noon"; });

  federation_.touch(kConfigMaps, "default", "cfg", [](json& configMap) { configMap["data"] = {{"a", "10"}}; });
  reconcile(configMaps_, "default/cfg");

  const json copy = *memberApi_->peek(kConfigMaps, "default", "cfg");
  EXPECT_EQ(copy["data"], json({{"a", "10"}}));
  EXPECT_EQ(copy["metadata"]["annotations"]["backup.example.com/at"], "noon");
}

TEST_F(ObjectPropagatorTest, ACopyThatMovedOnSinceItWasCachedIsNotOverwritten) {
  federation_.put(kConfigMaps, {{"apiVersion", "v1"},
                                {"kind", "ConfigMap"},
                                {"metadata", {{"name", "cfg"}, {"namespace", "default"}}},
                                {"data", {{"a", "1"}}}});
  reconcile(configMaps_, "default/cfg");
  federation_.touch(kConfigMaps, "default", "cfg", [](json& configMap) { configMap["data"]["a"] = "2"; });
  federatedConfigMaps_.refresh();
  memberConfigMaps_->refresh();
  // Someone changes the copy after the cache showed it: the patch made from the cache is refused.
  memberApi_->touch(kConfigMaps, "default", "cfg", [](json& configMap) { configMap["data"]["a"] = "edited"; });
  EXPECT_THROW(configMaps_.reconcile("default/cfg"), clusters::ClientError);
  EXPECT_EQ((*memberApi_->peek(kConfigMaps, "default", "cfg"))["data"]["a"], "edited");
  // With the cache caught up, the federated content wins.
  reconcile(configMaps_, "default/cfg");
  EXPECT_EQ((*memberApi_->peek(kConfigMaps, "default", "cfg"))["data"]["a"], "2");
}

}  // namespace
}  // namespace fedhpa::controller
