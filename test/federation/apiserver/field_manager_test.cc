// managedFields as kube-apiserver keeps them: Update entries for ordinary writes, Apply entries for
// server-side apply, conflicts between managers, force, and removal of fields an applier drops.
#include "federation/apiserver/field_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/hpa_type.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json hpa(int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
            {"maxReplicas", maxReplicas}}}};
}

WriteContext by(const std::string& manager, const std::string& now = "2026-01-01T00:00:00Z") {
  return {manager, "autoscaling/v2", Subresource::Main, now};
}

class FieldManagerTest : public ::testing::Test {
 protected:
  std::shared_ptr<const api::ResourceType> type_ = api::horizontalPodAutoscalerType();
  FieldManager manager_{*type_};

  static std::vector<ManagedFieldsEntry> entries(const json& object) {
    return decodeManagedFields(object["metadata"]["managedFields"]).value();
  }
  static const ManagedFieldsEntry* entryOf(const std::vector<ManagedFieldsEntry>& entries, const std::string& manager) {
    for (const auto& entry : entries)
      if (entry.manager == manager) return &entry;
    return nullptr;
  }
};

TEST_F(FieldManagerTest, CreateRecordsAnUpdateEntryWithEveryFieldSetIncludingDefaults) {
  const json created = manager_.update(json::object(), hpa(5), by("kubectl-create"));
  const json list = created["metadata"]["managedFields"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["manager"], "kubectl-create");
  EXPECT_EQ(list[0]["operation"], "Update");
  EXPECT_EQ(list[0]["apiVersion"], "autoscaling/v2");
  EXPECT_EQ(list[0]["fieldsType"], "FieldsV1");
  EXPECT_EQ(list[0]["time"], "2026-01-01T00:00:00Z");
  const json spec = list[0]["fieldsV1"]["f:spec"];
  EXPECT_TRUE(spec.contains("f:maxReplicas"));
  EXPECT_TRUE(spec.contains("f:minReplicas"));  // defaulted: the writer's too, as in Kubernetes
  EXPECT_TRUE(spec["f:scaleTargetRef"].contains("f:name"));
  EXPECT_FALSE(list[0]["fieldsV1"].contains("f:metadata"));  // name and namespace are the server's
}

TEST_F(FieldManagerTest, AnUpdateTakesTheFieldsItChangesFromOthersAndLeavesTheRest) {
  const json created = manager_.update(json::object(), hpa(5), by("kubectl-create"));
  const json updated = manager_.update(created, hpa(7), by("kubectl-edit", "2026-01-02T00:00:00Z"));
  const auto list = entries(updated);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_FALSE(entryOf(list, "kubectl-create")->fields.has({"f:spec", "f:maxReplicas"}));
  EXPECT_TRUE(entryOf(list, "kubectl-create")->fields.has({"f:spec", "f:minReplicas"}));
  EXPECT_EQ(entryOf(list, "kubectl-edit")->fields.members(), (std::vector<FieldPath>{{"f:spec", "f:maxReplicas"}}));
  EXPECT_EQ(entryOf(list, "kubectl-edit")->time, "2026-01-02T00:00:00Z");
}

TEST_F(FieldManagerTest, AnUpdateThatChangesNothingLeavesManagedFieldsAsTheyWere) {
  const json created = manager_.update(json::object(), hpa(5), by("kubectl-create"));
  const json again = manager_.update(created, hpa(5), by("someone-else", "2026-02-01T00:00:00Z"));
  EXPECT_EQ(again["metadata"]["managedFields"], created["metadata"]["managedFields"]);
}

TEST_F(FieldManagerTest, ApplyToNothingCreatesAnApplyEntryOfTheAppliedFieldsOnly) {
  const json applied = manager_.apply(json::object(), hpa(5), by("kubectl"), false);
  const auto list = entries(applied);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].operation, "Apply");
  EXPECT_TRUE(list[0].fields.has({"f:spec", "f:maxReplicas"}));
  EXPECT_FALSE(list[0].fields.has({"f:spec", "f:minReplicas"}));  // defaulted, not applied
  EXPECT_EQ(applied["spec"]["minReplicas"], 1);
}

TEST_F(FieldManagerTest, ApplyingTheSameConfigurationAgainChangesNothingNotEvenTheTime) {
  const json first = manager_.apply(json::object(), hpa(5), by("kubectl"), false);
  const json second = manager_.apply(first, hpa(5), by("kubectl", "2026-03-01T00:00:00Z"), false);
  EXPECT_EQ(second, first);
}

TEST_F(FieldManagerTest, ApplyingAFieldAnotherApplierOwnsWithAnotherValueIsAConflict) {
  const json first = manager_.apply(json::object(), hpa(5), by("kubectl"), false);
  json other = hpa(9);
  try {
    manager_.apply(first, other, by("other"), false);
    FAIL() << "no conflict";
  } catch (const api::ApiError& error) {
    EXPECT_EQ(error.code(), 409);
    EXPECT_EQ(error.reason(), "Conflict");
    EXPECT_STREQ(error.what(), "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxReplicas");
    ASSERT_EQ(error.details()["causes"].size(), 1u);
    EXPECT_EQ(error.details()["causes"][0],
              json({{"reason", "FieldManagerConflict"}, {"message", "conflict with \"kubectl\""}, {"field", ".spec.maxReplicas"}}));
  }
}

