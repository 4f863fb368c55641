// Karmada's FederatedHPA and CronFederatedHPA as served types: Karmada's names and columns, the
// HPA's defaults and validation, Karmada-only spec fields kept, cron rules validated.
#include "federation/api/karmada_types.h"

#include <gtest/gtest.h>

#include "federation/api/hpa_type.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;

json federatedHpa() {
  return json::parse(R"({"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA",
    "metadata": {"name": "nginx", "namespace": "default"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}, "maxReplicas": 10}})");
}

TEST(FederatedHpaType, KarmadasNamesAndColumns) {
  const auto type = federatedHpaType();
  EXPECT_EQ(type->names().apiVersion("v1alpha1"), "autoscaling.karmada.io/v1alpha1");
  EXPECT_EQ(type->names().shortNames, std::vector<std::string>{"fhpa"});
  std::vector<std::string> columns;
  for (const auto& column : type->tableColumns()) columns.push_back(column.name);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Reference-Kind", "Reference-Name", "MinPods", "MaxPods", "Replicas", "Age",
                                               "Clusters"}));
  EXPECT_EQ(type->tableColumns().back().priority, 1) << "only with -o wide";
  json internal = type->toInternal(federatedHpa(), "v1alpha1");
  type->applyDefaults(internal);
  const json cells = type->tableCells(internal, Clock::now());
  EXPECT_EQ(cells[1], "Deployment");
  EXPECT_EQ(cells[2], "nginx");
  EXPECT_EQ(cells[3], 1);
  EXPECT_EQ(cells[4], 10);
  EXPECT_EQ(cells[7], "<none>");
  internal["metadata"]["annotations"][kClusterStatusAnnotation] = R"({"member1":{"min":1,"max":10,"current":2}})";
  EXPECT_EQ(type->tableCells(internal, Clock::now())[7], "member1 1-10 (2)");
}

TEST(FederatedHpaType, DefaultsAndValidationAreTheHpas) {
  const auto type = federatedHpaType();
  json internal = type->toInternal(federatedHpa(), "v1alpha1");
  type->applyDefaults(internal);
  EXPECT_EQ(internal["spec"]["minReplicas"], 1);
  EXPECT_EQ(internal["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);
  EXPECT_EQ(internal["kind"], "FederatedHPA");
  internal["spec"]["maxReplicas"] = 0;
  const auto causes = type->validate(internal, nullptr);
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].field, "spec.maxReplicas");
}

TEST(FederatedHpaType, KarmadaOnlySpecFieldsAreKeptOthersAreUnknown) {
  const auto type = federatedHpaType();
  json served = federatedHpa();
  served["spec"]["futureKarmadaField"] = {{"a", 1}};
  served["spec"]["scaleTargetRef"]["typo"] = "x";
  EXPECT_EQ(type->unknownFields(served, "v1alpha1"), std::vector<std::string>{"spec.scaleTargetRef.typo"});
  type->dropUnknownFields(served, "v1alpha1");
  EXPECT_EQ(served["spec"]["futureKarmadaField"]["a"], 1);
  EXPECT_FALSE(served["spec"]["scaleTargetRef"].contains("typo"));
  EXPECT_EQ(karmadaOnlySpecFields(served), std::vector<std::string>{"futureKarmadaField"});
}

TEST(CronFederatedHpaType, RulesAreDefaultedAndValidated) {
  const auto type = cronFederatedHpaType();
  json internal = json::parse(R"({"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "CronFederatedHPA",
    "metadata": {"name": "c", "namespace": "default"},
    "spec": {"scaleTargetRef": {"kind": "FederatedHPA", "name": "nginx"},
             "rules": [{"name": "a", "schedule": "0 8 * * *", "targetMaxReplicas": 5}]}})");
  type->applyDefaults(internal);
  EXPECT_EQ(internal["spec"]["rules"][0]["suspend"], false);
  EXPECT_EQ(internal["spec"]["rules"][0]["successfulHistoryLimit"], 3);
  EXPECT_EQ(internal["spec"]["rules"][0]["failedHistoryLimit"], 3);
  EXPECT_TRUE(type->validate(internal, nullptr).empty());
  internal["spec"]["rules"].push_back({{"name", "a"}, {"schedule", "61 * * * *"}, {"timeZone", "Nowhere/City"}, {"successfulHistoryLimit", 0}});
  std::vector<std::string> fields;
  for (const auto& cause : type->validate(internal, nullptr)) fields.push_back(cause.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"spec.rules[1].name", "spec.rules[1].schedule", "spec.rules[1].timeZone",
                                              "spec.rules[1].successfulHistoryLimit"}));
}

}  // namespace
}  // namespace fedhpa::api
