// Which Karmada policy governs an object (Karmada's priority rules), where it places it, the
// static weights it gives each placed member, and how member classification applies them.
#include "federation/controller/propagation_policy.h"

#include <gtest/gtest.h>

#include "federation/controller/member_classification.h"

namespace fedhpa::controller {
namespace {

using nlohmann::json;

// A policy of `ns` ("" for a ClusterPropagationPolicy) with one resourceSelector, placing on `clusters`.
json policy(const std::string& ns, const std::string& name, json selector, std::vector<std::string> clusters,
            std::optional<int> priority = std::nullopt) {
  json out = {{"metadata", {{"name", name}, {"resourceVersion", "7"}}},
              {"spec", {{"resourceSelectors", json::array({selector})},
                        {"placement", {{"clusterAffinity", {{"clusterNames", clusters}}}}}}}};
  if (!ns.empty()) out["metadata"]["namespace"] = ns;
  if (priority) out["spec"]["priority"] = *priority;
  return out;
}

json deploymentSelector(std::optional<std::string> name = std::nullopt, std::optional<json> labels = std::nullopt) {
  json selector = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}};
  if (name) selector["name"] = *name;
  if (labels) selector["labelSelector"] = {{"matchLabels", *labels}};
  return selector;
}

// A cache holding no Deployments.
class EmptyLister : public clusters::Lister {
 public:
  bool hasSynced() const override { return true; }
  std::optional<json> get(const std::string&, const std::string&) const override { return std::nullopt; }
};

const ObjectRef kNginx{"apps/v1", "Deployment", "default", "nginx", {{"app", "nginx"}}};

std::string winnerOf(const ObjectRef& object, const std::vector<json>& pps, const std::vector<json>& cpps = {}) {
  const auto placement = governingPlacement(object, pps, cpps);
  return placement ? placement->policy : "none";
}

TEST(PropagationPolicyMatching, NameBeatsLabelsBeatsKindAtEqualPriority) {
  const json byKind = policy("default", "a-kind", deploymentSelector(), {"member1"});
  const json byLabels = policy("default", "b-labels", deploymentSelector(std::nullopt, json{{"app", "nginx"}}), {"member2"});
  const json byName = policy("default", "c-name", deploymentSelector("nginx"), {"member3"});
  EXPECT_EQ(winnerOf(kNginx, {byKind, byLabels, byName}), "PropagationPolicy default/c-name");
  EXPECT_EQ(winnerOf(kNginx, {byKind, byLabels}), "PropagationPolicy default/b-labels");
  EXPECT_EQ(winnerOf(kNginx, {byKind}), "PropagationPolicy default/a-kind");
  const json otherLabels = policy("default", "d", deploymentSelector(std::nullopt, json{{"app", "redis"}}), {"member2"});
  const json otherName = policy("default", "e", deploymentSelector("redis"), {"member2"});
  EXPECT_EQ(winnerOf(kNginx, {otherLabels, otherName}), "none") << "selectors that do not select it";
}

TEST(PropagationPolicyMatching, ExplicitPriorityFirstThenNameOrder) {
  const json byKindHigh = policy("default", "z-kind", deploymentSelector(), {"member1"}, 5);
  const json byName = policy("default", "a-name", deploymentSelector("nginx"), {"member2"});
  EXPECT_EQ(winnerOf(kNginx, {byName, byKindHigh}), "PropagationPolicy default/z-kind");
  const json twin = policy("default", "b-name", deploymentSelector("nginx"), {"member3"});
  EXPECT_EQ(winnerOf(kNginx, {twin, byName}), "PropagationPolicy default/a-name") << "alphabetically first";
}

TEST(PropagationPolicyMatching, PropagationPolicyBeatsClusterPolicyWhateverItsPriority) {
  const json cpp = policy("", "everywhere", deploymentSelector("nginx"), {"member3"}, 100);
  const json pp = policy("default", "local", deploymentSelector(), {"member1"});
  EXPECT_EQ(winnerOf(kNginx, {pp}, {cpp}), "PropagationPolicy default/local");
  EXPECT_EQ(winnerOf(kNginx, {}, {cpp}), "ClusterPropagationPolicy everywhere");
  const json elsewhere = policy("team", "local", deploymentSelector(), {"member1"});
  EXPECT_EQ(winnerOf(kNginx, {elsewhere}, {cpp}), "ClusterPropagationPolicy everywhere") << "a PropagationPolicy places only its namespace";
  json deleting = pp;
  deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  EXPECT_EQ(winnerOf(kNginx, {deleting}, {cpp}), "ClusterPropagationPolicy everywhere") << "a policy being deleted governs nothing";
  json otherNamespace = deploymentSelector();
  otherNamespace["namespace"] = "team";
  EXPECT_EQ(winnerOf(kNginx, {}, {policy("", "team-only", otherNamespace, {"member1"})}), "none");
}

