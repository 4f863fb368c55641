// The API server over HTTP, as clients see it: versions, discovery, errors, conversion between
// served versions, field validation, Tables, protobuf bodies, watches and metrics.
#include "federation/apiserver/api_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "federation/storage/sqlite_storage.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;
using testing::call;
using testing::WatchConnection;
using ::testing::HasSubstr;

using testing::kHpas;
constexpr const char* kHpaKeys = "/autoscaling/horizontalpodautoscalers/default/";  // their storage keys
using testing::kHpasV1;
constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

json hpaV2(const std::string& name, int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"maxReplicas", maxReplicas},
            {"metrics",
             {{{"type", "Resource"},
               {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}}}}}}};
}

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override { startServer(true); }
  void TearDown() override { server_->stop(); }

  // withWatchCache false: --watch-cache=false, the storage's own watches serve the clients.
  void startServer(bool withWatchCache) {
    if (server_) server_->stop();
    storage::SqliteOptions storageOptions;
    storageOptions.historyLimit = 50;
    ApiServerOptions options;
    options.http.port = 0;
    options.http.maxRequestBodyBytes = 64 * 1024;
    options.watchCache->limits.historySize = storageOptions.historyLimit;  // the watch cache's window: as short
    if (!withWatchCache) options.watchCache.reset();
    auto storage = storage::SqliteStorage::openInMemory(storageOptions);
    storage_ = storage.get();
    server_ = std::make_unique<ApiServer>(std::move(storage), api::federationResources(), options);
    port_ = server_->start();
  }

  json create(const json& hpa) {
    const auto reply = call(port_, "POST", kHpas, hpa.dump());
    EXPECT_EQ(reply.status, 201) << reply.body;
    return reply.json();
  }

  // A value written straight to storage, around the API server: no object it ever wrote.
  void expectAnUndecodableObjectEndsOnlyTheWatchesThatMeetIt() {
    const std::string rv = call(port_, "GET", kHpas).json()["metadata"]["resourceVersion"];
    WatchConnection meetsIt(port_, std::string(kHpas) + "?watch=true&resourceVersion=" + rv);
    ASSERT_EQ(meetsIt.status(), 200);
    const storage::KeyValue bad = storage_->create(std::string(kHpaKeys) + "bad", "not json{");
    storage_->create(std::string(kHpaKeys) + "not-an-object", "[1,2]");

    const auto error = meetsIt.next();
    ASSERT_TRUE(error);
    EXPECT_EQ((*error)["type"], "ERROR");
    EXPECT_EQ((*error)["object"]["kind"], "Status");
    EXPECT_EQ((*error)["object"]["code"], 500);
    EXPECT_EQ((*error)["object"]["reason"], "InternalError");
    EXPECT_THAT((*error)["object"]["message"].get<std::string>(), HasSubstr("unable to decode"));
    EXPECT_FALSE(meetsIt.next()) << "the stream ends after its ERROR event";

    for (const std::string name : {"bad", "not-an-object"}) {
      const auto get = call(port_, "GET", std::string(kHpas) + "/" + name);
      EXPECT_EQ(get.status, 500) << name;
      EXPECT_EQ(get.json()["reason"], "InternalError") << name;
    }
    const auto list = call(port_, "GET", kHpas);
    EXPECT_EQ(list.status, 500);
    EXPECT_EQ(list.json()["reason"], "InternalError");

    WatchConnection later(port_, std::string(kHpas) + "?watch=true&resourceVersion=" +
                                     std::to_string(bad.modRevision + 1));
    ASSERT_EQ(later.status(), 200);
    create(hpaV2("good", 3));
    const auto added = later.next();
    ASSERT_TRUE(added) << "the server and a watch after the bad value go on";
    EXPECT_EQ((*added)["type"], "ADDED");
    EXPECT_EQ((*added)["object"]["metadata"]["name"], "good");
    EXPECT_EQ(call(port_, "GET", std::string(kHpas) + "/good").status, 200);
  }

  std::unique_ptr<ApiServer> server_;
  storage::Storage* storage_ = nullptr;  // owned by server_
  std::uint16_t port_ = 0;
};

