// Protobuf answers, as client-go asks for them: GET, LIST, watch and Status errors of built-in
// types in kube's protobuf encoding when Accept prefers it; custom resources stay JSON, and answer
// 406 to a protobuf-only Accept, as kube-apiserver answers for a CRD.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/machinery/protobuf.h"
#include "federation/api/machinery/protobuf_schema.h"
#include "test/federation/apiserver/http_test_client.h"
#include "test/federation/apiserver/test_api_server.h"

// A namespace of its own: unity builds put this file in one translation unit with other tests.
namespace fedhpa::apiserver::protobuf_negotiation {
namespace {

using nlohmann::json;
using testing::call;
using testing::kHpas;
using testing::WatchConnection;
namespace pb = api::machinery;

constexpr const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";
constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";
constexpr const char* kProtobufFirst = "application/vnd.kubernetes.protobuf, application/json";

json hpa(const std::string& name, int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"maxReplicas", maxReplicas}}}};
}

json deployment(const std::string& name) {
  json object = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", name}}}};
  object["spec"]["selector"]["matchLabels"]["app"] = name;
  object["spec"]["template"]["metadata"]["labels"]["app"] = name;
  object["spec"]["template"]["spec"]["containers"] = json::array({{{"name", "c"}, {"image", "nginx:1.27"}}});
  return object;
}

// Whether a decoded protobuf object and a JSON one are the same object. Not JSON equality: the
// served JSON keeps some empty values Go's encoding/json would leave out (a managedFields entry's
// "manager": "", a container's missing "resources": {}), which protobuf cannot tell apart; the
// canonical form, protobuf bytes, can.
void expectSameObject(json decoded, const json& served) {
  decoded["apiVersion"] = served["apiVersion"];
  decoded["kind"] = served["kind"];
  EXPECT_EQ(pb::encodeKubernetesProtobuf(decoded), pb::encodeKubernetesProtobuf(served)) << served.dump();
  EXPECT_EQ(decoded["metadata"]["uid"], served["metadata"]["uid"]);
  EXPECT_EQ(decoded["metadata"]["resourceVersion"], served["metadata"]["resourceVersion"]);
}

// The fields of one message, in order: (number, bytes) for length-delimited ones.
std::vector<std::pair<std::uint32_t, std::string>> fields(std::string_view message) {
  std::vector<std::pair<std::uint32_t, std::string>> out;
  pb::WireReader reader(message);
  while (!reader.done()) {
    const auto field = reader.next();
    out.emplace_back(field.number, std::string(field.bytes));
  }
  return out;
}

class ProtobufNegotiationTest : public ::testing::Test {
 protected:
  testing::HttpReply get(const std::string& target, const std::string& accept) {
    return call(port_, "GET", target, "", {{"Accept", accept}});
  }
  void post(const std::string& target, const json& object) {
    const auto reply = call(port_, "POST", target, object.dump());
    ASSERT_EQ(reply.status, 201) << reply.body;
  }