TEST(PropagationPolicyMatching, AnHpaFollowsItsOwnPolicyElseItsFederatedHpasElseItsTargets) {
  const json hpa = json::parse(R"({"metadata": {"name": "nginx", "namespace": "default",
      "ownerReferences": [{"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA", "name": "nginx-fhpa"}]},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}}})");
  const json deployment = {{"metadata", {{"name", "nginx"}, {"namespace", "default"}, {"labels", {{"app", "nginx"}}}}}};
  const json byTargetLabels = policy("default", "by-labels", deploymentSelector(std::nullopt, json{{"app", "nginx"}}), {"member1"});
  const auto viaTarget = governingHpaPlacement(hpa, deployment, std::nullopt, {byTargetLabels}, {});
  ASSERT_TRUE(viaTarget);
  EXPECT_EQ(viaTarget->policy, "PropagationPolicy default/by-labels");
  EXPECT_FALSE(governingHpaPlacement(hpa, std::nullopt, std::nullopt, {byTargetLabels}, {})) << "the target's labels are not known";

  const json byOwner = policy("default", "by-owner",
                              {{"apiVersion", "autoscaling.karmada.io/v1alpha1"}, {"kind", "FederatedHPA"}, {"name", "nginx-fhpa"}}, {"member2"});
  EXPECT_EQ(governingHpaPlacement(hpa, deployment, std::nullopt, {byTargetLabels, byOwner}, {})->policy, "PropagationPolicy default/by-owner");
  const json byHpaV1 = policy("default", "by-hpa", {{"apiVersion", "autoscaling/v1"}, {"kind", "HorizontalPodAutoscaler"}}, {"member3"});
  EXPECT_EQ(governingHpaPlacement(hpa, deployment, std::nullopt, {byTargetLabels, byOwner, byHpaV1}, {})->policy, "PropagationPolicy default/by-hpa")
      << "an HPA is one object in autoscaling/v1 and v2";
}

TEST(PropagationPolicyMatching, ALabelSelectorSelectsTheFederatedHpaOwningAnHpaByItsLabels) {
  const json hpa = json::parse(R"({"metadata": {"name": "nginx", "namespace": "default",
      "ownerReferences": [{"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA", "name": "nginx"}]},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}}})");
  const json owner = {{"metadata", {{"name", "nginx"}, {"namespace", "default"}, {"labels", {{"team", "web"}}}}}};
  const json byOwnerLabels = policy("default", "by-owner-labels",
                                    {{"apiVersion", "autoscaling.karmada.io/v1alpha1"},
                                     {"kind", "FederatedHPA"},
                                     {"labelSelector", {{"matchLabels", {{"team", "web"}}}}}},
                                    {"member2"});
  const auto placed = governingHpaPlacement(hpa, std::nullopt, owner, {byOwnerLabels}, {});
  ASSERT_TRUE(placed);
  EXPECT_EQ(placed->policy, "PropagationPolicy default/by-owner-labels");
  EXPECT_FALSE(governingHpaPlacement(hpa, std::nullopt, std::nullopt, {byOwnerLabels}, {})) << "the owner's labels are not known";
  json otherTeam = owner;
  otherTeam["metadata"]["labels"]["team"] = "batch";
  EXPECT_FALSE(governingHpaPlacement(hpa, std::nullopt, otherTeam, {byOwnerLabels}, {}));

  // The controller's caches: the owner is looked up by the HPA's ownerReference.
  const PolicyCaches caches{[&](const std::string&) { return std::vector<json>{byOwnerLabels}; }, PolicyCaches::List{},
                            [&](const std::string& ns, const std::string& name) {
                              return ns == "default" && name == "nginx" ? std::optional<json>(owner) : std::nullopt;
                            }};
  const auto cached = caches.hpaPlacement(hpa, EmptyLister{});
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->policy, "PropagationPolicy default/by-owner-labels");
}

TEST(PropagationPolicyPlacement, ClusterAffinityIsNamesMinusExcludeAndLabels) {
  json guide = policy("default", "p", deploymentSelector(), {"member1", "member2"});
  auto placement = placementOf(guide);
  EXPECT_TRUE(placement.placesOn("member1", {}));
  EXPECT_FALSE(placement.placesOn("member3", {}));
  EXPECT_FALSE(placement.staticWeights);
  guide["spec"]["placement"]["clusterAffinity"] = {{"exclude", {"member2"}}, {"labelSelector", {{"matchLabels", {{"region", "eu"}}}}}};
  placement = placementOf(guide);
  EXPECT_TRUE(placement.placesOn("member3", {{"region", "eu"}}));
  EXPECT_FALSE(placement.placesOn("member2", {{"region", "eu"}})) << "excluded";
  EXPECT_FALSE(placement.placesOn("member1", {{"region", "us"}}));
  guide["spec"]["placement"].erase("clusterAffinity");
  EXPECT_TRUE(placementOf(guide).placesOn("anything", {})) << "no clusterAffinity: every cluster";
}

