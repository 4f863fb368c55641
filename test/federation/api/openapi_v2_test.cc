// The /openapi/v2 document kubectl falls back to: every served kind's PATCH operation declares
// fieldValidation (so kubectl trusts the server's validation), and the protobuf encoding carries
// what kubectl reads from it, read back here with a minimal wire-format reader.
#include "federation/api/openapi_v2.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>

#include "federation/api/served_types.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;

// One message's fields: field number -> the length-delimited values (strings and sub-messages) and
// the varints, in order.
struct Fields {
  std::multimap<int, std::string> bytes;
  std::multimap<int, std::uint64_t> varints;
  std::vector<std::string> all(int field) const {
    std::vector<std::string> out;
    for (auto [it, end] = bytes.equal_range(field); it != end; ++it) out.push_back(it->second);
    return out;
  }
  std::string one(int field) const {
    const auto values = all(field);
    return values.empty() ? std::string() : values.front();
  }
};

Fields parse(const std::string& data) {
  Fields fields;
  std::size_t at = 0;
  const auto varint = [&] {
    std::uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= data.size() || shift > 63) throw std::runtime_error("truncated varint");
      const auto byte = static_cast<unsigned char>(data[at++]);
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return value;
    }
  };
  while (at < data.size()) {
    const std::uint64_t tag = varint();
    const int field = static_cast<int>(tag >> 3);
    switch (tag & 7) {
      case 0: fields.varints.emplace(field, varint()); break;
      case 2: {
        const std::uint64_t length = varint();
        if (length > data.size() - at) throw std::runtime_error("truncated field");
        fields.bytes.emplace(field, data.substr(at, length));
        at += length;
        break;
      }
      default: throw std::runtime_error("unexpected wire type");
    }
  }
  return fields;
}

TEST(OpenApiV2, EveryServedKindDeclaresFieldValidationOnPatch) {
  const json document = openApiV2Document(federationResources());
  EXPECT_EQ(document["swagger"], "2.0");
  int patches = 0;
  for (const auto& type : federationResources()) {
    const auto& names = type->names();
    if (std::find(names.verbs.begin(), names.verbs.end(), "patch") == names.verbs.end()) continue;
    for (const auto& version : names.versions) {
      const std::string prefix = names.group.empty() ? "/api/" + version : "/apis/" + names.group + "/" + version;
      const std::string path =
          prefix + (names.namespaced ? "/namespaces/{namespace}/" : "/") + names.resource + "/{name}";
      ASSERT_TRUE(document["paths"].contains(path)) << path;
      const json& patch = document["paths"][path]["patch"];
      EXPECT_EQ(patch["x-kubernetes-group-version-kind"],
                (json{{"group", names.group}, {"version", version}, {"kind", names.kind}}));
      bool fieldValidation = false;
      for (const auto& parameter : patch["parameters"])
        fieldValidation |= parameter["name"] == "fieldValidation" && parameter["in"] == "query";
      EXPECT_TRUE(fieldValidation) << path;
      ++patches;
    }
  }
  EXPECT_GE(patches, 14);  // HPAs in two versions, Deployments, Clusters, Karmada's, RBAC, core
}

TEST(OpenApiV2, ReadOnlyResourcesOfferOnlyTheirVerbs) {
  const json document = openApiV2Document({customResourceDefinitionType()});
  const json& crds = document["paths"]["/apis/apiextensions.k8s.io/v1/customresourcedefinitions"];
  EXPECT_TRUE(crds.contains("get"));
  EXPECT_FALSE(crds.contains("post"));
  EXPECT_FALSE(crds.contains("delete"));
  const json& crd = document["paths"]["/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"];
  EXPECT_TRUE(crd.contains("get"));
  EXPECT_FALSE(crd.contains("patch"));
}

// What kubectl's fallback reads: Document.paths (8) -> NamedPathItem (2) {name 1, PathItem 2};
// PathItem.patch (8) -> Operation {consumes 7, parameters 8, vendor_extension 13}; a query parameter
// is ParametersItem.parameter (1) -> Parameter.non_body_parameter (2) -> query_parameter_sub_schema
// (3) {in 2, name 4}; an extension is NamedAny {name 1, Any 2 {yaml 2}}.
TEST(OpenApiV2, ProtobufCarriesThePatchOperationKubectlReads) {
  const std::string encoded = encodeOpenApiV2(openApiV2Document(federationResources()));
  const Fields document = parse(encoded);
  EXPECT_EQ(document.one(1), "2.0");
  EXPECT_EQ(parse(document.one(2)).one(1), "Kubernetes");
  const std::string wanted = "/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers/{name}";
  std::optional<Fields> patch;
  int paths = 0;
  for (const auto& named : parse(document.one(8)).all(2)) {
    const Fields entry = parse(named);
    ++paths;
    if (entry.one(1) == wanted) patch = parse(parse(entry.one(2)).one(8));
  }
  EXPECT_EQ(paths, static_cast<int>(openApiV2Document(federationResources())["paths"].size()));
  ASSERT_TRUE(patch) << "no PATCH operation at " << wanted;

  std::map<std::string, json> extensions;
  for (const auto& named : patch->all(13)) {
    const Fields extension = parse(named);
    extensions[extension.one(1)] = json::parse(parse(extension.one(2)).one(2));  // JSON is YAML
  }
  EXPECT_EQ(extensions["x-kubernetes-group-version-kind"],
            (json{{"group", "autoscaling"}, {"version", "v2"}, {"kind", "HorizontalPodAutoscaler"}}));
  EXPECT_EQ(extensions["x-kubernetes-action"], "patch");

  std::vector<std::string> queryParameters;
  for (const auto& item : patch->all(8)) {
    const Fields query = parse(parse(parse(parse(item).one(1)).one(2)).one(3));
    EXPECT_EQ(query.one(2), "query");
    queryParameters.push_back(query.one(4));
  }
  EXPECT_THAT(queryParameters, ::testing::Contains("fieldValidation"));
  EXPECT_THAT(patch->all(7), ::testing::Contains("application/strategic-merge-patch+json"));
}

TEST(OpenApiV2, PathParametersAreEncodedAsPathParameters) {
  const json parameters = json::array({{{"name", "name"}, {"in", "path"}, {"required", true}, {"type", "string"}}});
  json document = {{"swagger", "2.0"}};
  document["paths"]["/x/{name}"]["parameters"] = parameters;
  const std::string encoded = encodeOpenApiV2(document);
  const Fields item = parse(parse(parse(parse(encoded).one(8)).one(2)).one(2));
  const Fields pathParameter = parse(parse(parse(item.one(9)).one(1)).one(2));
  const Fields sub = parse(pathParameter.one(4));  // NonBodyParameter.path_parameter_sub_schema
  EXPECT_EQ(sub.one(4), "name");
  EXPECT_EQ(sub.one(5), "string");
  EXPECT_EQ(sub.varints.count(1), 1U);  // required
}

}  // namespace
}  // namespace fedhpa::api
