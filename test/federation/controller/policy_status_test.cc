// What a policy's status says it governs and where: the objects it wins (by Karmada's rule), the
// Ready members each is placed on, sorted and bounded.
#include "federation/controller/policy_status.h"

#include <set>

#include <gtest/gtest.h>

#include "federation/controller/propagation_policy.h"
#include "test/federation/controller/fake_api.h"

namespace fedhpa::controller {
namespace {

using nlohmann::json;

json placingPolicy(const std::string& ns, const std::string& name, json selectors, std::vector<std::string> clusters, int priority = 0) {
  json out = {{"metadata", {{"name", name}, {"generation", 3}}},
              {"spec", {{"resourceSelectors", selectors}, {"priority", priority},
                        {"placement", {{"clusterAffinity", {{"clusterNames", clusters}}}}}}}};
  if (!ns.empty()) out["metadata"]["namespace"] = ns;
  return out;
}

json federatedObject(const std::string& ns, const std::string& name, json labels = json::object()) {
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"labels", labels}}}};
}

json hpaTargeting(const std::string& ns, const std::string& name, const std::string& deployment) {
  json hpa = federatedObject(ns, name);
  hpa["spec"] = {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", deployment}}}};
  return hpa;
}

std::vector<Member> membersOf(std::vector<std::pair<std::string, MemberHealth>> list) {
  std::vector<Member> out;
  for (auto& [name, health] : list) out.push_back({name, {{"region", "eu"}}, health, nullptr, nullptr, nullptr});
  return out;
}

const auto kThreeReady = membersOf({{"member1", MemberHealth::Healthy}, {"member2", MemberHealth::Healthy},
                                  {"member3", MemberHealth::Healthy}});

json nginxPolicy() {
  return placingPolicy("default", "nginx-propagation",
                json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "nginx"}},
                             {{"apiVersion", "v1"}, {"kind", "Service"}, {"name", "nginx-service"}}}),
                {"member1", "member2"});
}

FederatedObjects nginxApp() {
  FederatedObjects objects;
  objects.deployments = {federatedObject("default", "nginx"), federatedObject("default", "redis"), federatedObject("other", "nginx")};
  objects.services = {federatedObject("default", "nginx-service"), federatedObject("default", "redis-service")};
  objects.hpas = {hpaTargeting("default", "nginx", "nginx"), hpaTargeting("default", "redis", "redis")};
  return objects;
}

TEST(PolicyStatus, ListsTheObjectsItSelectsAndTheirHpaOnThePlacedMembers) {
  const json pp = nginxPolicy();
  const json status = policyStatus(pp, nginxApp(), {pp}, {}, kThreeReady);
  const json both = {"member1", "member2"};
  EXPECT_EQ(status["observedGeneration"], 3);
  EXPECT_EQ(status["placedCount"], 3);
  EXPECT_EQ(status["placements"],
            json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"namespace", "default"}, {"name", "nginx"}, {"clusters", both}},
                         {{"apiVersion", "autoscaling/v2"}, {"kind", "HorizontalPodAutoscaler"}, {"namespace", "default"},
                          {"name", "nginx"}, {"clusters", both}},
                         {{"apiVersion", "v1"}, {"kind", "Service"}, {"namespace", "default"}, {"name", "nginx-service"},
                          {"clusters", both}}}))
      << "not redis, nor the nginx of another namespace; sorted by kind";
}

TEST(PolicyStatus, OnlyReadyMembersAreListed) {
  const json pp = nginxPolicy();
  const auto oneDown = membersOf({{"member1", MemberHealth::Healthy}, {"member2", MemberHealth::Released},
                                {"member3", MemberHealth::Healthy}});
  const json status = policyStatus(pp, nginxApp(), {pp}, {}, oneDown);
  ASSERT_EQ(status["placedCount"], 3);
  for (const auto& placement : status["placements"]) EXPECT_EQ(placement["clusters"], json::array({"member1"}));
}

TEST(PolicyStatus, ADeploymentIsListedOnlyWhereItsStaticWeightsGiveItReplicas) {
  json pp = nginxPolicy();
  pp["spec"]["placement"]["replicaScheduling"] = {
      {"replicaSchedulingType", "Divided"},
      {"replicaDivisionPreference", "Weighted"},
      {"weightPreference", {{"staticWeightList", json::array({{{"targetCluster", {{"clusterNames", json::array({"member1"})}}}, {"weight", 1}}})}}}};
  const json status = policyStatus(pp, nginxApp(), {pp}, {}, kThreeReady);
  ASSERT_EQ(status["placements"][0]["kind"], "Deployment");
  EXPECT_EQ(status["placements"][0]["clusters"], json::array({"member1"})) << "member2 weighs 0: no copy there";
  EXPECT_EQ(status["placements"][2]["kind"], "Service");
  EXPECT_EQ(status["placements"][2]["clusters"], json::array({"member1", "member2"})) << "a Service the policy places itself";
}

