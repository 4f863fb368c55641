// What a hostile client sends, and what it must get back: kube-apiserver's Status answers (400,
// 422), never a 500, never a dead process. Runs against the federation's resource set and the
// member-sim's (the same library), as `fedhpa apiserver` and `fedhpa member-sim` serve them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "federation/api/machinery/untrusted_json.h"
#include "test/federation/apiserver/http_test_client.h"
#include "test/federation/apiserver/test_api_server.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;
using testing::call;
using testing::HttpReply;
using ::testing::HasSubstr;
using ::testing::Not;

using testing::kHpas;
using testing::kHpasV1;
constexpr const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";

json hpa(const std::string& name) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"maxReplicas", 10}}}};
}

json deployment(const std::string& name) {
  json object = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", name}}}};
  object["spec"]["replicas"] = 1;
  object["spec"]["selector"]["matchLabels"]["app"] = name;
  object["spec"]["template"]["metadata"]["labels"]["app"] = name;
  object["spec"]["template"]["spec"]["containers"] = json::array({{{"name", "c"}, {"image", "nginx"}}});
  return object;
}

std::string nested(std::size_t depth, const std::string& leaf = "1") {
  std::string text;
  text.reserve(depth * 6 + leaf.size());
  for (std::size_t i = 0; i < depth; ++i) text += "{\"a\":";
  text += leaf;
  text.append(depth, '}');
  return text;
}

std::string nestedArray(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A Status answer with this code, whose body is valid JSON (hence valid UTF-8).
void expectStatus(const HttpReply& reply, int code) {
  EXPECT_EQ(reply.status, code) << reply.body.substr(0, 300);
  const json body = json::parse(reply.body, nullptr, false);
  ASSERT_FALSE(body.is_discarded()) << "not JSON: " << reply.body.substr(0, 300);
  EXPECT_EQ(body.value("kind", ""), "Status");
  EXPECT_EQ(body.value("code", 0), code);
  EXPECT_TRUE(api::machinery::isValidUtf8(reply.body));
}

using testing::ResourceSet;

class HostileInputTest : public ::testing::TestWithParam<ResourceSet> {
 protected:
  void expectAlive() {
    const auto health = call(port_, "GET", "/healthz");
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.body, "ok");
  }

  HttpReply post(const std::string& path, const std::string& body) { return call(port_, "POST", path, body); }
  HttpReply patch(const std::string& path, const std::string& type, const std::string& body) {
    return call(port_, "PATCH", path, body, {{"Content-Type", type}});
  }

  testing::TestApiServer server_{GetParam()};
  const std::uint16_t port_ = server_.port();
};

TEST_P(HostileInputTest, PathsThatAreNotUtf8AreBadRequests) {
  for (const std::string path : {"/api/v1/namespaces/\xff", "/\xff", "/api/v1/namespaces/%FF", "/%C3%28",
                                 "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/a\xc0\xaf",
                                 "/apis/\xed\xa0\x80/v1/x", "/api/v1/namespaces/default/secrets/%F4%90%80%80"}) {
    SCOPED_TRACE(path);
    expectStatus(call(port_, "GET", path), 400);
    expectStatus(call(port_, "DELETE", path), 400);
  }
  expectAlive();
}

TEST_P(HostileInputTest, QueryValuesThatAreNotUtf8AreBadRequests) {
  for (const std::string parameter : {"labelSelector", "fieldSelector", "limit", "continue", "resourceVersion",
                                      "timeoutSeconds", "includeObject", "x\xff"}) {
    SCOPED_TRACE(parameter);
    expectStatus(call(port_, "GET", std::string(kHpas) + "?" + parameter + "=%FF"), 400);
    expectStatus(call(port_, "GET", std::string(kHpas) + "?" + parameter + "=a\xfe"), 400);
  }
  for (const std::string parameter : {"dryRun", "fieldValidation"}) {
    SCOPED_TRACE(parameter);
    expectStatus(call(port_, "POST", std::string(kHpas) + "?" + parameter + "=%FF", hpa("q").dump()), 400);
  }
  expectStatus(call(port_, "DELETE", std::string(kHpas) + "/q?propagationPolicy=%FF"), 400);
  expectStatus(call(port_, "GET", std::string(kHpas) + "?watch=true&resourceVersion=%FF"), 400);
  expectAlive();
}