  // A protobuf LIST, checked against the JSON LIST of the same resource: the envelope names the
  // list kind, ListMeta carries the resourceVersion, each item is exactly the bytes a protobuf GET
  // of that object carries inside its envelope, and decodes to the JSON item.
  void expectProtobufListMatchesJson(const std::string& collection, const std::string& apiVersion,
                                     const std::string& listKind, const std::string& itemMessage) {
    const auto jsonList = get(collection, "application/json").json();
    const auto reply = get(collection, kProtobufFirst);
    ASSERT_EQ(reply.status, 200);
    EXPECT_EQ(reply.header("content-type"), kProtobuf);
    ASSERT_EQ(reply.body.substr(0, 4), std::string("k8s\0", 4));
    const auto envelope = fields(std::string_view(reply.body).substr(4));
    ASSERT_EQ(envelope.size(), 4u);
    EXPECT_EQ(fields(envelope[0].second), (std::vector<std::pair<std::uint32_t, std::string>>{{1, apiVersion}, {2, listKind}}));
    const auto list = fields(envelope[1].second);
    ASSERT_EQ(list.size(), 1 + jsonList["items"].size());
    EXPECT_EQ(pb::decodeProtoMessage(pb::kubernetesProtoTypes(), "meta.ListMeta", list[0].second)["resourceVersion"],
              jsonList["metadata"]["resourceVersion"]);
    for (std::size_t i = 0; i < jsonList["items"].size(); ++i) {
      const json& item = jsonList["items"][i];
      EXPECT_EQ(list[i + 1].first, 2u);
      expectSameObject(pb::decodeProtoMessage(pb::kubernetesProtoTypes(), itemMessage, list[i + 1].second), item);
      const auto one = get(collection + "/" + item["metadata"]["name"].get<std::string>(), kProtobuf);
      EXPECT_EQ(one.body, pb::encodeKubernetesProtobuf(item));
      EXPECT_EQ(std::string(pb::protobufRawMessage(one.body)), list[i + 1].second) << "a LIST item is the GET's object";
    }
  }

  testing::TestApiServer server_;
  const std::uint16_t port_ = server_.port();
};

TEST_F(ProtobufNegotiationTest, GetAnswersInProtobufWhenTheClientPrefersIt) {
  post(kHpas, hpa("php", 10));
  const auto asJson = get(std::string(kHpas) + "/php", "application/json");
  const auto reply = get(std::string(kHpas) + "/php", kProtobufFirst);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.header("content-type"), kProtobuf);
  EXPECT_EQ(reply.body, pb::encodeKubernetesProtobuf(asJson.json()));
  expectSameObject(pb::decodeKubernetesProtobuf(reply.body), asJson.json());
  EXPECT_EQ(pb::decodeKubernetesProtobuf(reply.body)["spec"]["maxReplicas"], 10);
}

TEST_F(ProtobufNegotiationTest, AcceptIsReadByQualityThenOrder) {
  post(kHpas, hpa("php", 10));
  const std::string item = std::string(kHpas) + "/php";
  EXPECT_EQ(get(item, "application/json;q=0.5, application/vnd.kubernetes.protobuf").header("content-type"), kProtobuf);
  EXPECT_EQ(get(item, "application/vnd.kubernetes.protobuf;q=0.1, application/json").header("content-type"), "application/json");
  EXPECT_EQ(get(item, "application/json, application/vnd.kubernetes.protobuf").header("content-type"), "application/json");
  EXPECT_EQ(get(item, "application/vnd.kubernetes.protobuf;q=0, application/json").header("content-type"), "application/json");
  EXPECT_EQ(get(item, "application/yaml").status, 406);
  // Tables have no protobuf form: a protobuf Table clause is passed over for the JSON Table.
  const auto table = get(item, "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
                               "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  EXPECT_EQ(table.json()["kind"], "Table");
}

TEST_F(ProtobufNegotiationTest, ListsOfHpasAndDeploymentsAreTheObjectsBytes) {
  for (int i = 0; i < 3; ++i) post(kHpas, hpa("h" + std::to_string(i), 5 + i));
  for (int i = 0; i < 2; ++i) post(kDeployments, deployment("d" + std::to_string(i)));
  expectProtobufListMatchesJson(kHpas, "autoscaling/v2", "HorizontalPodAutoscalerList", "autoscaling.v2.HorizontalPodAutoscaler");
  expectProtobufListMatchesJson(kDeployments, "apps/v1", "DeploymentList", "apps.Deployment");
}

TEST_F(ProtobufNegotiationTest, StatusErrorsComeInProtobufToo) {
  const auto reply = get(std::string(kDeployments) + "/missing", kProtobufFirst);
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.header("content-type"), kProtobuf);
  ASSERT_EQ(reply.body.substr(0, 4), std::string("k8s\0", 4));
  const auto status = pb::decodeProtoMessage(pb::kubernetesProtoTypes(), "meta.Status", pb::protobufRawMessage(reply.body));
  EXPECT_EQ(status["reason"], "NotFound");
  EXPECT_EQ(status["code"], 404);
  EXPECT_EQ(status["message"], "deployments.apps \"missing\" not found");
}