TEST(PolicyStatus, APolicyThatLosesToAHigherPriorityOneGovernsNothing) {
  const json low = nginxPolicy();
  const json high = placingPolicy("default", "zz-high", json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}},
                                                              {{"apiVersion", "v1"}, {"kind", "Service"}}}),
                           {"member3"}, 10);
  const json lowStatus = policyStatus(low, nginxApp(), {low, high}, {}, kThreeReady);
  EXPECT_EQ(lowStatus["placedCount"], 0);
  EXPECT_EQ(lowStatus["placements"], json::array());
  const json highStatus = policyStatus(high, nginxApp(), {low, high}, {}, kThreeReady);
  EXPECT_EQ(highStatus["placedCount"], 6) << "both Deployments, both Services and both HPAs of default";
  for (const auto& placement : highStatus["placements"]) EXPECT_EQ(placement["clusters"], json::array({"member3"}));
}

TEST(PolicyStatus, AClusterPolicyGovernsEveryNamespaceButWhatAPropagationPolicyWins) {
  const json pp = nginxPolicy();
  const json cpp = placingPolicy("", "all-deployments", json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}}}), {"member3"}, 100);
  const json status = policyStatus(cpp, nginxApp(), {pp}, {cpp}, kThreeReady);
  std::vector<std::string> names;
  for (const auto& placement : status["placements"])
    names.push_back(placement["kind"].get<std::string>() + " " + placement["namespace"].get<std::string>() + "/" +
                    placement["name"].get<std::string>());
  EXPECT_EQ(names, (std::vector<std::string>{"Deployment default/redis", "Deployment other/nginx", "HorizontalPodAutoscaler default/redis"}))
      << "default/nginx and its HPA belong to the PropagationPolicy";
}

TEST(PolicyStatus, ListsAtMostTheLimitAndCountsThemAll) {
  const json pp = placingPolicy("default", "everything", json::array({{{"apiVersion", "v1"}, {"kind", "ConfigMap"}}}), {"member1"});
  FederatedObjects objects;
  for (int i = 0; i < 250; ++i) objects.configMaps.push_back(federatedObject("default", "cm-" + std::to_string(1000 + i)));
  const json status = policyStatus(pp, objects, {pp}, {}, kThreeReady, 100);
  EXPECT_EQ(status["placedCount"], 250);
  ASSERT_EQ(status["placements"].size(), 100u);
  EXPECT_EQ(status["placements"].front()["name"], "cm-1000");
  EXPECT_EQ(status["placements"].back()["name"], "cm-1099");
}