TEST_P(HostileInputTest, JsonStringsThatAreNotUtf8AreBadRequests) {
  std::string body = hpa("u").dump();
  body.replace(body.find("\"u\""), 3, "\"u\xff\"");
  expectStatus(post(kHpas, body), 400);
  std::string label = hpa("u").dump();
  label.replace(label.find("{\"name\""), 1, "{\"labels\":{\"k\":\"\xc3\x28\"},");
  expectStatus(post(kHpas, label), 400);
  expectAlive();
}

// kubectl autoscale's protobuf body (what kubectl 1.32 sends), with bytes that are not UTF-8.
std::string autoscaleBody(const std::string& replaceHex, const std::string& withHex) {
  std::string hex =
      "6b3873000a290a0e6175746f7363616c696e672f76311217486f72697a6f6e74616c506f644175746f7363616c6572124d"
      "0a1a0a0a7068702d61706163686512001a0022002a0032003800420012290a210a0a4465706c6f796d656e74120a7068702d"
      "6170616368651a07617070732f76311001180a20321a04180020001a002200";
  if (!replaceHex.empty()) hex.replace(hex.find(replaceHex), replaceHex.size(), withHex);
  std::string body;
  for (std::size_t i = 0; i < hex.size(); i += 2) body += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return body;
}

TEST_P(HostileInputTest, ProtobufStringsThatAreNotUtf8AreBadRequests) {
  const std::map<std::string, std::string> protobuf = {{"Content-Type", "application/vnd.kubernetes.protobuf"}};
  // the object's name, the scale target's name (the second php-apache), apiVersion, kind
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"0a0a7068702d617061636865", "0a0a7068702d6170616368ff"},
           {"120a7068702d617061636865", "120a7068702d6170616368ff"},
           {"6175746f7363616c696e672f7631", "6175746f7363616c696e672fff"},
           {"4175746f7363616c6572", "4175746f7363616c65ff"}}) {
    SCOPED_TRACE(to);
    expectStatus(call(port_, "POST", kHpasV1, autoscaleBody(from, to), protobuf), 400);
  }
  // a content encoding (field 3 of the envelope) that is not UTF-8
  expectStatus(call(port_, "POST", kHpasV1, autoscaleBody("", "") + std::string("\x1a\x02\xff\xfe", 4), protobuf), 400);
  EXPECT_EQ(call(port_, "POST", kHpasV1, autoscaleBody("", ""), protobuf).status, 201);
  expectAlive();
}

// client-go's scale client (kubectl scale) PUTs an autoscaling/v1 Scale as protobuf: kube answers 200.
TEST_P(HostileInputTest, AProtobufScaleOnTheScaleSubresourceIsAccepted) {
  ASSERT_EQ(post(kDeployments, deployment("s").dump()).status, 201);
  const auto field = [](int number, const std::string& bytes) {
    return std::string(1, static_cast<char>(number << 3 | 2)) + static_cast<char>(bytes.size()) + bytes;
  };
  const std::string scale = field(1, field(1, "s") + field(3, "default")) + field(2, std::string("\x08\x04", 2)) +
                            field(3, std::string("\x08\x01", 2));
  const std::string body = std::string("k8s\0", 4) + field(1, field(1, "autoscaling/v1") + field(2, "Scale")) + field(2, scale);
  const std::map<std::string, std::string> protobuf = {{"Content-Type", "application/vnd.kubernetes.protobuf"}};
  const HttpReply reply = call(port_, "PUT", std::string(kDeployments) + "/s/scale", body, protobuf);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(json::parse(reply.body)["spec"]["replicas"], 4);
  EXPECT_EQ(json::parse(call(port_, "GET", std::string(kDeployments) + "/s").body)["spec"]["replicas"], 4);
  // Another kind's protobuf body on the scale subresource is refused, as kube refuses it.
  const std::string wrongKind = std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, "Namespace")) + field(2, "");
  expectStatus(call(port_, "PUT", std::string(kDeployments) + "/s/scale", wrongKind, protobuf), 400);
  expectAlive();
}