TEST_F(ApiServerTest, ReportsVersionHealthAndUnknownPaths) {
  EXPECT_EQ(call(port_, "GET", "/version").json()["gitVersion"], "v1.32.0");
  EXPECT_EQ(call(port_, "GET", "/healthz").body, "ok");
  const auto missing = call(port_, "GET", "/nothing/here");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json()["kind"], "Status");
  EXPECT_EQ(call(port_, "GET", "/apis/autoscaling/v9/namespaces/default/horizontalpodautoscalers").status, 404);
}

// kube-apiserver's negotiation: protobuf for kubectl (answered under the type spelled without '@',
// which Go's media type parser accepts), JSON for JSON clients or none, 406 for anything else.
TEST_F(ApiServerTest, OpenApiV2IsNegotiatedLikeKubeApiserver) {
  const auto protobuf = call(port_, "GET", "/openapi/v2", "",
                             {{"Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}});
  EXPECT_EQ(protobuf.status, 200);
  EXPECT_EQ(protobuf.header("content-type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  EXPECT_EQ(protobuf.body.substr(0, 5), std::string("\x0a\x03" "2.0", 5));  // Document.swagger first
  const auto plain = call(port_, "GET", "/openapi/v2");
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.json()["swagger"], "2.0");
  EXPECT_TRUE(plain.json()["paths"].contains("/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers/{name}"));
  const auto html = call(port_, "GET", "/openapi/v2", "", {{"Accept", "text/html"}});
  EXPECT_EQ(html.status, 406);
  EXPECT_EQ(html.json()["reason"], "NotAcceptable");
}

// kubectl lists CustomResourceDefinitions before it reports a kind it does not know; the list is
// served and empty, and a resource refuses the verbs it does not list.
TEST_F(ApiServerTest, CustomResourceDefinitionsAreListedEmptyAndNeverCreated) {
  const auto list = call(port_, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.json()["items"], json::array());
  const json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
                    {"kind", "CustomResourceDefinition"},
                    {"metadata", {{"name", "widgets.example.com"}}}};
  const auto created = call(port_, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.dump());
  EXPECT_EQ(created.status, 405);
  EXPECT_EQ(created.json()["reason"], "MethodNotAllowed");
  EXPECT_EQ(call(port_, "DELETE", "/api/v1/namespaces").status, 405);  // namespaces have no deletecollection
}

TEST_F(ApiServerTest, AggregatedDiscoveryIsRecognisedByItsContentType) {
  const auto reply = call(port_, "GET", "/apis", "",
                          {{"Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"}});
  EXPECT_EQ(reply.status, 200);
  EXPECT_THAT(reply.header("content-type"), HasSubstr("as=APIGroupDiscoveryList"));
  EXPECT_THAT(reply.body, HasSubstr("horizontalpodautoscalers"));
  const auto legacy = call(port_, "GET", "/apis", "", {{"Accept", "application/json"}});
  EXPECT_EQ(legacy.json()["kind"], "APIGroupList");
}

TEST_F(ApiServerTest, OneObjectTwoVersions) {
  json hpa = hpaV2("php-apache", 10);
  hpa["spec"]["behavior"] = {{"scaleDown", {{"stabilizationWindowSeconds", 60}}}};
  create(hpa);
  const json v1 = call(port_, "GET", std::string(kHpasV1) + "/php-apache").json();
  EXPECT_EQ(v1["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_EQ(v1["spec"]["minReplicas"], 1) << "defaulted";
  // A client that only knows v1 writes the object back: nothing v2-only is lost.
  json edited = v1;
  edited["spec"]["maxReplicas"] = 12;
  ASSERT_EQ(call(port_, "PUT", std::string(kHpasV1) + "/php-apache", edited.dump()).status, 200);
  const json v2 = call(port_, "GET", std::string(kHpas) + "/php-apache").json();
  EXPECT_EQ(v2["spec"]["maxReplicas"], 12);
  EXPECT_EQ(v2["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 60);
}

TEST_F(ApiServerTest, BadBodiesGetStatusErrors) {
  EXPECT_EQ(call(port_, "POST", kHpas, "{not json").status, 400);
  EXPECT_EQ(call(port_, "POST", kHpas, "a: b", {{"Content-Type", "text/csv"}}).status, 415);
  const auto tooLarge = call(port_, "POST", kHpas, std::string(100 * 1024, ' '));
  EXPECT_EQ(tooLarge.status, 413);
  json invalid = hpaV2("invalid", 2);
  invalid["spec"]["minReplicas"] = 5;
  invalid["spec"]["scaleTargetRef"].erase("name");
  const auto rejected = call(port_, "POST", kHpas, invalid.dump());
  EXPECT_EQ(rejected.status, 422);
  EXPECT_EQ(rejected.json()["details"]["causes"].size(), 2u);
  EXPECT_EQ(call(port_, "GET", kHpas).json()["items"].size(), 0u) << "nothing stored";
}

TEST_F(ApiServerTest, FieldValidationStrictWarnIgnore) {
  json hpa = hpaV2("a", 3);
  hpa["spec"]["foo"] = 1;
  const auto strict = call(port_, "POST", std::string(kHpas) + "?fieldValidation=Strict", hpa.dump());
  EXPECT_EQ(strict.status, 400);
  EXPECT_THAT(strict.json()["message"].get<std::string>(), HasSubstr("unknown field \"spec.foo\""));
  const auto warn = call(port_, "POST", std::string(kHpas) + "?fieldValidation=Warn", hpa.dump());
  EXPECT_EQ(warn.status, 201);
  EXPECT_THAT(warn.header("warning"), HasSubstr("unknown field"));
  EXPECT_FALSE(warn.json()["spec"].contains("foo")) << "unknown fields are dropped";
}

TEST_F(ApiServerTest, TablesCarryTheHpaColumns) {
  create(hpaV2("php-apache", 10));
  const auto table = call(port_, "GET", kHpas, "", {{"Accept", kTableAccept}}).json();
  EXPECT_EQ(table["kind"], "Table");
  std::vector<std::string> columns;
  for (const auto& column : table["columnDefinitions"]) columns.push_back(column["name"]);
  EXPECT_THAT(columns, ::testing::ElementsAre("Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age", "Clusters"));
  EXPECT_EQ(table["rows"][0]["cells"][1], "Deployment/php-apache");
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_FALSE(table["metadata"]["resourceVersion"].get<std::string>().empty());
  const auto single = call(port_, "GET", std::string(kHpas) + "/php-apache", "", {{"Accept", kTableAccept}}).json();
  EXPECT_EQ(single["rows"].size(), 1u);
}

TEST_F(ApiServerTest, KubectlAutoscaleProtobufBody) {
  // kubectl 1.32's autoscale body, verbatim.
  const std::string hex =
      "6b3873000a290a0e6175746f7363616c696e672f76311217486f72697a6f6e74616c506f644175746f7363616c6572124d"
      "0a1a0a0a7068702d61706163686512001a0022002a0032003800420012290a210a0a4465706c6f796d656e74120a7068702d"
      "6170616368651a07617070732f76311001180a20321a04180020001a002200";
  std::string body;
  for (std::size_t i = 0; i < hex.size(); i += 2) body += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  const auto reply = call(port_, "POST", std::string(kHpasV1) + "?fieldManager=kubectl-autoscale", body,
                          {{"Content-Type", "application/vnd.kubernetes.protobuf"}});
  ASSERT_EQ(reply.status, 201) << reply.body;
  const json stored = call(port_, "GET", std::string(kHpasV1) + "/php-apache").json();
  EXPECT_EQ(stored["spec"]["maxReplicas"], 10);
  EXPECT_EQ(stored["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_EQ(stored["spec"]["scaleTargetRef"]["name"], "php-apache");
}

TEST_F(ApiServerTest, PatchesOfEveryKindAndNoOpKeepsVersion) {
  const json created = create(hpaV2("p", 10));
  const std::string item = std::string(kHpas) + "/p";
  auto patch = [&](const std::string& type, const std::string& body) {
    return call(port_, "PATCH", item, body, {{"Content-Type", type}});
  };
  EXPECT_EQ(patch("application/strategic-merge-patch+json", R"({"spec":{"maxReplicas":12}})").json()["spec"]["maxReplicas"], 12);
  EXPECT_EQ(patch("application/merge-patch+json", R"({"spec":{"minReplicas":2}})").json()["spec"]["minReplicas"], 2);
  const json afterJsonPatch =
      patch("application/json-patch+json", R"([{"op":"replace","path":"/spec/maxReplicas","value":14}])").json();
  EXPECT_EQ(afterJsonPatch["spec"]["maxReplicas"], 14);
  const json noop = patch("application/merge-patch+json", R"({"spec":{"maxReplicas":14}})").json();
  EXPECT_EQ(noop["metadata"]["resourceVersion"], afterJsonPatch["metadata"]["resourceVersion"]);
  EXPECT_EQ(patch("application/json-patch+json", R"([{"op":"remove","path":"/spec/nothing"}])").status, 422);
  EXPECT_EQ(patch("application/merge-patch+json", R"({"spec":{"maxReplicas":0}})").status, 422);
}

// resourceVersion on a LIST, as kube-apiserver reads it: Exact lists the objects as they were at
// that revision (410 once it is compacted away), NotOlderThan the latest state; a continue token
// carries its own revision, so a resourceVersion beside it is a 400.
TEST_F(ApiServerTest, ListsHonourResourceVersionMatch) {
  const std::string atFirst = create(hpaV2("a", 3))["metadata"]["resourceVersion"];
  create(hpaV2("b", 3));
  create(hpaV2("c", 3));
  const auto names = [](const json& list) {
    std::vector<std::string> out;
    for (const auto& item : list["items"]) out.push_back(item["metadata"]["name"]);
    return out;
  };
  const auto exact = call(port_, "GET", std::string(kHpas) + "?resourceVersionMatch=Exact&resourceVersion=" + atFirst);
  ASSERT_EQ(exact.status, 200) << exact.body;
  EXPECT_EQ(names(exact.json()), std::vector<std::string>{"a"});
  EXPECT_EQ(exact.json()["metadata"]["resourceVersion"], atFirst);
  const auto notOlder = call(port_, "GET", std::string(kHpas) + "?resourceVersionMatch=NotOlderThan&resourceVersion=" + atFirst);
  EXPECT_EQ(names(notOlder.json()), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(names(call(port_, "GET", std::string(kHpas) + "?resourceVersion=" + atFirst).json()),
            (std::vector<std::string>{"a", "b", "c"}));

  const std::string token = call(port_, "GET", std::string(kHpas) + "?limit=1").json()["metadata"]["continue"];
  const auto both = call(port_, "GET", std::string(kHpas) + "?limit=1&continue=" + token + "&resourceVersion=" + atFirst);
  EXPECT_EQ(both.status, 400);
  EXPECT_EQ(both.json()["message"], "specifying resource version is not allowed when using continue");

  for (int i = 0; i < 60; ++i)  // past the 50 revisions of history this server keeps
    call(port_, "PATCH", std::string(kHpas) + "/b", json{{"spec", {{"maxReplicas", 4 + i % 2}}}}.dump(),
         {{"Content-Type", "application/merge-patch+json"}});
  const auto compacted = call(port_, "GET", std::string(kHpas) + "?resourceVersionMatch=Exact&resourceVersion=" + atFirst);
  EXPECT_EQ(compacted.status, 410);
  EXPECT_EQ(compacted.json()["reason"], "Expired");
  EXPECT_EQ(compacted.json()["message"], "The resourceVersion for the provided list is too old.");
}

TEST_F(ApiServerTest, WatchDeliversEventsAndResumes) {
  const json first = create(hpaV2("w", 3));
  WatchConnection watch(port_, std::string(kHpas) + "?watch=true&resourceVersion=" +
                                   first["metadata"]["resourceVersion"].get<std::string>());
  ASSERT_EQ(watch.status(), 200);
  call(port_, "PATCH", std::string(kHpas) + "/w", R"({"spec":{"maxReplicas":4}})",
       {{"Content-Type", "application/merge-patch+json"}});
  call(port_, "DELETE", std::string(kHpas) + "/w");
  const auto modified = watch.next();
  ASSERT_TRUE(modified);
  EXPECT_EQ((*modified)["type"], "MODIFIED");
  EXPECT_EQ((*modified)["object"]["spec"]["maxReplicas"], 4);
  const auto deleted = watch.next();
  ASSERT_TRUE(deleted);
  EXPECT_EQ((*deleted)["type"], "DELETED");
  EXPECT_EQ((*deleted)["object"]["metadata"]["uid"], first["metadata"]["uid"]);
}

TEST_F(ApiServerTest, WatchFromZeroStartsWithTheCurrentObjectsAndHonoursFieldSelectors) {
  create(hpaV2("one", 3));
  create(hpaV2("two", 3));
  WatchConnection watch(port_, std::string(kHpas) + "?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dtwo");
  const auto added = watch.next();
  ASSERT_TRUE(added);
  EXPECT_EQ((*added)["type"], "ADDED");
  EXPECT_EQ((*added)["object"]["metadata"]["name"], "two");
  call(port_, "PATCH", std::string(kHpas) + "/one", R"({"spec":{"maxReplicas":5}})", {{"Content-Type", "application/merge-patch+json"}});
  call(port_, "PATCH", std::string(kHpas) + "/two", R"({"spec":{"maxReplicas":6}})", {{"Content-Type", "application/merge-patch+json"}});
  const auto modified = watch.next();
  ASSERT_TRUE(modified);
  EXPECT_EQ((*modified)["object"]["metadata"]["name"], "two") << "the change to 'one' is filtered out";
}

TEST_F(ApiServerTest, WatchFromACompactedRevisionIsExpired) {
  const json first = create(hpaV2("old", 3));
  for (int i = 0; i < 80; ++i) create(hpaV2("h" + std::to_string(i), 3));  // more than the kept history
  WatchConnection watch(port_, std::string(kHpas) + "?watch=true&resourceVersion=" +
                                   first["metadata"]["resourceVersion"].get<std::string>());
  const auto error = watch.next();
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["type"], "ERROR");
  EXPECT_EQ((*error)["object"]["code"], 410);
  EXPECT_EQ((*error)["object"]["reason"], "Expired");
}

TEST_F(ApiServerTest, AnUndecodableStoredObjectEndsTheWatchesThatMeetItWithAnError) {
  expectAnUndecodableObjectEndsOnlyTheWatchesThatMeetIt();
}

TEST_F(ApiServerTest, AnUndecodableStoredObjectEndsTheWatchesThatMeetItWithoutTheWatchCache) {
  startServer(false);
  expectAnUndecodableObjectEndsOnlyTheWatchesThatMeetIt();
}

TEST_F(ApiServerTest, TwoHundredWatchersWhileRequestsAreServed) {
  const std::string rv = call(port_, "GET", kHpas).json()["metadata"]["resourceVersion"];
  std::vector<std::unique_ptr<WatchConnection>> watchers;
  for (int i = 0; i < 200; ++i)
    watchers.push_back(std::make_unique<WatchConnection>(port_, std::string(kHpas) + "?watch=true&resourceVersion=" + rv));
  EXPECT_EQ(call(port_, "GET", "/version").status, 200) << "still serving with 200 watches open";
  create(hpaV2("seen-by-all", 3));
  for (auto& watcher : watchers) {
    const auto event = watcher->next();
    ASSERT_TRUE(event);
    EXPECT_EQ((*event)["object"]["metadata"]["name"], "seen-by-all");
  }
}

TEST_F(ApiServerTest, DeletePropagationAndConflicts) {
  json guarded = hpaV2("d", 3);
  guarded["metadata"]["finalizers"] = {"example.io/cleanup"};
  create(guarded);
  const std::string item = std::string(kHpas) + "/d";
  const auto orphaned = call(port_, "DELETE", item, R"({"propagationPolicy":"Orphan"})");
  EXPECT_EQ(orphaned.status, 200);
  EXPECT_THAT(orphaned.json()["metadata"]["finalizers"], ::testing::Contains("orphan"));
  EXPECT_FALSE(orphaned.json()["metadata"]["deletionTimestamp"].get<std::string>().empty());
  EXPECT_EQ(call(port_, "GET", item).status, 200) << "kept until its finalizer is removed";
  EXPECT_EQ(call(port_, "PATCH", item, R"({"metadata":{"finalizers":["orphan"]}})",
                 {{"Content-Type", "application/merge-patch+json"}}).status, 200);
  EXPECT_EQ(call(port_, "GET", item).status, 404);
  EXPECT_EQ(call(port_, "DELETE", item).status, 404);
}

TEST_F(ApiServerTest, EventsSelectByInvolvedObject) {
  const json event = {{"apiVersion", "v1"}, {"kind", "Event"},
                      {"metadata", {{"name", "e1"}}},
                      {"involvedObject", {{"kind", "HorizontalPodAutoscaler"}, {"name", "php-apache"}, {"namespace", "default"}}},
                      {"reason", "SuccessfulRescale"}, {"message", "New size: 5"}, {"type", "Normal"}};
  ASSERT_EQ(call(port_, "POST", "/api/v1/namespaces/default/events", event.dump()).status, 201);
  const auto hit = call(port_, "GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dphp-apache").json();
  EXPECT_EQ(hit["items"].size(), 1u);
  const auto miss = call(port_, "GET", "/api/v1/events?fieldSelector=involvedObject.name%3Dother").json();
  EXPECT_EQ(miss["items"].size(), 0u);
  EXPECT_EQ(call(port_, "GET", "/api/v1/events?fieldSelector=spec.nope%3Dx").status, 400);
}

TEST_F(ApiServerTest, CreateInAMissingNamespaceIsNotFound) {
  const auto reply = call(port_, "POST", "/apis/autoscaling/v2/namespaces/nowhere/horizontalpodautoscalers", hpaV2("x", 2).dump());
  EXPECT_EQ(reply.status, 404);
  EXPECT_THAT(reply.json()["message"].get<std::string>(), HasSubstr("namespaces \"nowhere\" not found"));
}

// NamespaceLifecycle: what this server just wrote to a namespace (created, deleting, deleted) must
// decide the next create at once, wherever admission reads the namespace from.
TEST_F(ApiServerTest, CreatesFollowTheirNamespaceThroughCreationDeletionAndItsEnd) {
  const auto createIn = [&](const std::string& ns, const std::string& name) {
    return call(port_, "POST", "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers", hpaV2(name, 2).dump());
  };
  const json held = {{"apiVersion", "v1"}, {"kind", "Namespace"},
                     {"metadata", {{"name", "held"}, {"finalizers", {"example.io/hold"}}}}};
  ASSERT_EQ(call(port_, "POST", "/api/v1/namespaces", held.dump()).status, 201);
  EXPECT_EQ(createIn("held", "a").status, 201) << "a namespace created a moment ago admits creates";
  ASSERT_EQ(call(port_, "DELETE", "/api/v1/namespaces/held").status, 200);
  const auto refused = createIn("held", "b");
  EXPECT_EQ(refused.status, 403) << "a namespace being deleted admits nothing new";
  EXPECT_THAT(refused.json()["message"].get<std::string>(), HasSubstr("because it is being terminated"));
  ASSERT_EQ(call(port_, "PATCH", "/api/v1/namespaces/held", R"({"metadata":{"finalizers":null}})",
                 {{"Content-Type", "application/merge-patch+json"}}).status, 200);
  ASSERT_EQ(call(port_, "GET", "/api/v1/namespaces/held").status, 404);
  EXPECT_EQ(createIn("held", "c").status, 404) << "and once it is gone, creates in it are NotFound";
}

TEST_F(ApiServerTest, MetricsCountRequests) {
  call(port_, "GET", kHpas);
  const auto metrics = call(port_, "GET", "/metrics").body;
  EXPECT_THAT(metrics, HasSubstr("apiserver_request_total{verb=\"list\",resource=\"horizontalpodautoscalers\",code=\"200\"}"));
  EXPECT_THAT(metrics, HasSubstr("apiserver_request_duration_seconds_bucket"));
}

}  // namespace
}  // namespace fedhpa::apiserver
