// The policy index judges again only what a change touches: an object's change concerns the
// policies it moves between and reads no list of objects; a policy's change judges the objects it
// governed or selects now, not every object.
#include "federation/controller/policy_index.h"

#include <functional>

#include <gtest/gtest.h>

#include "federation/controller/propagation_policy.h"

namespace fedhpa::controller {
namespace {

using nlohmann::json;

json namedPolicy(const std::string& name, json selector, int priority = 0, const std::string& ns = "default") {
  json out = {{"metadata", {{"name", name}}},
              {"spec", {{"resourceSelectors", json::array({selector})}, {"priority", priority},
                        {"placement", {{"clusterAffinity", {{"clusterNames", json::array({"member1"})}}}}}}}};
  if (!ns.empty()) out["metadata"]["namespace"] = ns;
  return out;
}

json selectorFor(const std::string& apiVersion, const std::string& kind, const std::string& name) {
  return {{"apiVersion", apiVersion}, {"kind", kind}, {"name", name}};
}

json cachedObject(const std::string& name, json labels = json::object()) {
  return {{"metadata", {{"namespace", "default"}, {"name", name}, {"labels", labels}}}};
}

// Thirty Deployments app0..app29, each selected by name by its own policy p0..p29, a Service
// with its own policy, and the caches' reads counted.
class PolicyIndexTest : public ::testing::Test {
 protected:
  PolicyIndexTest() {
    for (int i = 0; i < 30; ++i) {
      const std::string n = std::to_string(i);
      policies_.push_back(namedPolicy("p" + n, selectorFor("apps/v1", "Deployment", "app" + n)));
      objects_["Deployment"].push_back(cachedObject("app" + n));
    }
    policies_.push_back(namedPolicy("svc-policy", selectorFor("v1", "Service", "svc")));
    objects_["Service"].push_back(cachedObject("svc"));
  }
  void indexEverything() {
    for (const auto& policy : policies_) index_.policyChanged(policyKey(policy));
    for (const auto& [kind, list] : objects_)
      for (const auto& each : list) index_.objectChanged(kind, "default", each["metadata"]["name"]);
    gets_ = lists_ = 0;
  }
  json& find(const std::string& kind, const std::string& name) {
    for (auto& each : objects_[kind])
      if (each["metadata"]["name"] == name) return each;
    throw std::logic_error("no " + name);
  }
  std::set<std::string> governed(const std::string& key) const {
    std::set<std::string> out;
    for (const auto& [kind, each] : index_.governedBy(key)) out.insert(kind + "/" + each["metadata"].value("name", ""));
    return out;
  }

  std::vector<json> policies_;
  std::vector<json> clusterPolicies_;
  std::map<std::string, std::vector<json>> objects_;
  int gets_ = 0;
  int lists_ = 0;
  PolicyIndex index_{{[this](const std::string&) { return policies_; }, [this] { return clusterPolicies_; },
                      [this](const std::string& kind, const std::string&, const std::string& name) -> std::optional<json> {
                        ++gets_;
                        for (const auto& each : objects_[kind])
                          if (each["metadata"]["name"] == name) return each;
                        return std::nullopt;
                      },
                      [this](const std::string& kind, const std::string&) {
                        ++lists_;
                        return objects_[kind];
                      }}};
};

TEST_F(PolicyIndexTest, AnObjectsChangeConcernsOnlyThePoliciesItMovesBetween) {
  policies_.push_back(namedPolicy("by-tier", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"labelSelector", {{"matchLabels", {{"tier", "web"}}}}}}, 5));
  indexEverything();
  EXPECT_EQ(governed("default/p3"), (std::set<std::string>{"Deployment/app3"}));

  find("Deployment", "app3")["metadata"]["labels"]["tier"] = "web";
  gets_ = lists_ = 0;
  EXPECT_EQ(index_.objectChanged("Deployment", "default", "app3"), (std::set<std::string>{"default/by-tier", "default/p3"}))
      << "not the thirty other policies";
  EXPECT_EQ(gets_, 1) << "app3 alone";
  EXPECT_EQ(lists_, 0) << "the HPAs that target it are known without reading every HPA";
  EXPECT_EQ(governed("default/p3"), std::set<std::string>{});
  EXPECT_EQ(governed("default/by-tier"), (std::set<std::string>{"Deployment/app3"}));

  // A change that moves nothing concerns the policy that governs the object (its status lists
  // the object's clusters), and reads that object alone.
  find("Service", "svc")["metadata"]["labels"]["x"] = "y";
  gets_ = lists_ = 0;
  EXPECT_EQ(index_.objectChanged("Service", "default", "svc"), (std::set<std::string>{"default/svc-policy"}));
  EXPECT_EQ(gets_, 1);
  EXPECT_EQ(lists_, 0);