TEST_P(HostileInputTest, DeepNestingIsABadRequestWhereverItIs) {
  for (const std::size_t depth : {std::size_t{100000}, std::size_t{47000}, std::size_t{1000}, api::machinery::kMaxJsonDepth + 1}) {
    SCOPED_TRACE(depth);
    std::string body = hpa("deep").dump();
    body.replace(body.find("{\"name\""), 1, "{\"managedFields\":[" + nested(depth) + "],");
    expectStatus(post(kHpas, body), 400);
    std::string strategy = deployment("deep").dump();
    strategy.replace(strategy.find("{\"replicas\""), 1, "{\"strategy\":" + nested(depth) + ",");
    expectStatus(post(kDeployments, strategy), 400);
    expectStatus(post(kHpas, nestedArray(depth)), 400);
    expectStatus(call(port_, "DELETE", std::string(kHpas) + "/x", nested(depth)), 400);
  }
  expectAlive();
}

TEST_P(HostileInputTest, DeepPatchesAreBadRequests) {
  ASSERT_EQ(post(kHpas, hpa("p").dump()).status, 201);
  ASSERT_EQ(post(kDeployments, deployment("p").dump()).status, 201);
  const std::string item = std::string(kHpas) + "/p";
  for (const std::size_t depth : {std::size_t{100000}, std::size_t{1000}}) {
    SCOPED_TRACE(depth);
    const std::string value = nested(depth);
    expectStatus(patch(item, "application/merge-patch+json", "{\"spec\":{\"behavior\":" + value + "}}"), 400);
    expectStatus(patch(item, "application/strategic-merge-patch+json", "{\"metadata\":{\"x\":" + value + "}}"), 400);
    expectStatus(patch(item, "application/json-patch+json",
                       "[{\"op\":\"add\",\"path\":\"/spec/behavior\",\"value\":" + value + "}]"), 400);
    expectStatus(patch(std::string(kDeployments) + "/p/scale", "application/merge-patch+json",
                       "{\"spec\":" + value + "}"), 400);
    expectStatus(call(port_, "PUT", std::string(kDeployments) + "/p/scale", "{\"spec\":" + value + "}"), 400);
  }
  expectAlive();
}

TEST_P(HostileInputTest, DeepJsonInAV1AnnotationIsIgnoredAsKubeDoes) {
  // kube-apiserver's v1 conversion ignores a behavior/metrics annotation it cannot decode.
  for (const char* annotation : {"autoscaling.alpha.kubernetes.io/behavior", "autoscaling.alpha.kubernetes.io/metrics"}) {
    SCOPED_TRACE(annotation);
    for (const std::size_t depth : {std::size_t{100000}, std::size_t{1000}}) {
      json body = hpa("ann");
      body["apiVersion"] = "autoscaling/v1";
      body["metadata"]["annotations"][annotation] = nested(depth);
      const auto reply = post(kHpasV1, body.dump());
      ASSERT_EQ(reply.status, 201) << reply.body.substr(0, 300);
      EXPECT_FALSE(reply.json()["spec"].contains("behavior"));
      const auto v2 = call(port_, "GET", std::string(kHpas) + "/ann");
      EXPECT_FALSE(v2.json()["spec"].contains("behavior"));
      // The metrics are what the same HPA without the annotation gets (the API's defaults).
      json plain = hpa("plain");
      plain["apiVersion"] = "autoscaling/v1";
      ASSERT_EQ(post(kHpasV1, plain.dump()).status, 201);
      EXPECT_EQ(v2.json()["spec"].value("metrics", json()), call(port_, "GET", std::string(kHpas) + "/plain").json()["spec"].value("metrics", json()));
      EXPECT_EQ(call(port_, "DELETE", std::string(kHpas) + "/plain").status, 200);
      EXPECT_EQ(call(port_, "DELETE", std::string(kHpas) + "/ann").status, 200);
    }
  }
  expectAlive();
}

