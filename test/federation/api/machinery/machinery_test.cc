// Patches, selectors and protobuf bodies as kubectl and client libraries send them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/machinery/base64.h"
#include "federation/api/machinery/patch.h"
#include "federation/api/machinery/protobuf.h"
#include "federation/api/machinery/selectors.h"
#include "test/federation/api/machinery/protobuf_fixture.h"

namespace fedhpa::api::machinery {
namespace {

using nlohmann::json;
using fixture::s;
using fixture::v;

const PatchMeta kDeploymentMeta{{{"spec.template.spec.containers", "name"},
                                 {"spec.template.spec.containers.env", "name"},
                                 {"status.conditions", "type"}}};

json deployment() {
  return json::parse(R"({"spec":{"replicas":1,"template":{"spec":{"containers":[
      {"name":"web","image":"nginx:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
      {"name":"sidecar","image":"envoy:1"}]}}}})");
}

TEST(Base64, EncodesWithPaddingAndRecognisesItself) {
  EXPECT_EQ(encodeBase64(""), "");
  EXPECT_EQ(encodeBase64("f"), "Zg==");
  EXPECT_EQ(encodeBase64("fo"), "Zm8=");
  EXPECT_EQ(encodeBase64("foo"), "Zm9v");
  EXPECT_EQ(encodeBase64(std::string("\xff\x00", 2)), "/wA=");
  EXPECT_TRUE(isBase64("Zm8="));
  EXPECT_FALSE(isBase64("Zm8"));
  EXPECT_FALSE(isBase64("Z=m8"));
  EXPECT_FALSE(isBase64("not base64!!"));
  EXPECT_EQ(decodeBase64("Zm9v\nYmFy"), "foobar");
  EXPECT_EQ(decodeBase64(encodeBase64(std::string("\x00\xff\x10", 3))), std::string("\x00\xff\x10", 3));
  EXPECT_FALSE(decodeBase64("no!"));
}

TEST(Base64, UrlFormWithoutPaddingAsJwtsWriteIt) {
  EXPECT_EQ(encodeBase64Url(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(encodeBase64Url("f"), "Zg");
  EXPECT_EQ(decodeBase64Url("-_8"), std::string("\xfb\xff", 2));
  EXPECT_EQ(decodeBase64Url(encodeBase64Url(R"({"iat":1})")), R"({"iat":1})");
  EXPECT_FALSE(decodeBase64Url("+/8")) << "the standard alphabet's characters";
  EXPECT_FALSE(decodeBase64Url("Zg==")) << "padding";
  EXPECT_FALSE(decodeBase64Url("Z g"));
  EXPECT_FALSE(decodeBase64Url("Zh")) << "not canonical: the last character's unused bits are set";
}

TEST(StrategicMergePatch, MergesContainersAndEnvByName) {
  const json patched = applyStrategicMergePatch(
      deployment(), json::parse(R"({"spec":{"template":{"spec":{"containers":[
          {"name":"web","image":"nginx:2","env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]}]}}}})"),
      kDeploymentMeta);
  const json& containers = patched["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u) << "sidecar kept";
  EXPECT_EQ(containers[0]["image"], "nginx:2");
  EXPECT_EQ(containers[0]["env"], json::parse(R"([{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}])"));
  EXPECT_EQ(containers[1]["name"], "sidecar");
}

TEST(StrategicMergePatch, DeleteDirectiveRemovesAnElement) {
  const json patched = applyStrategicMergePatch(
      deployment(), json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}})"),
      kDeploymentMeta);
  EXPECT_EQ(patched["spec"]["template"]["spec"]["containers"].size(), 1u);
}

TEST(StrategicMergePatch, ListsWithoutMergeKeyAreReplacedAndNullDeletes) {
  const json hpa = json::parse(R"({"spec":{"minReplicas":1,"maxReplicas":10,"metrics":[{"type":"Resource"},{"type":"Pods"}]}})");
  const json patched = applyStrategicMergePatch(hpa, json::parse(R"({"spec":{"minReplicas":null,"metrics":[{"type":"External"}]}})"), {});
  EXPECT_EQ(patched, json::parse(R"({"spec":{"maxReplicas":10,"metrics":[{"type":"External"}]}})"));
}

TEST(StrategicMergePatch, DirectivesNeverSurviveIntoTheResult) {
  const json patched = applyStrategicMergePatch(
      deployment(),
      json::parse(R"({"spec":{"$retainKeys":["template"],"template":{"spec":{
          "$setElementOrder/containers":[{"name":"sidecar"},{"name":"web"}],
          "containers":[{"name":"web","image":"nginx:3"}]}}}})"),
      kDeploymentMeta);
  EXPECT_FALSE(patched["spec"].contains("replicas")) << "$retainKeys dropped replicas";
  EXPECT_EQ(patched["spec"]["template"]["spec"]["containers"][0]["name"], "sidecar");
  EXPECT_EQ(patched.dump().find('$'), std::string::npos);
  EXPECT_EQ(applyStrategicMergePatch(json::parse(R"({"f":[1,2,3]})"), json::parse(R"({"$deleteFromPrimitiveList/f":[2]})"), {}),
            json::parse(R"({"f":[1,3]})"));
  EXPECT_EQ(applyStrategicMergePatch(deployment(), json::parse(R"({"spec":{"$patch":"replace","replicas":5}})"), {})["spec"],
            json::parse(R"({"replicas":5})"));
  EXPECT_THROW(applyStrategicMergePatch(deployment(), json::parse(R"({"spec":{"$patch":"explode"}})"), {}), PatchError);
}

