// A federated Deployment's replicas on the members, as its propagation policy's replicaScheduling
// says when no HPA targets it: duplicated, divided by static weights, or evenly.
#include "federation/controller/deployment_reconciler.h"

#include <gtest/gtest.h>

#include "federation/controller/cache_transforms.h"
#include "federation/controller/object_propagation.h"
#include "test/federation/common/fake_time_source.h"
#include "test/federation/controller/fake_api.h"

namespace fedhpa::controller {
namespace {

using Placed = std::vector<std::pair<std::string, std::map<std::string, std::string>>>;

// A PropagationPolicy of namespace default selecting the Deployment "web", placing it on
// member1 and member2 with `scheduling` as its replicaScheduling (null: none).
json webPolicy(json scheduling, std::vector<std::string> clusters = {"member1", "member2"}) {
  json placement = {{"clusterAffinity", {{"clusterNames", clusters}}}};
  if (!scheduling.is_null()) placement["replicaScheduling"] = scheduling;
  return {{"metadata", {{"name", "web-propagation"}, {"namespace", "default"}, {"resourceVersion", "1"}}},
          {"spec", {{"resourceSelectors", json::array({{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}})},
                    {"placement", placement}}}};
}

json weighted(json staticWeightList) {
  return {{"replicaSchedulingType", "Divided"},
          {"replicaDivisionPreference", "Weighted"},
          {"weightPreference", {{"staticWeightList", staticWeightList}}}};
}

json weightFor(const std::string& cluster, int weight) {
  return {{"targetCluster", {{"clusterNames", json::array({cluster})}}}, {"weight", weight}};
}

std::optional<Placement> placementIn(const json& policy) { return placementOf(policy); }

TEST(ReplicaShares, NoPolicyOrDividedWithoutWeightsSplitsEvenlyFirstByNameTakingTheRest) {
  const Placed three = {{"member1", {}}, {"member2", {}}, {"member3", {}}};
  EXPECT_EQ(replicaShares(10, three, std::nullopt), (std::vector<long long>{4, 3, 3}));
  EXPECT_EQ(replicaShares(2, three, std::nullopt), (std::vector<long long>{1, 1, 0}));
  EXPECT_EQ(replicaShares(10, three, placementIn(webPolicy({{"replicaSchedulingType", "Divided"}}))),
            (std::vector<long long>{4, 3, 3}));
  EXPECT_EQ(replicaShares(10, three,
                          placementIn(webPolicy({{"replicaSchedulingType", "Divided"}, {"replicaDivisionPreference", "Aggregated"}}))),
            (std::vector<long long>{4, 3, 3}));
  EXPECT_EQ(replicaShares(5, {}, std::nullopt), std::vector<long long>{});
}

TEST(ReplicaShares, DuplicatedAndNoReplicaSchedulingGiveEveryMemberAllOfThem) {
  const Placed two = {{"member1", {}}, {"member2", {}}};
  EXPECT_EQ(replicaShares(6, two, placementIn(webPolicy({{"replicaSchedulingType", "Duplicated"}}))),
            (std::vector<long long>{6, 6}));
  EXPECT_EQ(replicaShares(6, two, placementIn(webPolicy(nullptr))), (std::vector<long long>{6, 6}))
      << "Karmada reads a placement without replicaScheduling as Duplicated";
}

TEST(ReplicaShares, StaticWeightsSplitByLargestRemainder) {
  const Placed two = {{"member1", {}}, {"member2", {}}};
  // 2:1 of 10: 6.67 and 3.33 give 7 and 3, as Karmada's scheduler does.
  EXPECT_EQ(replicaShares(10, two, placementIn(webPolicy(weighted(json::array({weightFor("member1", 2), weightFor("member2", 1)}))))),
            (std::vector<long long>{7, 3}));
  EXPECT_EQ(replicaShares(10, two, placementIn(webPolicy(weighted(json::array({weightFor("member1", 1), weightFor("member2", 4)}))))),
            (std::vector<long long>{2, 8}));
  // A weight by cluster labels; the largest weight of the entries matching a cluster counts.
  const json byLabels = {{"targetCluster", {{"labelSelector", {{"matchLabels", {{"tier", "big"}}}}}}}, {"weight", 3}};
  const Placed labelled = {{"member1", {{"tier", "big"}}}, {"member2", {}}};
  EXPECT_EQ(replicaShares(8, labelled, placementIn(webPolicy(weighted(json::array({byLabels, weightFor("member1", 1), weightFor("member2", 1)}))))),
            (std::vector<long long>{6, 2}));
  // Weighted without a weight list weighs every placed member equally.
  EXPECT_EQ(replicaShares(5, two, placementIn(webPolicy({{"replicaSchedulingType", "Divided"}, {"replicaDivisionPreference", "Weighted"}}))),
            (std::vector<long long>{3, 2}));
}

// One federated Deployment and three members, through the caches' transforms; the policies are
// the test's own list, as the controller-manager's informer would hold them.
class DeploymentReconcilerTest : public ::testing::Test, public MemberClusters {
 protected:
  using FakeApi = testing::FakeApi;
  using SnapshotLister = testing::SnapshotLister;