TEST_F(FieldManagerTest, ConflictsWithSeveralFieldsAndAnUpdaterAreListedAsKubeApiserverDoes) {
  const json created = manager_.update(json::object(), hpa(5), by("kubectl-create"));
  json config = hpa(9);
  config["spec"]["minReplicas"] = 2;
  try {
    manager_.apply(created, config, by("gitops"), false);
    FAIL() << "no conflict";
  } catch (const api::ApiError& error) {
    EXPECT_STREQ(error.what(),
                 "Apply failed with 2 conflicts: conflicts with \"kubectl-create\" using autoscaling/v2:\n"
                 "- .spec.maxReplicas\n- .spec.minReplicas");
  }
}

TEST_F(FieldManagerTest, ForceTakesTheFieldOverAndTheOtherManagerLosesIt) {
  const json first = manager_.apply(json::object(), hpa(5), by("kubectl"), false);
  const json forced = manager_.apply(first, hpa(9), by("other"), true);
  EXPECT_EQ(forced["spec"]["maxReplicas"], 9);
  const auto list = entries(forced);
  EXPECT_TRUE(entryOf(list, "other")->fields.has({"f:spec", "f:maxReplicas"}));
  EXPECT_FALSE(entryOf(list, "kubectl")->fields.has({"f:spec", "f:maxReplicas"}));
  EXPECT_TRUE(entryOf(list, "kubectl")->fields.has({"f:spec", "f:scaleTargetRef", "f:name"}));
}

TEST_F(FieldManagerTest, AppliersOfTheSameValueShareTheField) {
  const json first = manager_.apply(json::object(), hpa(5), by("kubectl"), false);
  const json shared = manager_.apply(first, hpa(5), by("other"), false);
  const auto list = entries(shared);
  EXPECT_TRUE(entryOf(list, "other")->fields.has({"f:spec", "f:maxReplicas"}));
  EXPECT_TRUE(entryOf(list, "kubectl")->fields.has({"f:spec", "f:maxReplicas"}));
}

TEST_F(FieldManagerTest, AFieldTheApplierDropsGoesUnlessSomeoneElseOwnsIt) {
  json labelled = hpa(5);
  labelled["metadata"]["labels"] = {{"team", "a"}, {"tier", "web"}};
  json fewer = hpa(5);
  fewer["metadata"]["labels"] = {{"tier", "web"}};
  const json first = manager_.apply(json::object(), labelled, by("kubectl"), false);
  const json dropped = manager_.apply(first, fewer, by("kubectl"), false);
  EXPECT_EQ(dropped["metadata"]["labels"], json({{"tier", "web"}}));

  const json shared = manager_.apply(first, labelled, by("other"), false);
  const json keptForOther = manager_.apply(shared, fewer, by("kubectl"), false);
  EXPECT_EQ(keptForOther["metadata"]["labels"], labelled["metadata"]["labels"]);
}

TEST_F(FieldManagerTest, MetricsAreReplacedWholeByApply) {
  json cpu = hpa(5);
  cpu["spec"]["metrics"] = json::parse(R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}])");
  json memory = hpa(5);
  memory["spec"]["metrics"] = json::parse(R"([{"type":"Resource","resource":{"name":"memory","target":{"type":"Utilization","averageUtilization":60}}}])");
  const json first = manager_.apply(json::object(), cpu, by("kubectl"), false);
  const json second = manager_.apply(first, memory, by("kubectl"), false);
  EXPECT_EQ(second["spec"]["metrics"], memory["spec"]["metrics"]);
}

TEST_F(FieldManagerTest, ManagedFieldsOfOneEmptyEntryAreCleared_AnEmptyListIsIgnored) {
  const json created = manager_.update(json::object(), hpa(5), by("kubectl-create"));
  json reset = created;
  reset["metadata"]["managedFields"] = json::array({json::object()});
  EXPECT_EQ(manager_.update(created, reset, by("kubectl-patch"))["metadata"]["managedFields"], json::array());
  json empty = created;
  empty["metadata"]["managedFields"] = json::array();
  EXPECT_EQ(manager_.update(created, empty, by("kubectl-patch"))["metadata"]["managedFields"],
            created["metadata"]["managedFields"]);
  json garbage = created;
  garbage["metadata"]["managedFields"] = json::array({{{"operation", "Explode"}}});
  EXPECT_EQ(manager_.update(created, garbage, by("kubectl-patch"))["metadata"]["managedFields"],
            created["metadata"]["managedFields"]);
}

TEST_F(FieldManagerTest, AStatusWriteIsItsOwnEntryAndOwnsOnlyTheStatus) {
  const json created = manager_.update(json::object(), hpa(5), by("kubectl-create"));
  json withStatus = created;
  withStatus["status"] = {{"currentReplicas", 2}, {"desiredReplicas", 2}};
  const json updated = manager_.update(created, withStatus, {"fedhpa-controller", "autoscaling/v2", Subresource::Status, "t"});
  const auto list = entries(updated);
  ASSERT_EQ(list.size(), 2u);
  const auto* status = entryOf(list, "fedhpa-controller");
  EXPECT_EQ(status->subresource, "status");
  EXPECT_TRUE(status->fields.has({"f:status", "f:currentReplicas"}));
  EXPECT_EQ(updated["metadata"]["managedFields"][1]["subresource"], "status");
}

}  // namespace
}  // namespace fedhpa::apiserver