TEST_P(HostileInputTest, NullsAndWrongShapesAreClientErrorsNot500) {
  for (const char* field : {"apiVersion", "kind", "metadata"}) {
    json body = hpa("n");
    body[field] = nullptr;
    const auto reply = post(kHpas, body.dump());
    EXPECT_TRUE(reply.status == 201 || reply.status == 400 || reply.status == 422) << field << ": " << reply.body;
    call(port_, "DELETE", std::string(kHpas) + "/n");
  }
  json noRef = hpa("n");
  noRef["spec"]["scaleTargetRef"] = nullptr;
  expectStatus(post(kHpas, noRef.dump()), 422);
  json numberVersion = hpa("n");
  numberVersion["apiVersion"] = 2;
  expectStatus(post(kHpas, numberVersion.dump()), 400);

  ASSERT_EQ(post(kHpas, hpa("s").dump()).status, 201);
  const std::string item = std::string(kHpas) + "/s";
  for (const char* body : {R"({"$patch":"replace"})", R"({"$patch":"delete"})", R"({"spec":{"$patch":"replace"}})",
                           R"({"spec":{"metrics":[{"$patch":"delete"}]}})", R"({"metadata":{"$patch":"replace"}})"}) {
    SCOPED_TRACE(body);
    const auto reply = patch(item, "application/strategic-merge-patch+json", body);
    EXPECT_LT(reply.status, 500) << reply.body;
    if (reply.status >= 400) expectStatus(reply, reply.status);
  }
  for (const char* body : {R"([{"op":"replace","path":"/spec","value":5}])", R"([{"op":"remove","path":"/spec"}])",
                           R"([{"op":"test","path":"/spec/replicas","value":"x"}])", R"([{"op":"move"}])", R"(5)",
                           R"([1,2,3])", R"([{"op":"add","path":"/spec/replicas","value":"3"}])"}) {
    SCOPED_TRACE(body);
    ASSERT_EQ(post(kDeployments, deployment("sc").dump()).status, 201);
    const auto reply = patch(std::string(kDeployments) + "/sc/scale", "application/json-patch+json", body);
    EXPECT_GE(reply.status, 400);
    EXPECT_LT(reply.status, 500);
    expectStatus(reply, reply.status);
    call(port_, "DELETE", std::string(kDeployments) + "/sc");
  }

  json v1 = hpa("m");
  v1["apiVersion"] = "autoscaling/v1";
  v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"] = "[1,2,3]";
  const auto metrics = post(kHpasV1, v1.dump());
  EXPECT_TRUE(metrics.status == 201 || metrics.status == 400) << metrics.body;
  v1["metadata"]["name"] = "b";
  v1["metadata"]["annotations"] = {{"autoscaling.alpha.kubernetes.io/behavior", R"({"scaleUp":{"policies":7}})"}};
  const auto behavior = post(kHpasV1, v1.dump());
  EXPECT_TRUE(behavior.status == 201 || behavior.status == 400) << behavior.body;

  ASSERT_EQ(post(kHpas, hpa("d").dump()).status, 201);
  expectStatus(call(port_, "DELETE", std::string(kHpas) + "/d", R"({"propagationPolicy":123})"), 400);
  expectStatus(call(port_, "DELETE", std::string(kHpas) + "/d", R"({"orphanDependents":"yes"})"), 400);
  expectStatus(call(port_, "DELETE", std::string(kHpas) + "/d", R"({"preconditions":{"uid":7}})"), 400);
  EXPECT_EQ(call(port_, "DELETE", std::string(kHpas) + "/d", R"({"propagationPolicy":null})").status, 200);
  expectAlive();
}

TEST_P(HostileInputTest, MetricsLabelsComeFromAClosedSet) {
  expectStatus(call(port_, "GET", "/x%0Ainjected_metric_total%201%0A"), 404);
  expectStatus(call(port_, "GET", "/apis/autoscaling/v2/namespaces/default/x%0Ainjected_metric_total%201%0A"), 404);
  EXPECT_EQ(call(port_, "FOO\"", "/metrics").status, 400);
  const std::string before = call(port_, "GET", "/metrics").body;
  EXPECT_THAT(before, Not(HasSubstr("\ninjected_metric_total")));
  EXPECT_THAT(before, Not(HasSubstr("x\ninjected")));
  for (int i = 0; i < 5000; ++i) {
    call(port_, "GET", "/no/such/path/" + std::to_string(i));
    if (i % 5 == 0) call(port_, "GET", "/apis/g" + std::to_string(i) + "/v1/namespaces/default/things" + std::to_string(i));
  }
  const std::string after = call(port_, "GET", "/metrics").body;
  // Two new series at most (404 for GET and for list on unknown resources), whatever the paths.
  EXPECT_LT(after.size(), before.size() + 4096) << after.size() - before.size() << " bytes more";
  EXPECT_THAT(after, Not(HasSubstr("/no/such/path")));
  expectAlive();
}

