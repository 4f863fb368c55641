// Karmada's PropagationPolicy and ClusterPropagationPolicy as served types: Karmada's names,
// printer columns and defaults, its validation for the fields fedhpa acts on, and a 422 naming
// each Karmada field fedhpa does not.
#include <gtest/gtest.h>

#include "federation/api/karmada_types.h"
#include "test/federation/api/status_causes.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;

// Karmada's getting-started nginx policy, as its guide ships it.
json guidePolicy() {
  return json::parse(R"({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
    "metadata": {"name": "nginx-propagation", "namespace": "default"},
    "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"},
                                   {"apiVersion": "v1", "kind": "Service", "name": "nginx-service"}],
             "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]},
                           "replicaScheduling": {"replicaDivisionPreference": "Weighted", "replicaSchedulingType": "Divided",
                             "weightPreference": {"staticWeightList": [
                               {"targetCluster": {"clusterNames": ["member1"]}, "weight": 1},
                               {"targetCluster": {"clusterNames": ["member2"]}, "weight": 1}]}}}}})");
}

json defaulted(const ResourceType& type, json served) {
  json internal = type.toInternal(served, "v1alpha1");
  type.applyDefaults(internal);
  return internal;
}

TEST(PropagationPolicyType, KarmadasNamesScopesAndColumns) {
  const auto pp = propagationPolicyType();
  const auto cpp = clusterPropagationPolicyType();
  EXPECT_EQ(pp->names().apiVersion("v1alpha1"), "policy.karmada.io/v1alpha1");
  EXPECT_EQ(pp->names().resource, "propagationpolicies");
  EXPECT_TRUE(pp->names().namespaced);
  EXPECT_EQ(pp->names().shortNames, std::vector<std::string>{"pp"});
  EXPECT_EQ(cpp->names().resource, "clusterpropagationpolicies");
  EXPECT_FALSE(cpp->names().namespaced);
  EXPECT_EQ(cpp->names().shortNames, std::vector<std::string>{"cpp"});
  std::vector<std::string> columns;
  for (const auto& column : pp->tableColumns()) columns.push_back(column.name);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Conflict-Resolution", "Priority", "Age", "Placed"}));
  EXPECT_EQ(pp->tableColumns().back().priority, 1) << "Placed is shown by -o wide only, as kube's wide columns";
  const json cells = pp->tableCells(defaulted(*pp, guidePolicy()), Clock::now());
  EXPECT_EQ(cells[0], "nginx-propagation");
  EXPECT_EQ(cells[1], "Abort");
  EXPECT_EQ(cells[2], "0");
  EXPECT_EQ(cells[4], "") << "no status written yet";
  EXPECT_TRUE(pp->names().subresources.size() == 1 && pp->names().subresources[0].name == "status");
  EXPECT_TRUE(cpp->names().subresources.size() == 1 && cpp->names().subresources[0].name == "status");
}

json placement(const std::string& kind, const std::string& ns, const std::string& name, std::vector<std::string> clusters) {
  return {{"apiVersion", "v1"}, {"kind", kind}, {"namespace", ns}, {"name", name}, {"clusters", clusters}};
}

TEST(PropagationPolicyType, TheWidePlacedColumnSummarisesTheStatus) {
  const auto pp = propagationPolicyType();
  json policy = defaulted(*pp, guidePolicy());
  policy["status"] = {{"placedCount", 3},
                      {"placements", {placement("Deployment", "default", "nginx", {"member1", "member2"}),
                                      placement("HorizontalPodAutoscaler", "default", "nginx", {"member1", "member2"}),
                                      placement("Service", "default", "nginx-service", {})}}};
  EXPECT_EQ(pp->tableCells(policy, Clock::now())[4],
            "Deployment/nginx: member1,member2; HorizontalPodAutoscaler/nginx: member1,member2; Service/nginx-service: <none>");
  json many = json::array();
  for (int i = 0; i < 100; ++i) many.push_back(placement("ConfigMap", "team-a", "cm" + std::to_string(i), {"member1"}));
  const auto cpp = clusterPropagationPolicyType();
  json clusterPolicy = defaulted(*cpp, guidePolicy());
  clusterPolicy["metadata"].erase("namespace");
  clusterPolicy["status"] = {{"placedCount", 1000}, {"placements", many}};
  EXPECT_EQ(cpp->tableCells(clusterPolicy, Clock::now())[4],
            "ConfigMap/team-a/cm0: member1; ConfigMap/team-a/cm1: member1; ConfigMap/team-a/cm2: member1; "
            "ConfigMap/team-a/cm3: member1; ConfigMap/team-a/cm4: member1; +995 more")
      << "a ClusterPropagationPolicy's objects are named with their namespace; the count is placedCount's";
}