  struct Cluster {
    std::shared_ptr<FakeApi> api = std::make_shared<FakeApi>();
    std::shared_ptr<SnapshotLister> deployments = std::make_shared<SnapshotLister>(*api, kDeployments, trimMemberDeployment);
  };

  std::vector<Member> members() override {
    std::vector<Member> out;
    for (const auto& [name, cluster] : clusters_) {
      Member member;
      member.name = name;
      member.health = MemberHealth::Healthy;
      member.client = cluster.api;
      member.deployments = cluster.deployments;
      out.push_back(std::move(member));
    }
    return out;
  }
  void createWeb(long long replicas, json annotations = json::object()) {
    json metadata = {{"name", "web"}, {"namespace", "default"}, {"generation", 1}, {"labels", {{"app", "web"}}}};
    if (!annotations.empty()) metadata["annotations"] = annotations;
    federation_.put(kDeployments, {{"apiVersion", "apps/v1"},
                                   {"kind", "Deployment"},
                                   {"metadata", metadata},
                                   {"spec", {{"replicas", replicas}, {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}}}}}});
  }
  void reconcile() {
    federatedDeployments_.refresh();
    for (auto& [name, cluster] : clusters_) cluster.deployments->refresh();
    reconciler_.reconcile("default/web");
  }
  // "replicas" of web on member1..3, "-" where it has no copy.
  std::string replicasOnMembers() const {
    std::string out;
    for (const auto& [name, cluster] : clusters_) {
      const auto replicas = cluster.api->peekSpec(kDeployments, "default", "web", "replicas", -1);
      out += (out.empty() ? "" : "|") + (replicas ? std::to_string(*replicas) : std::string("-"));
    }
    return out;
  }

  std::vector<json> policies_;
  PolicyCaches policyCaches_{[this](const std::string& ns) {
                               std::vector<json> out;
                               for (const auto& policy : policies_)
                                 if (policy["metadata"].value("namespace", "") == ns) out.push_back(policy);
                               return out;
                             },
                             PolicyCaches::List{}};
  fedhpa::testing::FakeTimeSource time_;
  FakeApi federation_;
  SnapshotLister federatedHpas_{federation_, kHpas, federationObjectTransform()};
  SnapshotLister federatedDeployments_{federation_, kDeployments, federationObjectTransform()};
  std::map<std::string, Cluster> clusters_{{"member1", {}}, {"member2", {}}, {"member3", {}}};
  MemberCalls calls_{time_};
  ControllerMetrics metrics_;
  EventRecorder events_{federation_, time_};
  StatusWriter status_{1, [](const std::string&) {}};
  ReconcilerContext context_{federation_, federatedHpas_, federatedDeployments_, *this, calls_, time_, metrics_, events_,
                             status_, {}, &policyCaches_};
  DeploymentReconciler reconciler_{context_};
};

TEST_F(DeploymentReconcilerTest, WithoutAPolicyReplicasAreSpreadEvenlyOverEveryMember) {
  createWeb(10);
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "4|3|3");
}

TEST_F(DeploymentReconcilerTest, StaticWeightsDivideReplicasAndAWeightChangeMovesThem) {
  policies_ = {webPolicy(weighted(json::array({weightFor("member1", 1), weightFor("member2", 1)})))};
  createWeb(10);
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "5|5|-");

  policies_ = {webPolicy(weighted(json::array({weightFor("member1", 2), weightFor("member2", 1)})))};
  policies_[0]["metadata"]["resourceVersion"] = "2";
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "7|3|-");

  // A placed member no entry weighs gets no replicas, and so no copy (Karmada places it nowhere).
  policies_ = {webPolicy(weighted(json::array({weightFor("member1", 2)})))};
  policies_[0]["metadata"]["resourceVersion"] = "3";
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "10|-|-");
}

TEST_F(DeploymentReconcilerTest, DuplicatedRunsEveryReplicaOnEachPlacedMember) {
  policies_ = {webPolicy({{"replicaSchedulingType", "Duplicated"}})};
  createWeb(4);
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "4|4|-");
  federation_.touch(kDeployments, "default", "web", [](json& deployment) { deployment["spec"]["replicas"] = 6; });
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "6|6|-");
}

TEST_F(DeploymentReconcilerTest, AnHpaTargetedDeploymentKeepsItsMembersReplicasWhateverThePolicySays) {
  policies_ = {webPolicy({{"replicaSchedulingType", "Duplicated"}})};
  createWeb(8, {{kHpaTargetClusterListAnnotation, R"({"Names":["member1","member2"]})"}});
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "1|1|-") << "created at 1: the local HPA takes it from there";
  clusters_["member1"].api->touch(kDeployments, "default", "web", [](json& deployment) { deployment["spec"]["replicas"] = 3; });
  reconcile();
  EXPECT_EQ(replicasOnMembers(), "3|1|-") << "the local HPA's scale is never overwritten";
}

}  // namespace
}  // namespace fedhpa::controller