TEST(PolicyStatus, ADeletedObjectOrPolicyIsNotListed) {
  json pp = nginxPolicy();
  FederatedObjects objects = nginxApp();
  objects.services[0]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_EQ(policyStatus(pp, objects, {pp}, {}, kThreeReady)["placedCount"], 2) << "the Deployment and its HPA";
  pp["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_EQ(policyStatus(pp, objects, {pp}, {}, kThreeReady)["placedCount"], 0);
}

class FixedMembers : public MemberClusters {
 public:
  std::vector<Member> list;
  std::vector<Member> members() override { return list; }
};

class PolicyStatusReconcilerTest : public ::testing::Test {
 protected:
  PolicyStatusReconcilerTest() {
    json pp = nginxPolicy();
    pp["metadata"]["resourceVersion"] = "1";
    api_.put(kPropagationPolicies, pp);
    members_.list = kThreeReady;
  }
  std::vector<json> listed(const clusters::Resource& resource) {
    std::vector<json> out;
    for (const auto& [key, object] : api_.all(resource)) out.push_back(object);
    return out;
  }
  json stored() { return *api_.peek(kPropagationPolicies, "default", "nginx-propagation"); }

  // Runs the loop until its queue is empty, as the controller-manager's worker would.
  void drain() {
    while (!queue_.empty()) {
      const std::string key = *queue_.begin();
      queue_.erase(queue_.begin());
      reconciler_.reconcile(key);
    }
  }
  const std::vector<json>& ofKind(const std::string& kind) const {
    if (kind == "Deployment") return objects_.deployments;
    if (kind == "Service") return objects_.services;
    if (kind == "ConfigMap") return objects_.configMaps;
    if (kind == "HorizontalPodAutoscaler") return objects_.hpas;
    return objects_.federatedHpas;
  }
  static std::vector<json> inNamespace(const std::vector<json>& list, const std::string& ns) {
    std::vector<json> out;
    for (const auto& object : list)
      if (ns.empty() || object["metadata"].value("namespace", "") == ns) out.push_back(object);
    return out;
  }

  testing::FakeApi api_;
  FixedMembers members_;
  FederatedObjects objects_ = nginxApp();
  std::set<std::string> queue_;
  PolicyIndex index_{{[this](const std::string& ns) { return inNamespace(listed(kPropagationPolicies), ns); },
                      [this] { return listed(kClusterPropagationPolicies); },
                      [this](const std::string& kind, const std::string& ns, const std::string& name) -> std::optional<json> {
                        for (const auto& object : ofKind(kind))
                          if (object["metadata"].value("namespace", "") == ns && object["metadata"].value("name", "") == name)
                            return object;
                        return std::nullopt;
                      },
                      [this](const std::string& kind, const std::string& ns) { return inNamespace(ofKind(kind), ns); }}};
  PolicyStatusReconciler reconciler_{{api_, [this] { return listed(kPropagationPolicies); },
                                      [this] { return listed(kClusterPropagationPolicies); }, index_, members_,
                                      [this](const std::string& key) { queue_.insert(key); }}};
};

TEST_F(PolicyStatusReconcilerTest, WritesTheStatusOnceAndAgainOnlyWhenItChanges) {
  queue_.insert(policyChangeKey("default/nginx-propagation"));
  drain();
  reconciler_.reconcile("default/nginx-propagation");
  EXPECT_EQ(stored()["status"]["placedCount"], 3);
  EXPECT_EQ(stored()["spec"], nginxPolicy()["spec"]) << "only the status is written";
  const int writes = api_.writes;
  reconciler_.reconcile("default/nginx-propagation");
  EXPECT_EQ(api_.writes, writes) << "nothing changed: nothing written";
  members_.list = membersOf({{"member1", MemberHealth::Healthy}, {"member2", MemberHealth::Unknown}});
  reconciler_.reconcile("default/nginx-propagation");
  EXPECT_EQ(api_.writes, writes + 1);
  EXPECT_EQ(stored()["status"]["placements"][0]["clusters"], json::array({"member1"}));
}

TEST_F(PolicyStatusReconcilerTest, AnObjectsChangeRewritesOnlyThePoliciesItMovesBetween) {
  // Twenty more policies, each selecting a Deployment of its own; the app is indexed and written.
  for (int i = 0; i < 20; ++i) {
    json other = placingPolicy("default", "p" + std::to_string(i),
                               json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "app" + std::to_string(i)}}}),
                               {"member3"});
    other["metadata"]["resourceVersion"] = "1";
    api_.put(kPropagationPolicies, other);
    objects_.deployments.push_back(federatedObject("default", "app" + std::to_string(i)));
    queue_.insert(policyChangeKey("default/p" + std::to_string(i)));
  }
  queue_.insert(policyChangeKey("default/nginx-propagation"));
  drain();
  EXPECT_EQ(stored()["status"]["placedCount"], 3);
  EXPECT_EQ((*api_.peek(kPropagationPolicies, "default", "p7"))["status"]["placedCount"], 1);

  // The Service nginx-service goes: one change key, and only its policy's status is written again.
  objects_.services.erase(objects_.services.begin());
  const int writes = api_.writes;
  queue_.insert(objectChangeKey("Service", "default/nginx-service"));
  const std::string changeKey = *queue_.begin();
  queue_.clear();
  reconciler_.reconcile(changeKey);
  EXPECT_EQ(queue_, (std::set<std::string>{"default/nginx-propagation"}));
  drain();
  EXPECT_EQ(api_.writes, writes + 1);
  EXPECT_EQ(stored()["status"]["placedCount"], 2);
}

TEST_F(PolicyStatusReconcilerTest, APolicyGoneOrOfTheOtherKindIsLeftAlone) {
  reconciler_.reconcile("default/elsewhere");
  reconciler_.reconcile("nginx-propagation");  // a key without a namespace names a ClusterPropagationPolicy
  EXPECT_EQ(api_.writes, 0);
  EXPECT_FALSE(stored().contains("status"));
}

}  // namespace
}  // namespace fedhpa::controller
