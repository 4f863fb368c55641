#include "federation/api/machinery/yaml_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fedhpa::api::machinery {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const YamlLimits kLimits{512, 1024 * 1024};

json one(const std::string& yaml) {
  const auto documents = yamlToJsonDocuments(yaml, kLimits);
  EXPECT_EQ(documents.size(), 1u);
  return json::parse(documents.at(0));
}

TEST(YamlToJson, AManifestBecomesTheJsonKubectlWouldSend) {
  const json hpa = one(R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: php-apache
  labels: {app: "web", "tier": backend}
spec:
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)");
  EXPECT_EQ(hpa["metadata"]["labels"], (json{{"app", "web"}, {"tier", "backend"}}));
  EXPECT_EQ(hpa["spec"]["maxReplicas"], 10);
  EXPECT_EQ(hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 50);
}

TEST(YamlToJson, PlainScalarsTakeYaml11TypesAndQuotedOnesStayStrings) {
  const json value = one("a: yes\nb: 'yes'\nc: ~\nd: .5\ne: 1e3\nf: \"10\"\ng: !!str 10\nh: 007x\ni: |\n  text\n");
  EXPECT_EQ(value["a"], true);
  EXPECT_EQ(value["b"], "yes");
  EXPECT_TRUE(value["c"].is_null());
  EXPECT_EQ(value["d"], 0.5);
  EXPECT_EQ(value["e"], 1000.0);
  EXPECT_EQ(value["f"], "10");
  EXPECT_EQ(value["g"], "10");
  EXPECT_EQ(value["h"], "007x");
  EXPECT_EQ(value["i"], "text\n");
}

// Found by kubeconfig_fuzz: a number beyond a double's range made JSON that nothing could parse.
TEST(YamlToJson, NumbersBeyondADoubleStayStringsAndTheRestParse) {
  const json value = one("big: 666666666E66666666666\ntiny: 1e-99999\nlong: 99999999999999999999\nneg: -1e400\n");
  EXPECT_EQ(value["big"], "666666666E66666666666");
  EXPECT_EQ(value["neg"], "-1e400");
  EXPECT_TRUE(value["tiny"].is_number());
  EXPECT_TRUE(value["long"].is_number());
}

TEST(YamlToJson, KeysAreStringsWhateverTheyLookLike) {
  EXPECT_EQ(one("1: a\ntrue: b\n"), (json{{"1", "a"}, {"true", "b"}}));
  EXPECT_THROW(yamlToJsonDocuments("? [a]\n: b\n", kLimits), YamlError);
  EXPECT_THROW(yamlToJsonDocuments("? {a: 1}\n: b\n", kLimits), YamlError);
}

TEST(YamlToJson, AliasesRepeatTheirAnchorsNode) {
  EXPECT_EQ(one("base: &b {x: 1}\ncopy: *b\nname: &n web\nalso: *n\n"),
            (json{{"base", {{"x", 1}}}, {"copy", {{"x", 1}}}, {"name", "web"}, {"also", "web"}}));
  EXPECT_THROW(yamlToJsonDocuments("a: *missing\n", kLimits), YamlError);
}

TEST(YamlToJson, EveryDocumentOfAStream) {
  const auto documents = yamlToJsonDocuments("a: 1\n---\n- 2\n---\n", kLimits);
  ASSERT_EQ(documents.size(), 3u);
  EXPECT_EQ(json::parse(documents[0]), (json{{"a", 1}}));
  EXPECT_EQ(json::parse(documents[1]), json::array({2}));
  EXPECT_TRUE(json::parse(documents[2]).is_null());
  EXPECT_TRUE(yamlToJsonDocuments("", kLimits).empty());
}

TEST(YamlToJson, HostileYamlIsRefusedWithinItsLimits) {
  // A billion laughs: nine levels of ten aliases each.
  std::string laughs = "a0: &a0 [lol]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string previous = "*a" + std::to_string(level - 1);
    laughs += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) laughs += (i ? "," : "") + previous;
    laughs += "]\n";
  }
  try {
    yamlToJsonDocuments(laughs, kLimits);
    FAIL() << "the laughs were expanded";
  } catch (const YamlError& error) {
    EXPECT_THAT(error.what(), HasSubstr("expands"));
  }
  EXPECT_THROW(yamlToJsonDocuments(std::string(100000, '[') + std::string(100000, ']'), kLimits), YamlError);
  EXPECT_THROW(yamlToJsonDocuments("a: \xff\xfe\n", kLimits), YamlError);
  EXPECT_THROW(yamlToJsonDocuments("metadata: [unclosed", kLimits), YamlError);
}

// Found by the HTTP fuzz harness: a malformed flow mapping on which yaml-cpp 0.7 (the parser
// before libyaml) looped for ever, allocating without bound.
TEST(YamlToJson, AMalformedFlowMappingEndsWithAnError) {
  const std::string body =
      R"({"apiVersion":"aut&resourceVersionMatch=NotOlderThanAutoscaler","metadata":{"name":"fz","lme":"fz","labels":{"app":"web"}},"spabels":{"app":"web"}},"spec":{"scaleTargeTRef":{"apiVersion":"apps/v1","{ind":"'eployment","nade":"web"},"minReplicas":0,"maxReplicas":5,"metrics":[{"type":"Resource","resuroce":{"name":"cpu","varget":{"type":"Utiliz)";
  EXPECT_THROW(yamlToJsonDocuments(body, kLimits), YamlError);
}

}  // namespace
}  // namespace fedhpa::api::machinery