TEST_F(ProtobufNegotiationTest, CustomResourcesStayJsonAsKubeServesACrd) {
  const std::string clusters = "/apis/federation/v1beta1/clusters";
  EXPECT_EQ(get(clusters, kProtobufFirst).header("content-type"), "application/json");
  const auto onlyProtobuf = get(clusters, kProtobuf);
  EXPECT_EQ(onlyProtobuf.status, 406);
  EXPECT_EQ(onlyProtobuf.header("content-type"), "application/json");
  EXPECT_EQ(onlyProtobuf.json()["reason"], "NotAcceptable");
}

// kube-apiserver stores a quantity in canonical form; both answers carry that text.
TEST_F(ProtobufNegotiationTest, QuantitiesAnswerInKubesCanonicalFormEitherWay) {
  json object = deployment("sized");
  object["spec"]["template"]["spec"]["containers"][0]["resources"] =
      json::parse(R"({"limits":{"cpu":"1000m","memory":"1024Mi"},"requests":{"cpu":"0.5","memory":"0.5Gi"}})");
  post(kDeployments, object);
  const json expected = json::parse(R"({"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m","memory":"512Mi"}})");
  const std::string item = std::string(kDeployments) + "/sized";
  EXPECT_EQ(get(item, "application/json").json()["spec"]["template"]["spec"]["containers"][0]["resources"], expected);
  const json decoded = pb::decodeKubernetesProtobuf(get(item, kProtobuf).body);
  EXPECT_EQ(decoded["spec"]["template"]["spec"]["containers"][0]["resources"], expected);
}

// A JSON and a protobuf client watching together see the same events, the protobuf ones framed as
// kube frames them.
TEST_F(ProtobufNegotiationTest, JsonAndProtobufWatchersSeeTheSameEvents) {
  post(kDeployments, deployment("web"));
  const std::string rv = get(kDeployments, "application/json").json()["metadata"]["resourceVersion"];
  const std::string target = std::string(kDeployments) + "?watch=true&resourceVersion=" + rv;
  WatchConnection jsonWatch(port_, target);
  WatchConnection protobufWatch(port_, target, kProtobufFirst);
  ASSERT_EQ(protobufWatch.status(), 200);
  EXPECT_EQ(protobufWatch.header("content-type"), std::string(kProtobuf) + ";stream=watch");

  post(kDeployments, deployment("api"));
  ASSERT_EQ(call(port_, "PATCH", std::string(kDeployments) + "/web", R"({"spec":{"replicas":3}})",
                 {{"Content-Type", "application/merge-patch+json"}}).status, 200);
  ASSERT_EQ(call(port_, "DELETE", std::string(kDeployments) + "/api").status, 200);

  for (const char* expectedType : {"ADDED", "MODIFIED", "DELETED"}) {
    SCOPED_TRACE(expectedType);
    const auto jsonEvent = jsonWatch.next();
    const auto frame = protobufWatch.nextFrame();
    ASSERT_TRUE(jsonEvent && frame);
    EXPECT_EQ((*jsonEvent)["type"], expectedType);
    const auto event = fields(*frame);
    ASSERT_EQ(event.size(), 2u);
    EXPECT_EQ(event[0], (std::pair<std::uint32_t, std::string>{1, expectedType}));
    const auto rawExtension = fields(event[1].second);
    ASSERT_EQ(rawExtension.size(), 1u);
    EXPECT_EQ(rawExtension[0].second, pb::encodeKubernetesProtobuf((*jsonEvent)["object"]));
    expectSameObject(pb::decodeKubernetesProtobuf(rawExtension[0].second), (*jsonEvent)["object"]);
  }
}

}  // namespace
}  // namespace fedhpa::apiserver::protobuf_negotiation