TEST(PropagationPolicyPlacement, StaticWeightsAsKarmadasSchedulerReadsThem) {
  json guide = policy("default", "p", deploymentSelector(), {"member1", "member2", "member3"});
  guide["spec"]["placement"]["replicaScheduling"] = json::parse(R"({"replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted", "weightPreference": {"staticWeightList": [
      {"targetCluster": {"clusterNames": ["member1"]}, "weight": 2},
      {"targetCluster": {"labelSelector": {"matchLabels": {"tier": "big"}}}, "weight": 3},
      {"targetCluster": {"clusterNames": ["member2"]}, "weight": 1}]}})");
  const auto placement = placementOf(guide);
  EXPECT_TRUE(placement.staticWeights);
  const auto weights = placement.weightsOf({{"member1", {{"tier", "big"}}}, {"member2", {}}, {"member3", {}}});
  EXPECT_EQ(weights, (std::map<std::string, partitioner::Replicas>{{"member1", 3}, {"member2", 1}, {"member3", 0}}))
      << "the largest matching weight; none matching: 0";
  EXPECT_EQ(placement.weightsOf({{"member3", {}}}), (std::map<std::string, partitioner::Replicas>{{"member3", 1}}))
      << "no placed cluster weighed: all equal";
  guide["spec"]["placement"]["replicaScheduling"]["replicaDivisionPreference"] = "Aggregated";
  EXPECT_FALSE(placementOf(guide).staticWeights) << "Aggregated: split by load";
  guide["spec"]["placement"]["replicaScheduling"] = {{"replicaSchedulingType", "Duplicated"}};
  EXPECT_FALSE(placementOf(guide).staticWeights);
}

TEST(PropagationPolicyPlacement, AnObjectKeepsItsPlacementOnceItsPolicyIsGone) {
  json guide = policy("default", "nginx-propagation", deploymentSelector("nginx"), {"member1", "member2"});
  guide["spec"]["placement"]["replicaScheduling"] = json::parse(R"({"replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted", "weightPreference": {"staticWeightList": [
      {"targetCluster": {"clusterNames": ["member1"]}, "weight": 2}]}})");
  json deployment = {{"metadata", {{"name", "nginx"}, {"namespace", "default"}}}};
  EXPECT_FALSE(effectivePlacement(std::nullopt, deployment)) << "never governed: fedhpa's own placement";

  const auto governing = governingPlacement(kNginx, {guide}, {});
  const auto patch = retainPlacementPatch(deployment, governing);
  ASSERT_TRUE(patch);
  deployment.merge_patch(*patch);
  EXPECT_FALSE(retainPlacementPatch(deployment, governing)) << "recorded once";
  EXPECT_FALSE(retainPlacementPatch(deployment, std::nullopt)) << "nothing governs it: the record stays";

  const auto kept = effectivePlacement(std::nullopt, deployment);  // the policy was deleted
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->retained);
  EXPECT_EQ(kept->policy, "PropagationPolicy default/nginx-propagation (deleted: placement retained)");
  EXPECT_TRUE(kept->placesOn("member2", {}));
  EXPECT_FALSE(kept->placesOn("member3", {}));
  EXPECT_TRUE(kept->staticWeights);
  EXPECT_EQ(kept->weightsOf({{"member1", {}}, {"member2", {}}}), (std::map<std::string, partitioner::Replicas>{{"member1", 2}, {"member2", 0}}));
  EXPECT_FALSE(retainPlacementPatch(deployment, kept)) << "a retained placement is not recorded again";

  const json claimer = policy("default", "claimer", deploymentSelector(), {"member3"});
  const auto claimed = effectivePlacement(governingPlacement(kNginx, {claimer}, {}), deployment);
  EXPECT_EQ(claimed->policy, "PropagationPolicy default/claimer") << "a new policy claims it";
  EXPECT_TRUE(retainPlacementPatch(deployment, claimed));
}

MemberHpa healthy(const std::string& name) {
  MemberHpa local;
  local.member.name = name;
  local.member.health = MemberHealth::Healthy;
  return local;
}

TEST(PropagationPolicyPlacement, ClassificationPlansThePlacedMembersWithTheirWeights) {
  json guide = policy("default", "p", deploymentSelector(), {"member1", "member2"});
  guide["spec"]["placement"]["replicaScheduling"] = json::parse(R"({"replicaSchedulingType": "Divided",
    "replicaDivisionPreference": "Weighted", "weightPreference": {"staticWeightList": [
      {"targetCluster": {"clusterNames": ["member1"]}, "weight": 2},
      {"targetCluster": {"clusterNames": ["member2"]}, "weight": 1}]}})");
  FederatedHpa federated;
  federated.preferences["member1"].weight = 9;  // the annotation's weight gives way to the policy's
  const auto classified =
      classifyMembers({healthy("member1"), healthy("member2"), healthy("member3")}, federated, "", placementOf(guide));
  ASSERT_EQ(classified.planned.size(), 2u);
  EXPECT_EQ(classified.planned[0].name, "member1");
  EXPECT_EQ(classified.planned[0].preferences.weight, 2);
  EXPECT_EQ(classified.planned[1].name, "member2");
  EXPECT_EQ(classified.planned[1].preferences.weight, 1);
}

}  // namespace
}  // namespace fedhpa::controller