// Long lists: the merge, the order and the deletions go through indexes, not a scan per element
// (a patch of 60,000 elements took 25 s); what they give is what the element-by-element rules say.
TEST(StrategicMergePatch, LongListsMergeDeleteAndReorderElementByElement) {
  constexpr int kLength = 3000;
  const auto name = [](const char* prefix, int i) { return prefix + std::to_string(i); };
  json original = json::parse(R"({"spec":{"template":{"spec":{"containers":[]}}},"y":[]})");
  json& containers = original["spec"]["template"]["spec"]["containers"];
  for (int i = 0; i < kLength; ++i) containers.push_back({{"name", name("c", i)}, {"image", "old"}});
  json patchContainers = json::array(), order = json::array(), expected = json::array();
  for (int i = 0; i < kLength; ++i) {
    if (i % 3 == 0) patchContainers.push_back({{"name", name("c", i)}, {"$patch", "delete"}});
    if (i % 3 == 1) patchContainers.push_back({{"name", name("c", i)}, {"image", "new"}});
    if (i % 3 == 2) patchContainers.push_back({{"name", name("d", i)}});
  }
  for (int i = kLength - 1; i >= 0; --i) {
    if (i % 3 == 1) expected.push_back({{"name", name("c", i)}, {"image", "new"}});
    if (i % 3 == 2) expected.push_back({{"name", name("c", i)}, {"image", "old"}});
    if (i % 3 == 2) expected.push_back({{"name", name("d", i)}});
  }
  for (const json& container : expected) order.push_back({{"name", container["name"]}});
  json patch = {{"spec", {{"template", {{"spec", {{"containers", patchContainers},
                                                  {"$setElementOrder/containers", order}}}}}}}};
  for (int i = 0; i < 2 * kLength; ++i) original["y"].push_back(i);
  patch["$deleteFromPrimitiveList/y"] = json::array();
  for (int i = 0; i < 2 * kLength; i += 2) patch["$deleteFromPrimitiveList/y"].push_back(i);
  // A list without a merge key ordered by values it does not hold keeps its own order.
  patch["x"] = json::array();
  patch["$setElementOrder/x"] = json::array();
  for (int i = 0; i < kLength; ++i) patch["x"].push_back(i % 2 == 0 ? "a" : "c");
  for (int i = 0; i < kLength; ++i) patch["$setElementOrder/x"].push_back(i % 2 == 0 ? "b" : "c");

  const json patched = applyStrategicMergePatch(original, patch, kDeploymentMeta);
  EXPECT_EQ(patched["spec"]["template"]["spec"]["containers"], expected);
  json odd = json::array();
  for (int i = 1; i < 2 * kLength; i += 2) odd.push_back(i);
  EXPECT_EQ(patched["y"], odd);
  json x = json::array();
  for (int i = 0; i < kLength / 2; ++i) x.push_back("c");
  for (int i = 0; i < kLength / 2; ++i) x.push_back("a");
  EXPECT_EQ(patched["x"], x) << "each wanted value takes one element; the unmatched ones follow";
}