TEST_P(HostileInputTest, ListOptionsAreValidatedAsKubeDoes) {
  ASSERT_EQ(post(kHpas, hpa("l").dump()).status, 201);
  const std::string current = call(port_, "GET", kHpas).json()["metadata"]["resourceVersion"];
  for (const std::string rv : {"abc", "-1", "1.5", "99999999999999999999", "0x10", "%201", "%2B1"}) {
    SCOPED_TRACE(rv);
    const auto list = call(port_, "GET", std::string(kHpas) + "?resourceVersion=" + rv);
    expectStatus(list, 400);
    EXPECT_THAT(list.json()["message"].get<std::string>(), HasSubstr("invalid resource version"));
    // A watch's error comes before any stream: a 400, not an empty 200 that closes.
    expectStatus(call(port_, "GET", std::string(kHpas) + "?watch=true&resourceVersion=" + rv), 400);
  }
  EXPECT_EQ(call(port_, "GET", std::string(kHpas) + "?resourceVersion=0").status, 200);
  EXPECT_EQ(call(port_, "GET", std::string(kHpas) + "?resourceVersion=" + current).status, 200);
  const auto future = call(port_, "GET", std::string(kHpas) + "?resourceVersion=99999999999");
  expectStatus(future, 504);
  EXPECT_EQ(future.json()["reason"], "Timeout");
  EXPECT_THAT(future.json()["message"].get<std::string>(), HasSubstr("Too large resource version"));

  for (const std::string query : {"resourceVersionMatch=Exact", "resourceVersionMatch=garbage&resourceVersion=0",
                                  "resourceVersionMatch=Exact&resourceVersion=0", "sendInitialEvents=true",
                                  "watch=true&sendInitialEvents=true", "watch=true&resourceVersionMatch=NotOlderThan"}) {
    SCOPED_TRACE(query);
    const auto reply = call(port_, "GET", std::string(kHpas) + "?" + query);
    expectStatus(reply, 422);
    EXPECT_EQ(reply.json()["details"]["kind"], "ListOptions");
    EXPECT_EQ(reply.json()["details"]["group"], "meta.k8s.io");
  }
  EXPECT_EQ(call(port_, "GET", std::string(kHpas) + "?resourceVersionMatch=NotOlderThan&resourceVersion=" + current).status, 200);
  EXPECT_EQ(call(port_, "GET", std::string(kHpas) + "?resourceVersionMatch=Exact&resourceVersion=" + current).status, 200);

  expectStatus(call(port_, "GET", std::string(kHpas) + "?watch=true&timeoutSeconds=abc"), 400);
  expectStatus(call(port_, "GET", std::string(kHpas) + "?watch=true&timeoutSeconds=1x"), 400);
  // A negative timeout ends the watch at once, as kube-apiserver's timer fires at once.
  const auto started = std::chrono::steady_clock::now();
  testing::WatchConnection watch(port_, std::string(kHpas) + "?watch=true&timeoutSeconds=-1&resourceVersion=" + current);
  EXPECT_EQ(watch.status(), 200);
  EXPECT_FALSE(watch.next().has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  expectAlive();
}

TEST_P(HostileInputTest, AWatchTimeoutBeyondTheClocksRangeKeepsTheWatchOpen) {
  const std::string current = call(port_, "GET", kHpas).json()["metadata"]["resourceVersion"];
  // In nanoseconds past now, each of these overflows the clock: the watch would end at once.
  testing::WatchConnection longest(port_, std::string(kHpas) + "?watch=true&timeoutSeconds=9223372036&resourceVersion=" + current);
  testing::WatchConnection largest(
      port_, std::string(kHpas) + "?watch=true&timeoutSeconds=9223372036854775807&resourceVersion=" + current);
  testing::WatchConnection smallest(
      port_, std::string(kHpas) + "?watch=true&timeoutSeconds=-9223372036854775808&resourceVersion=" + current);
  EXPECT_EQ(longest.status(), 200);
  EXPECT_EQ(largest.status(), 200);
  EXPECT_EQ(smallest.status(), 200);
  EXPECT_FALSE(smallest.next().has_value()) << "a negative timeout still ends the watch at once";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // past the sessions' next tick
  ASSERT_EQ(post(kHpas, hpa("after-a-tick").dump()).status, 201);
  for (testing::WatchConnection* watch : {&longest, &largest}) {
    const auto event = watch->next();
    ASSERT_TRUE(event.has_value()) << "the watch ended";
    EXPECT_EQ((*event)["type"], "ADDED");
  }
  expectAlive();
}

TEST_P(HostileInputTest, IntegersAreGoInt32sAsKubeDecodesThem) {
  for (const char* value : {"2147483648", "9223372036854775807", "18446744073709551615", "-2147483649", "5.0", "1e3",
                            "1e300"}) {
    SCOPED_TRACE(value);
    std::string body = hpa("i").dump();
    body.replace(body.find("\"maxReplicas\":10"), 16, std::string("\"maxReplicas\":") + value);
    expectStatus(post(kHpas, body), 400);
    json v1 = hpa("i");
    v1["apiVersion"] = "autoscaling/v1";
    std::string v1Body = v1.dump();
    v1Body.replace(v1Body.find("\"maxReplicas\":10"), 16, std::string("\"maxReplicas\":") + value);
    expectStatus(post(kHpasV1, v1Body), 400);
    std::string replicas = deployment("i").dump();
    replicas.replace(replicas.find("\"replicas\":1"), 12, std::string("\"replicas\":") + value);
    expectStatus(post(kDeployments, replicas), 400);
  }
  std::string largest = hpa("i").dump();
  largest.replace(largest.find("\"maxReplicas\":10"), 16, "\"maxReplicas\":2147483647");
  EXPECT_EQ(post(kHpas, largest).status, 201);
  // generation-like fields are int64s
  ASSERT_EQ(post(kDeployments, deployment("g").dump()).status, 201);
  const auto wide = patch(std::string(kDeployments) + "/g/status", "application/merge-patch+json",
                          R"({"status":{"observedGeneration":4294967296}})");
  ASSERT_EQ(wide.status, 200) << wide.body;
  EXPECT_EQ(wide.json()["status"]["observedGeneration"], 4294967296LL);
  expectStatus(patch(std::string(kDeployments) + "/g/status", "application/merge-patch+json",
                     R"({"status":{"availableReplicas":4294967296}})"), 400);
  expectAlive();
}

TEST_P(HostileInputTest, ObjectMetaIsValidatedAsKubeDoes) {
  const auto invalid = [&](json body, const std::string& field) {
    const auto reply = post(kHpas, body.dump());
    expectStatus(reply, 422);
    EXPECT_THAT(reply.body, HasSubstr(field));
  };
  json labels = hpa("m");
  labels["metadata"]["labels"] = {{"a b", "x"}};
  invalid(labels, "metadata.labels");
  labels["metadata"]["labels"] = {{"example.com/a/b", "x"}};
  invalid(labels, "metadata.labels");
  labels["metadata"]["labels"] = {{std::string(64, 'a'), "x"}};
  invalid(labels, "metadata.labels");
  json annotations = hpa("m");
  annotations["metadata"]["annotations"] = {{"a b", "x"}};
  invalid(annotations, "metadata.annotations");
  annotations["metadata"]["annotations"] = {{"Example.COM/Key_1", "x"}};  // case does not matter
  EXPECT_EQ(post(kHpas, annotations.dump()).status, 201);
  json large = hpa("large");
  large["metadata"]["annotations"] = {{"a", std::string(2 * 1024 * 1024, 'x')}};
  const auto tooLong = post(kHpas, large.dump());
  expectStatus(tooLong, 422);
  EXPECT_THAT(tooLong.body, HasSubstr("Too long: must have at most 262144 bytes"));
  large["metadata"]["annotations"] = {{"a", std::string(128 * 1024, 'x')}, {"b", std::string(129 * 1024, 'x')}};
  expectStatus(post(kHpas, large.dump()), 422);
  large["metadata"]["annotations"] = {{"a", std::string(200 * 1024, 'x')}};
  EXPECT_EQ(post(kHpas, large.dump()).status, 201);
  json finalizers = hpa("f");
  finalizers["metadata"]["finalizers"] = {"a b c"};
  invalid(finalizers, "metadata.finalizers");
  finalizers["metadata"]["finalizers"] = {"orphan", "foregroundDeletion"};
  invalid(finalizers, "metadata.finalizers");
  json owners = hpa("o");
  owners["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}};
  invalid(owners, "metadata.ownerReferences.uid");
  owners["metadata"]["ownerReferences"][0]["uid"] = "u1";
  EXPECT_EQ(post(kHpas, owners.dump()).status, 201);
  expectAlive();
}

TEST_P(HostileInputTest, BehaviorIsValidatedAsKubeDoes) {
  for (const char* behavior :
       {R"({"scaleUp":{"selectPolicy":"Sometimes"}})", R"({"scaleUp":{"policies":[]}})",
        R"({"scaleDown":{"stabilizationWindowSeconds":-1}})", R"({"scaleDown":{"stabilizationWindowSeconds":3601}})",
        R"({"scaleUp":{"policies":[{"type":"Nodes","value":1,"periodSeconds":15}]}})",
        R"({"scaleUp":{"policies":[{"type":"Pods","value":0,"periodSeconds":15}]}})",
        R"({"scaleUp":{"policies":[{"type":"Pods","value":1,"periodSeconds":1801}]}})",
        R"({"scaleUp":{"policies":[{"type":"Pods","value":1}]}})"}) {
    SCOPED_TRACE(behavior);
    json body = hpa("b");
    body["spec"]["behavior"] = json::parse(behavior);
    const auto reply = post(kHpas, body.dump());
    expectStatus(reply, 422);
    EXPECT_THAT(reply.body, HasSubstr("spec.behavior.scale"));
    // the same through autoscaling/v1's annotation
    json v1 = hpa("b");
    v1["apiVersion"] = "autoscaling/v1";
    v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/behavior"] = behavior;
    expectStatus(post(kHpasV1, v1.dump()), 422);
  }
  json good = hpa("b");
  good["spec"]["behavior"] = json::parse(
      R"({"scaleUp":{"selectPolicy":"Disabled"},"scaleDown":{"stabilizationWindowSeconds":3600,"policies":[{"type":"Percent","value":10,"periodSeconds":1800}]}})");
  EXPECT_EQ(post(kHpas, good.dump()).status, 201);
  expectAlive();
}

TEST_P(HostileInputTest, UnknownFieldsWhoseNamesLookLikePathsAreDroppedNotOtherFields) {
  json body = hpa("k");
  body["spec"]["metrics"] = json::parse(
      R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}])");
  body["spec"]["metrics[0]"] = 1;
  body["spec"]["a.b"] = 2;
  body["spec"]["scaleTargetRef"]["x[99999999999999999999]"] = 3;
  body["spec"]["metrics"][0]["resource"]["target"]["averageUtilization]"] = 4;
  const auto reply = post(kHpas, body.dump());
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_THAT(reply.header("warning"), HasSubstr("unknown field"));
  const json stored = call(port_, "GET", std::string(kHpas) + "/k").json();
  EXPECT_EQ(stored["spec"]["metrics"].size(), 1u);
  EXPECT_EQ(stored["spec"]["metrics"][0]["resource"]["target"], json::parse(R"({"type":"Utilization","averageUtilization":50})"));
  EXPECT_FALSE(stored["spec"].contains("metrics[0]"));
  EXPECT_FALSE(stored["spec"].contains("a.b"));
  EXPECT_EQ(stored["spec"]["scaleTargetRef"].size(), 3u);
  expectStatus(call(port_, "POST", std::string(kHpas) + "?fieldValidation=Strict", body.dump()), 400);
  expectAlive();
}