TEST(PropagationPolicyType, TheGuidesPolicyIsValidAndDefaultedAsKarmadasCrd) {
  const auto pp = propagationPolicyType();
  EXPECT_TRUE(pp->unknownFields(guidePolicy(), "v1alpha1").empty());
  EXPECT_TRUE(pp->typeErrors(guidePolicy(), "v1alpha1").empty());
  json internal = defaulted(*pp, guidePolicy());
  EXPECT_TRUE(pp->validate(internal, nullptr).empty());
  EXPECT_EQ(internal["spec"]["priority"], 0);
  EXPECT_EQ(internal["spec"]["conflictResolution"], "Abort");
  EXPECT_EQ(internal["spec"]["preemption"], "Never");
  internal["spec"]["placement"]["replicaScheduling"].erase("replicaSchedulingType");
  pp->applyDefaults(internal);
  EXPECT_EQ(internal["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"], "Divided");
}

TEST(PropagationPolicyType, KarmadasRulesForSupportedFields) {
  const auto pp = propagationPolicyType();
  json internal = defaulted(*pp, guidePolicy());
  internal["spec"]["resourceSelectors"][0].erase("kind");
  internal["spec"]["resourceSelectors"][1]["labelSelector"] = {{"matchExpressions", {{{"key", "app"}, {"operator", "Near"}}}}};
  internal["spec"]["placement"]["replicaScheduling"]["replicaSchedulingType"] = "Spread";
  internal["spec"]["placement"]["replicaScheduling"]["replicaDivisionPreference"] = "Heaviest";
  internal["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"][1]["weight"] = 0;
  EXPECT_EQ(fieldsOf(pp->validate(internal, nullptr)),
            (std::vector<std::string>{"spec.resourceSelectors[0].kind", "spec.resourceSelectors[1].labelSelector",
                                      "spec.placement.replicaScheduling.replicaSchedulingType",
                                      "spec.placement.replicaScheduling.replicaDivisionPreference",
                                      "spec.placement.replicaScheduling.weightPreference.staticWeightList[1].weight"}));
  internal["spec"]["resourceSelectors"] = json::array();
  EXPECT_EQ(fieldsOf(pp->validate(internal, nullptr)).front(), "spec.resourceSelectors");
}

TEST(PropagationPolicyType, KarmadaFieldsFedhpaDoesNotActOnAreRefusedByName) {
  const auto pp = propagationPolicyType();
  json served = guidePolicy();
  served["spec"]["placement"]["spreadConstraints"] = {{{"spreadByField", "cluster"}, {"maxGroups", 2}}};
  served["spec"]["placement"]["clusterAffinity"]["fieldSelector"] = {{"matchExpressions", json::array()}};
  served["spec"]["failover"] = {{"application", json::object()}};
  served["spec"]["conflictResolution"] = "Overwrite";
  EXPECT_TRUE(pp->unknownFields(served, "v1alpha1").empty()) << "known to the schema, so never pruned silently";
  const auto causes = pp->validate(defaulted(*pp, served), nullptr);
  EXPECT_EQ(fieldsOf(causes), (std::vector<std::string>{"spec.placement.clusterAffinity.fieldSelector", "spec.conflictResolution",
                                                        "spec.placement.spreadConstraints", "spec.failover"}));
  for (const auto& cause : causes) {
    EXPECT_EQ(cause.reason, "FieldValueForbidden");
    EXPECT_NE(cause.message.find("not supported by fedhpa"), std::string::npos) << cause.message;
  }
  served = guidePolicy();
  served["spec"]["placement"]["typo"] = 1;
  EXPECT_EQ(pp->unknownFields(served, "v1alpha1"), std::vector<std::string>{"spec.placement.typo"});
}

TEST(PropagationPolicyType, RefusedFieldsOfAnyShapeAreRefusedNotTripOver) {
  const auto cpp = clusterPropagationPolicyType();
  json served = guidePolicy();
  served["kind"] = "ClusterPropagationPolicy";
  served["metadata"].erase("namespace");
  served["spec"]["dependentOverrides"] = "not-a-list";
  served["spec"]["suspension"] = 3;
  served["spec"]["preserveResourcesOnDeletion"] = true;
  EXPECT_TRUE(cpp->typeErrors(served, "v1alpha1").empty());
  EXPECT_EQ(fieldsOf(cpp->validate(defaulted(*cpp, served), nullptr)),
            (std::vector<std::string>{"spec.preserveResourcesOnDeletion", "spec.dependentOverrides", "spec.suspension"}));
  served["spec"]["preserveResourcesOnDeletion"] = false;
  served["spec"].erase("dependentOverrides");
  served["spec"].erase("suspension");
  EXPECT_TRUE(cpp->validate(defaulted(*cpp, served), nullptr).empty()) << "false is the default";
}

}  // namespace
}  // namespace fedhpa::api