TEST(StrategicMergePatch, AKeyMatchesTheFirstElementNotYetDeletedAndDuplicatesStay) {
  const json original = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"a","image":"1"},{"name":"a","image":"2"},{"name":"b"}]}}}})");
  const json patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"b","$patch":"replace","image":"4"},{"name":"a","$patch":"delete"},{"name":"a","image":"3"}],
      "$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}}}})");
  EXPECT_EQ(applyStrategicMergePatch(original, patch, kDeploymentMeta)["spec"]["template"]["spec"]["containers"],
            json::parse(R"([{"name":"b","image":"4"},{"name":"a","image":"3"}])"));
}

TEST(MergeAndJsonPatch, FollowTheRfcs) {
  EXPECT_EQ(applyMergePatch(json::parse(R"({"a":"b","c":{"d":"e","f":"g"}})"), json::parse(R"({"a":"z","c":{"f":null}})")),
            json::parse(R"({"a":"z","c":{"d":"e"}})"));
  EXPECT_EQ(applyJsonPatch(json::parse(R"({"spec":{"maxReplicas":10}})"),
                           json::parse(R"([{"op":"replace","path":"/spec/maxReplicas","value":14},{"op":"add","path":"/spec/m~1x","value":1}])")),
            json::parse(R"({"spec":{"maxReplicas":14,"m/x":1}})"));
  EXPECT_THROW(applyJsonPatch(json::object(), json::parse(R"([{"op":"remove","path":"/nope"}])")), PatchError);
  EXPECT_THROW(applyJsonPatch(json::object(), json::parse(R"([{"op":"test","path":"","value":1}])")), PatchError);
  EXPECT_THROW(applyJsonPatch(json::object(), json::parse(R"({"op":"add"})")), PatchError);
  // What copies add counts against the limit, as the JSON of each value copied.
  const json copyTwice = json::parse(R"([{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}])");
  EXPECT_EQ(applyJsonPatch(json::parse(R"({"a":"xy"})"), copyTwice, 8), json::parse(R"({"a":"xy","b":"xy","c":"xy"})"));
  EXPECT_THROW(applyJsonPatch(json::parse(R"({"a":"xyz"})"), copyTwice, 8), PatchError);
}

// The patch a controller sends to make a member's spec what it wants, whatever else the spec held:
// applied to the original it gives exactly the modified object.
TEST(MergeAndJsonPatch, CreatedMergePatchTurnsTheOriginalIntoTheModified) {
  const json original = json::parse(R"({"min":1,"max":4,"behavior":{"up":{"w":0},"down":{"w":300}},"metrics":[{"t":"cpu"}]})");
  const json modified = json::parse(R"({"min":1,"max":6,"behavior":{"down":{"w":300}},"metrics":[{"t":"cpu"},{"t":"mem"}],"new":{"a":1}})");
  const json patch = createMergePatch(original, modified);
  EXPECT_EQ(patch, json::parse(R"({"max":6,"behavior":{"up":null},"metrics":[{"t":"cpu"},{"t":"mem"}],"new":{"a":1}})"));
  EXPECT_EQ(applyMergePatch(original, patch), modified);
  EXPECT_EQ(createMergePatch(original, original), json::object());
  EXPECT_EQ(createMergePatch(json::parse(R"({"a":{"b":1}})"), json::parse(R"({"a":5})")), json::parse(R"({"a":5})"));
}