TEST_P(HostileInputTest, WhatAnUpdateMayNotChange) {
  const json created = post(kHpas, hpa("u").dump()).json();
  const std::string item = std::string(kHpas) + "/u";
  json other = created;
  other["metadata"]["uid"] = "another-uid";
  const auto wrongUid = call(port_, "PUT", item, other.dump());
  expectStatus(wrongUid, 409);
  EXPECT_THAT(wrongUid.body, HasSubstr("Precondition failed: UID in precondition: another-uid"));
  json moved = created;
  moved["metadata"]["namespace"] = "kube-system";
  expectStatus(call(port_, "PUT", item, moved.dump()), 400);
  expectStatus(patch(item, "application/merge-patch+json", R"({"metadata":{"namespace":"kube-system"}})"), 400);
  const auto uidPatch = patch(item, "application/merge-patch+json", R"({"metadata":{"uid":"x"}})");
  expectStatus(uidPatch, 422);
  EXPECT_THAT(uidPatch.body, HasSubstr("field is immutable"));
  // No uid at all keeps the current one, as kube-apiserver's BeforeUpdate does.
  EXPECT_EQ(patch(item, "application/json-patch+json", R"([{"op":"remove","path":"/metadata/uid"}])").status, 200);
  const json now = call(port_, "GET", item).json();
  EXPECT_EQ(now["metadata"]["uid"], created["metadata"]["uid"]);
  EXPECT_EQ(now["metadata"]["namespace"], "default");
  EXPECT_EQ(now["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);

  json operations = json::array();
  for (int i = 0; i < 10001; ++i) operations.push_back({{"op", "test"}, {"path", "/kind"}, {"value", "HorizontalPodAutoscaler"}});
  const auto tooMany = patch(item, "application/json-patch+json", operations.dump());
  expectStatus(tooMany, 413);
  EXPECT_THAT(tooMany.body, HasSubstr("The allowed maximum operations in a JSON patch is 10000, got 10001"));
  operations.erase(operations.begin());
  EXPECT_EQ(patch(item, "application/json-patch+json", operations.dump()).status, 200);
  ASSERT_EQ(post(kDeployments, deployment("s").dump()).status, 201);
  expectStatus(patch(std::string(kDeployments) + "/s/scale", "application/json-patch+json", json(json::array({1, 2}))
                                                                                                 .dump()), 422);
  json scaleOps = json::array();
  for (int i = 0; i < 10001; ++i) scaleOps.push_back({{"op", "test"}, {"path", "/kind"}, {"value", "Scale"}});
  expectStatus(patch(std::string(kDeployments) + "/s/scale", "application/json-patch+json", scaleOps.dump()), 413);
  expectAlive();
}

TEST_P(HostileInputTest, JsonPatchCopiesAreBoundedInWhatTheyAddAsKubeBoundsThem) {
  const json created = post(kHpas, hpa("bomb").dump()).json();
  const std::string item = std::string(kHpas) + "/bomb";
  // Each copy of metadata into its own annotations doubles it: 22 of them would be gigabytes.
  json bomb = json::array({{{"op", "add"}, {"path", "/metadata/annotations"}, {"value", json::object()}}});
  for (int i = 0; i < 22; ++i)
    bomb.push_back({{"op", "copy"}, {"from", "/metadata"}, {"path", "/metadata/annotations/k" + std::to_string(i)}});
  const auto refused = patch(item, "application/json-patch+json", bomb.dump());
  expectStatus(refused, 422);
  EXPECT_THAT(refused.body, HasSubstr("the accumulated size increase of copy is"));
  EXPECT_THAT(refused.body, HasSubstr("exceeding the limit 3145728"));
  EXPECT_EQ(call(port_, "GET", item).json(), created) << "a refused patch changes nothing";
  // A copy within the limit still applies.
  const auto copied = patch(item, "application/json-patch+json",
                            R"([{"op":"add","path":"/metadata/annotations","value":{}},)"
                            R"({"op":"copy","from":"/metadata/name","path":"/metadata/annotations/k0"}])");
  EXPECT_EQ(copied.status, 200) << copied.body;
  EXPECT_EQ(copied.json()["metadata"]["annotations"]["k0"], "bomb");
  expectAlive();
}

TEST_P(HostileInputTest, AUserAgentThatIsNotAsciiNamesTheFieldManagerAsKubeCutsIt) {
  const auto create = [&](const std::string& name, const std::string& agent) {
    return call(port_, "POST", kHpas, hpa(name).dump(), {{"Content-Type", "application/json"}, {"User-Agent", agent}});
  };
  const auto managerOf = [](const HttpReply& reply) {
    return reply.json()["metadata"]["managedFields"][0].value("manager", "");
  };
  // 127 bytes, then a two-byte character that does not fit in 128: it is left out whole.
  const auto accented = create("accented", std::string(127, 'a') + "\xC3\xA9/1.0");
  ASSERT_EQ(accented.status, 201) << accented.body;
  EXPECT_EQ(managerOf(accented), std::string(127, 'a'));
  const auto fits = create("fits", std::string(126, 'a') + "\xC3\xA9");
  ASSERT_EQ(fits.status, 201) << fits.body;
  EXPECT_EQ(managerOf(fits), std::string(126, 'a') + "\xC3\xA9");
  // Bytes that are not UTF-8 are U+FFFD each, as Go reads them.
  const auto invalid = create("invalid", "\xFF\xFE");
  ASSERT_EQ(invalid.status, 201) << invalid.body;
  EXPECT_EQ(managerOf(invalid), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(call(port_, "PUT", std::string(kHpas) + "/invalid", invalid.body,
                 {{"Content-Type", "application/json"}, {"User-Agent", "\xFF/2"}})
                .status,
            200);
  expectAlive();
}

INSTANTIATE_TEST_SUITE_P(BothServers, HostileInputTest,
                         ::testing::Values(ResourceSet::Federation, ResourceSet::MemberSim),
                         [](const auto& info) { return info.param == ResourceSet::Federation ? "Federation" : "MemberSim"; });

}  // namespace
}  // namespace fedhpa::apiserver
