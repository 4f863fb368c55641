// Field sets as server-side apply records them: fieldsV1 encoding, list-map keys from the Schema,
// comparisons, apply's merge and field removal.
#include "federation/apiserver/field_set.h"

#include <gtest/gtest.h>

#include "federation/api/hpa_type.h"
#include "federation/api/served_types.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;

const api::Schema* hpaSchema() {
  static const auto type = api::horizontalPodAutoscalerType();
  return type->storageSchema();
}

TEST(FieldSetTest, FieldsOfAnHpaSpecAreItsLeavesWithMetricsAtomic) {
  const json spec = {{"spec",
                      {{"maxReplicas", 5},
                       {"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
                       {"metrics", json::array({{{"type", "Resource"}}})}}},
                     {"metadata", {{"labels", {{"app", "web"}}}}}};
  const json expected = {{"f:metadata", {{"f:labels", {{"f:app", json::object()}}}}},
                         {"f:spec",
                          {{"f:maxReplicas", json::object()},
                           {"f:metrics", json::object()},
                           {"f:scaleTargetRef", {{"f:kind", json::object()}, {"f:name", json::object()}}}}}};
  EXPECT_EQ(fieldsOf(spec, hpaSchema()).toFieldsV1(), expected);
}

TEST(FieldSetTest, ConditionsAreAListMapKeyedByType) {
  const json status = {{"status", {{"conditions", json::array({{{"type", "AbleToScale"}, {"status", "True"}}})}}}};
  const json fields = fieldsOf(status, hpaSchema()).toFieldsV1();
  EXPECT_EQ(fields["f:status"]["f:conditions"],
            json({{"k:{\"type\":\"AbleToScale\"}", {{".", json::object()}, {"f:status", json::object()}, {"f:type", json::object()}}}}));
}

TEST(FieldSetTest, FinalizersAreASetAndOwnerReferencesKeyedByUid) {
  const json meta = {{"metadata",
                      {{"finalizers", {"a", "b"}},
                       {"ownerReferences", json::array({{{"uid", "u1"}, {"kind", "FederatedHPA"}}})}}}};
  const json fields = fieldsOf(meta, hpaSchema()).toFieldsV1();
  EXPECT_TRUE(fields["f:metadata"]["f:finalizers"].contains("v:\"a\""));
  EXPECT_TRUE(fields["f:metadata"]["f:ownerReferences"].contains("k:{\"uid\":\"u1\"}"));
}

TEST(FieldSetTest, ContainersAreKeyedByName) {
  const json deployment = {{"spec", {{"template", {{"spec", {{"containers", json::array({{{"name", "app"}, {"image", "x"}}})}}}}}}}};
  const auto type = api::deploymentType();
  const FieldSet fields = fieldsOf(deployment, type->storageSchema());
  EXPECT_TRUE(fields.has({"f:spec", "f:template", "f:spec", "f:containers", "k:{\"name\":\"app\"}", "f:image"}));
}

TEST(FieldSetTest, FieldsV1RoundTripsAndRejectsGarbage) {
  FieldSet set;
  set.insert({"f:spec", "f:maxReplicas"});
  set.insert({"f:status", "f:conditions", "k:{\"type\":\"A\"}"});
  set.insert({"f:status", "f:conditions", "k:{\"type\":\"A\"}", "f:status"});
  EXPECT_EQ(FieldSet::fromFieldsV1(set.toFieldsV1()), set);
  EXPECT_EQ(set.toFieldsV1()["f:status"]["f:conditions"]["k:{\"type\":\"A\"}"].count("."), 1u);
  EXPECT_THROW(FieldSet::fromFieldsV1(json::array()), std::invalid_argument);
  EXPECT_THROW(FieldSet::fromFieldsV1({{"spec", json::object()}}), std::invalid_argument);
  EXPECT_THROW(FieldSet::fromFieldsV1({{"k:{nope", json::object()}}), std::invalid_argument);
}

TEST(FieldSetTest, SetOperationsWorkMemberByMember) {
  FieldSet a, b;
  a.insert({"f:spec", "f:maxReplicas"});
  a.insert({"f:spec", "f:minReplicas"});
  b.insert({"f:spec", "f:minReplicas"});
  EXPECT_TRUE(a.minus(b).has({"f:spec", "f:maxReplicas"}));
  EXPECT_FALSE(a.minus(b).has({"f:spec", "f:minReplicas"}));
  EXPECT_EQ(a.intersect(b), b);
  EXPECT_EQ(b.unite(a), a);
  EXPECT_TRUE(a.hasAtOrBelow({"f:spec"}));
  EXPECT_FALSE(a.has({"f:spec"}));
  EXPECT_TRUE(a.minus(a).empty());
}

TEST(FieldSetTest, PathStringsAreKubeApiserversSpelling) {
  EXPECT_EQ(pathString({"f:spec", "f:maxReplicas"}), ".spec.maxReplicas");
  EXPECT_EQ(pathString({"f:status", "f:conditions", "k:{\"type\":\"Ready\"}", "f:status"}),
            ".status.conditions[type=\"Ready\"].status");
  EXPECT_EQ(pathString({"f:metadata", "f:finalizers", "v:\"x\""}), ".metadata.finalizers[=\"x\"]");
}

TEST(FieldSetTest, ComparisonFindsAddedModifiedAndRemovedFields) {
  const json before = {{"spec", {{"maxReplicas", 5}, {"minReplicas", 1}}}};
  const json after = {{"spec", {{"maxReplicas", 6}, {"behavior", {{"scaleUp", {{"stabilizationWindowSeconds", 0}}}}}}}};
  const auto comparison = compareFields(before, after, hpaSchema());
  EXPECT_TRUE(comparison.modified.has({"f:spec", "f:maxReplicas"}));
  EXPECT_TRUE(comparison.removed.has({"f:spec", "f:minReplicas"}));
  EXPECT_TRUE(comparison.added.has({"f:spec", "f:behavior", "f:scaleUp", "f:stabilizationWindowSeconds"}));
  EXPECT_TRUE(compareFields(before, before, hpaSchema()).same());
}

TEST(FieldSetTest, MergeAppliedMergesListMapsEntryByEntryAndReplacesAtomicLists) {
  const json live = {{"status",
                      {{"conditions", json::array({{{"type", "A"}, {"status", "True"}, {"reason", "r"}},
                                                   {{"type", "B"}, {"status", "False"}}})}}},
                     {"spec", {{"metrics", json::array({{{"type", "Resource"}}, {{"type", "Pods"}}})}}}};
  const json config = {{"status", {{"conditions", json::array({{{"type", "A"}, {"status", "False"}}})}}},
                       {"spec", {{"metrics", json::array({{{"type", "External"}}})}}}};
  const json merged = mergeApplied(live, config, hpaSchema());
  EXPECT_EQ(merged["status"]["conditions"],
            json::parse(R"([{"type":"A","status":"False","reason":"r"},{"type":"B","status":"False"}])"));
  EXPECT_EQ(merged["spec"]["metrics"], config["spec"]["metrics"]);
}

TEST(FieldSetTest, RemoveFieldFollowsKeysAndValues) {
  json object = json::parse(R"({"metadata":{"finalizers":["a","b"]},
                               "status":{"conditions":[{"type":"A","status":"True"},{"type":"B"}]}})");
  removeField(object, {"f:metadata", "f:finalizers", "v:\"a\""});
  removeField(object, {"f:status", "f:conditions", "k:{\"type\":\"A\"}", "f:status"});
  removeField(object, {"f:status", "f:conditions", "k:{\"type\":\"B\"}"});
  removeField(object, {"f:nothing", "f:here"});
  EXPECT_EQ(object, json::parse(R"({"metadata":{"finalizers":["b"]},"status":{"conditions":[{"type":"A"}]}})"));
}

TEST(FieldSetTest, ListsWithMissingOrRepeatedKeysAreAtomic) {
  const json status = {{"status", {{"conditions", json::array({{{"status", "True"}}, {{"status", "False"}}})}}}};
  EXPECT_TRUE(fieldsOf(status, hpaSchema()).has({"f:status", "f:conditions"}));
  const json repeated = {{"status", {{"conditions", json::array({{{"type", "A"}}, {{"type", "A"}}})}}}};
  EXPECT_TRUE(fieldsOf(repeated, hpaSchema()).has({"f:status", "f:conditions"}));
}

}  // namespace
}  // namespace fedhpa::apiserver