TEST(LabelSelector, ParsesEveryOperator) {
  const auto selector = LabelSelector::parse("tier=web, env!=prod,zone in (a, b),track notin (canary),app,!legacy");
  EXPECT_TRUE(selector.matches({{"tier", "web"}, {"env", "dev"}, {"zone", "b"}, {"app", "x"}}));
  EXPECT_FALSE(selector.matches({{"tier", "web"}, {"env", "prod"}, {"zone", "b"}, {"app", "x"}}));
  EXPECT_FALSE(selector.matches({{"tier", "web"}, {"zone", "c"}, {"app", "x"}}));
  EXPECT_FALSE(selector.matches({{"tier", "web"}, {"zone", "a"}, {"app", "x"}, {"legacy", "1"}}));
  EXPECT_FALSE(selector.matches({{"tier", "web"}, {"zone", "a"}, {"app", "x"}, {"track", "canary"}}));
  EXPECT_TRUE(LabelSelector::parse("").matches({}));
  EXPECT_TRUE(LabelSelector::parse("a==b").matches({{"a", "b"}}));
}

TEST(LabelSelector, RejectsMalformedInput) {
  EXPECT_THROW(LabelSelector::parse("a in (b"), SelectorError);
  EXPECT_THROW(LabelSelector::parse("a in ()"), SelectorError);
  EXPECT_THROW(LabelSelector::parse("a,,b"), SelectorError);
  EXPECT_THROW(LabelSelector::parse("bad key=x"), SelectorError);
}

TEST(LabelSelector, FromMetaV1Json) {
  const auto selector = LabelSelector::fromJson(json::parse(
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},{"key":"x","operator":"DoesNotExist"}]})"));
  EXPECT_TRUE(selector.matches({{"app", "web"}, {"tier", "a"}}));
  EXPECT_FALSE(selector.matches({{"app", "web"}, {"tier", "a"}, {"x", "1"}}));
  EXPECT_THROW(LabelSelector::fromJson(json::parse(R"({"matchExpressions":[{"key":"k","operator":"Near"}]})")), SelectorError);
  // A key or operator of another JSON type threw json's type_error, which crashed selector_fuzz
  // (the input is in test/fuzz/corpus/selector_fuzz/match-expression-operator-not-a-string).
  EXPECT_THROW(LabelSelector::fromJson(json::parse(R"({"matchExpressions":[{"key":"a","operator":1}]})")), SelectorError);
  EXPECT_THROW(LabelSelector::fromJson(json::parse(R"({"matchExpressions":[{"key":[],"operator":"Exists"}]})")), SelectorError);
}

TEST(FieldSelector, MatchesEscapesAndListsFields) {
  const auto selector = FieldSelector::parse("involvedObject.name=php-apache,involvedObject.kind!=Pod,reason==a\\,b");
  EXPECT_THAT(selector.fields(), ::testing::ElementsAre("involvedObject.name", "involvedObject.kind", "reason"));
  const std::map<std::string, std::string> event = {
      {"involvedObject.name", "php-apache"}, {"involvedObject.kind", "HorizontalPodAutoscaler"}, {"reason", "a,b"}};
  auto lookup = [&](const std::string& field) -> std::optional<std::string> {
    const auto it = event.find(field);
    return it == event.end() ? std::nullopt : std::optional(it->second);
  };
  EXPECT_TRUE(selector.matches(lookup));
  EXPECT_FALSE(FieldSelector::parse("involvedObject.name=other").matches(lookup));
  EXPECT_TRUE(FieldSelector::parse("metadata.namespace=").fields().size() == 1);
  EXPECT_THROW(FieldSelector::parse("nooperator"), SelectorError);
  EXPECT_THROW(FieldSelector::parse("a=b\\x"), SelectorError);
}