  objects_["Service"].clear();
  EXPECT_EQ(index_.objectChanged("Service", "default", "svc"), (std::set<std::string>{"default/svc-policy"}));
  EXPECT_EQ(governed("default/svc-policy"), std::set<std::string>{});
}

TEST_F(PolicyIndexTest, APolicysChangeJudgesAgainWhatItGovernedAndWhatItSelectsNow) {
  indexEverything();
  // p3 now selects app4, which p4 also selects by name: the name that sorts first wins it.
  policies_[3]["spec"]["resourceSelectors"][0]["name"] = "app4";
  gets_ = 0;
  EXPECT_EQ(index_.policyChanged("default/p3"), (std::set<std::string>{"default/p3", "default/p4"}));
  EXPECT_EQ(gets_, 2) << "app3 (it governed) and app4 (it selects), not the thirty-one objects";
  EXPECT_EQ(governed("default/p3"), (std::set<std::string>{"Deployment/app4"}));
  EXPECT_EQ(governed("default/p4"), std::set<std::string>{});

  // Deleted, its objects go to the next policy that selects them: here a cluster-scoped one.
  clusterPolicies_.push_back(namedPolicy("everywhere", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}}, 0, ""));
  index_.policyChanged("everywhere");
  policies_.erase(policies_.begin() + 3);
  EXPECT_EQ(index_.policyChanged("default/p3"), (std::set<std::string>{"default/p3", "default/p4"}));
  EXPECT_EQ(governed("default/p4"), (std::set<std::string>{"Deployment/app4"}));
  EXPECT_EQ(governed("everywhere"), (std::set<std::string>{"Deployment/app3"}));
}

TEST_F(PolicyIndexTest, AnHpaFollowsTheLabelsOfItsTargetAndOfItsFederatedHpa) {
  policies_.push_back(namedPolicy("by-app", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}));
  policies_.push_back(namedPolicy("by-team", {{"apiVersion", "autoscaling.karmada.io/v1alpha1"}, {"kind", "FederatedHPA"},
                                              {"labelSelector", {{"matchLabels", {{"team", "a"}}}}}}));
  objects_["Deployment"].push_back(cachedObject("web"));
  objects_["FederatedHPA"].push_back(cachedObject("web"));
  json hpa = cachedObject("web");
  hpa["metadata"]["ownerReferences"] = {{{"apiVersion", "autoscaling.karmada.io/v1alpha1"}, {"kind", "FederatedHPA"}, {"name", "web"}}};
  hpa["spec"] = {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}}};
  objects_["HorizontalPodAutoscaler"].push_back(hpa);
  indexEverything();
  EXPECT_EQ(governed("default/by-app"), std::set<std::string>{});

  find("Deployment", "web")["metadata"]["labels"]["app"] = "web";
  EXPECT_EQ(index_.objectChanged("Deployment", "default", "web"), (std::set<std::string>{"default/by-app"}));
  EXPECT_EQ(governed("default/by-app"), (std::set<std::string>{"Deployment/web", "HorizontalPodAutoscaler/web"}));

  // Its FederatedHPA's labels come before its target's.
  find("FederatedHPA", "web")["metadata"]["labels"]["team"] = "a";
  EXPECT_EQ(index_.objectChanged("FederatedHPA", "default", "web"), (std::set<std::string>{"default/by-app", "default/by-team"}));
  EXPECT_EQ(governed("default/by-team"), (std::set<std::string>{"FederatedHPA/web", "HorizontalPodAutoscaler/web"}));
}

TEST(PolicyRelevantChange, AStatusWriteIsNoneAndLabelsAnnotationsOwnersDeletionAndSpecAre) {
  const json hpa = {{"metadata", {{"name", "web"}, {"resourceVersion", "1"}, {"labels", {{"app", "web"}}}}},
                    {"spec", {{"maxReplicas", 10}}},
                    {"status", {{"currentReplicas", 1}}}};
  json statusWrite = hpa;
  statusWrite["status"]["currentReplicas"] = 3;
  statusWrite["metadata"]["resourceVersion"] = "2";
  EXPECT_FALSE(policyRelevantChange(hpa, statusWrite));
  for (const auto& change : std::vector<std::function<void(json&)>>{
           [](json& o) { o["metadata"]["labels"]["tier"] = "web"; },
           [](json& o) { o["metadata"]["annotations"]["federation.alpha.kubernetes.io/cluster-selector"] = "[]"; },
           [](json& o) { o["metadata"]["ownerReferences"] = json::array({{{"kind", "FederatedHPA"}, {"name", "web"}}}); },
           [](json& o) { o["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"; },
           [](json& o) { o["spec"]["maxReplicas"] = 12; }}) {
    json changed = hpa;
    change(changed);
    EXPECT_TRUE(policyRelevantChange(hpa, changed)) << changed.dump();
  }
}

}  // namespace
}  // namespace fedhpa::controller
