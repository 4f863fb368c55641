// What `kubectl explain` reads: the descriptions the served types' schemas carry into the OpenAPI v3
// documents, for the type and for every field of every served type and version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/openapi.h"
#include "federation/api/schema.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

void collectUndescribed(const json& schema, const std::string& path, std::vector<std::string>& out) {
  if (schema.contains("items")) collectUndescribed(schema["items"], path + "[]", out);
  if (schema.contains("additionalProperties")) collectUndescribed(schema["additionalProperties"], path + "{}", out);
  if (!schema.contains("properties")) return;
  for (const auto& [name, field] : schema["properties"].items()) {
    const std::string fieldPath = path.empty() ? name : path + "." + name;
    if (field.value("description", "").empty()) out.push_back(fieldPath);
    collectUndescribed(field, fieldPath, out);
  }
}

// "spec.maxReplicas", "spec.metrics[].type": the fields of an OpenAPI schema that kubectl explain
// would show without a description ("(type)" when the type itself has none).
std::vector<std::string> undescribedFields(const json& schema) {
  std::vector<std::string> out;
  if (schema.value("description", "").empty()) out.push_back("(type)");
  collectUndescribed(schema, "", out);
  return out;
}

json componentSchema(const std::string& documentPath, const std::string& name) {
  const auto document = openApiDocument(federationResources(), documentPath);
  if (!document) return nullptr;
  return (*document)["components"]["schemas"].value(name, json());
}

TEST(Schema, DescriptionsReachOpenApiOnTheTypeAndEveryProperty) {
  const Schema schema =
      Schema::object({{"limits", Schema::arrayOf(Schema::object({{"max", Schema::integer().describe("Largest.")}}))
                                     .describe("Bounds.")},
                      {"tags", Schema::mapOf(Schema::string()).describe("Labels.")}})
          .describe("A thing.");
  const json openApi = toOpenApi(schema);
  EXPECT_EQ(openApi["description"], "A thing.");
  EXPECT_EQ(openApi["properties"]["limits"]["description"], "Bounds.");
  EXPECT_EQ(openApi["properties"]["limits"]["items"]["properties"]["max"]["description"], "Largest.");
  EXPECT_EQ(openApi["properties"]["tags"]["description"], "Labels.");
  EXPECT_THAT(undescribedFields(openApi), IsEmpty());
}

TEST(Schema, UndescribedFieldsAreFoundAtAnyDepth) {
  const Schema schema = Schema::object(
      {{"spec", Schema::object({{"metrics", Schema::arrayOf(Schema::object({{"type", Schema::string()}})).describe("M.")},
                                {"labels", Schema::mapOf(Schema::object({{"value", Schema::string()}})).describe("L.")}})
                    .describe("S.")},
       {"status", Schema::any()}});
  const json openApi = toOpenApi(schema);
  EXPECT_FALSE(openApi["properties"]["status"].contains("description"));
  EXPECT_THAT(undescribedFields(openApi), ElementsAre("(type)", "spec.labels{}.value", "spec.metrics[].type", "status"));
}

// Every field of every type the federation API server serves (and the member-sim, which serves the
// same types but Clusters), in every served version: a new field cannot ship undescribed.
TEST(OpenApi, EveryFieldOfEveryServedTypeIsDescribed) {
  int checked = 0;
  for (const auto& type : federationResources())
    for (const auto& version : type->names().versions) {
      const json schema = type->openApiSchema(version);
      EXPECT_THAT(undescribedFields(schema), IsEmpty()) << type->names().apiVersion(version) << " " << type->names().kind;
      ++checked;
    }
  EXPECT_GE(checked, 18);  // 17 types today, HPAs in two versions
}

TEST(OpenApi, ServedDocumentsCarryTheDescriptionsKubectlExplainPrints) {
  const json hpa = componentSchema("apis/autoscaling/v2", "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler");
  ASSERT_TRUE(hpa.is_object());
  EXPECT_THAT(hpa.value("description", ""), HasSubstr("federated HPA"));
  EXPECT_THAT(hpa["properties"]["spec"]["properties"]["maxReplicas"].value("description", ""),
              HasSubstr("summed over the member clusters"));
  EXPECT_THAT(hpa["properties"]["metadata"]["properties"]["annotations"].value("description", ""),
              HasSubstr("federation.kubernetes.io/hpa-preferences"));

  const json v1 = componentSchema("apis/autoscaling/v1", "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler");
  ASSERT_TRUE(v1.is_object());
  EXPECT_THAT(v1["properties"]["spec"]["properties"]["targetCPUUtilizationPercentage"].value("description", ""),
              HasSubstr("CPU utilization"));

  // Karmada's FederatedHPA has the HPA's fields, described as fedhpa treats them there.
  const json fhpa =
      componentSchema("apis/autoscaling.karmada.io/v1alpha1", "io.k8s.api.autoscaling.karmada.io.v1alpha1.FederatedHPA");
  ASSERT_TRUE(fhpa.is_object());
  EXPECT_THAT(fhpa.value("description", ""), HasSubstr("owns a federated autoscaling/v2 HPA"));
  EXPECT_THAT(fhpa["properties"]["spec"]["properties"]["scaleTargetRef"].value("description", ""), HasSubstr("TargetConflict"));
  EXPECT_TRUE(fhpa["properties"]["spec"].value("x-kubernetes-preserve-unknown-fields", false));

  const json cluster = componentSchema("apis/federation/v1beta1", "io.k8s.api.federation.v1beta1.Cluster");
  ASSERT_TRUE(cluster.is_object());
  EXPECT_THAT(cluster["properties"]["spec"]["properties"]["secretRef"].value("description", ""), HasSubstr("kubeconfig"));
}

}  // namespace
}  // namespace fedhpa::api