std::string fromHex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// kubectl 1.32 `autoscale deployment php-apache --min=1 --max=10 --cpu-percent=50`, verbatim.
const std::string kAutoscaleBody = fromHex(
    "6b3873000a290a0e6175746f7363616c696e672f76311217486f72697a6f6e74616c506f644175746f7363616c6572124d"
    "0a1a0a0a7068702d61706163686512001a0022002a0032003800420012290a210a0a4465706c6f796d656e74120a7068702d"
    "6170616368651a07617070732f76311001180a20321a04180020001a002200");

TEST(KubernetesProtobuf, DecodesKubectlAutoscale) {
  EXPECT_EQ(decodeKubernetesProtobuf(kAutoscaleBody), json::parse(R"({
      "apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"php-apache"},
      "spec":{"scaleTargetRef":{"kind":"Deployment","name":"php-apache","apiVersion":"apps/v1"},
              "minReplicas":1,"maxReplicas":10,"targetCPUUtilizationPercentage":50},
      "status":{"currentReplicas":0,"desiredReplicas":0}})"))
      << "v1 status is a struct whose two counts encoding/json always writes: kubectl's JSON would hold them too";
}

TEST(KubernetesProtobuf, DecodesV2MetricsAndBehavior) {
  const std::string target = s(1, "Utilization") + v(4, 60);
  const std::string metric = s(1, "Resource") + s(4, s(1, "cpu") + s(2, target));
  const std::string policy = s(1, "Pods") + v(2, 4) + v(3, 15);
  // HPAScalingRules: selectPolicy 1, policies 2, stabilizationWindowSeconds 3.
  const std::string behavior = s(2, s(1, "Max") + s(2, policy) + v(3, 300));
  const std::string spec = s(1, s(1, "Deployment") + s(2, "web")) + v(3, 7) +
                           s(4, metric) + s(5, behavior);
  const std::string meta = s(1, "web") + s(11, s(1, "app") + s(2, "web"));
  const std::string raw = s(1, meta) + s(2, spec) + s(99, "future field");
  const std::string body = std::string("k8s\0", 4) +
                           s(1, s(1, "autoscaling/v2") + s(2, "HorizontalPodAutoscaler")) +
                           s(2, raw);
  const json decoded = decodeKubernetesProtobuf(body);
  EXPECT_EQ(decoded["metadata"]["labels"]["app"], "web");
  EXPECT_EQ(decoded["spec"]["maxReplicas"], 7);
  EXPECT_FALSE(decoded["spec"].contains("minReplicas")) << "absent fields stay absent";
  EXPECT_EQ(decoded["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 60);
  EXPECT_EQ(decoded["spec"]["behavior"]["scaleDown"]["policies"][0]["value"], 4);
  EXPECT_EQ(decoded["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 300);
}

TEST(KubernetesProtobuf, DecodesASecretAsKubectlCreateSecretSendsIt) {
  const std::string dataEntry = s(1, "kubeconfig") + s(2, "apiVersion");
  const std::string raw = s(1, s(1, "member1") + s(3, "")) + s(2, dataEntry) +
                          s(3, "Opaque");
  const std::string body = std::string("k8s\0", 4) + s(1, s(1, "v1") + s(2, "Secret")) +
                           s(2, raw);
  EXPECT_EQ(decodeKubernetesProtobuf(body), json::parse(R"({"apiVersion":"v1","kind":"Secret",
      "metadata":{"name":"member1"},"data":{"kubeconfig":"YXBpVmVyc2lvbg=="},"type":"Opaque"})"));
}

TEST(KubernetesProtobuf, EveryTruncationIsAnErrorNotACrash) {
  for (std::size_t length = 0; length < kAutoscaleBody.size(); ++length) {
    try {
      decodeKubernetesProtobuf(kAutoscaleBody.substr(0, length));
    } catch (const ProtobufError&) {
    }
  }
  EXPECT_THROW(decodeKubernetesProtobuf("{\"json\":true}"), ProtobufError);
  EXPECT_THROW(decodeKubernetesProtobuf(std::string("k8s\0\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 15)), ProtobufError);
}

}  // namespace
}  // namespace fedhpa::api::machinery
