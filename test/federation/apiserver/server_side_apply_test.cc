// Server-side apply over HTTP, as kubectl apply --server-side and client libraries use it.
#include "federation/apiserver/server_side_apply.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/apiserver/api_server.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;
using testing::call;
using ::testing::HasSubstr;

constexpr const char* kHpa = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web";
const std::map<std::string, std::string> kApply = {{"Content-Type", "application/apply-patch+yaml"}};

std::string config(int maxReplicas) {
  return "apiVersion: autoscaling/v2\n"
         "kind: HorizontalPodAutoscaler\n"
         "metadata:\n  name: web\n"
         "spec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: web\n"
         "  maxReplicas: " + std::to_string(maxReplicas) + "\n";
}

class ServerSideApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiServerOptions options;
    options.http.port = 0;
    server_ = std::make_unique<ApiServer>(storage::SqliteStorage::openInMemory({}), api::federationResources(), options);
    port_ = server_->start();
  }
  void TearDown() override { server_->stop(); }

  testing::HttpReply apply(const std::string& manager, const std::string& body, const std::string& extra = "") {
    return call(port_, "PATCH", std::string(kHpa) + "?fieldManager=" + manager + extra, body, kApply);
  }

  std::unique_ptr<ApiServer> server_;
  std::uint16_t port_ = 0;
};

TEST_F(ServerSideApplyTest, ApplyCreatesTheObjectThenAnIdenticalApplyDoesNotWrite) {
  const auto created = apply("kubectl", config(5));
  ASSERT_EQ(created.status, 201) << created.body;
  const json object = created.json();
  EXPECT_EQ(object["spec"]["maxReplicas"], 5);
  EXPECT_EQ(object["metadata"]["managedFields"][0]["manager"], "kubectl");
  EXPECT_EQ(object["metadata"]["managedFields"][0]["operation"], "Apply");

  const auto again = apply("kubectl", config(5));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json()["metadata"]["resourceVersion"], object["metadata"]["resourceVersion"]);
  EXPECT_EQ(again.json()["metadata"]["managedFields"], object["metadata"]["managedFields"]);
}

TEST_F(ServerSideApplyTest, AConflictingManagerGets409WithCausesAndForceTakesTheFieldOver) {
  ASSERT_EQ(apply("kubectl", config(5)).status, 201);
  const auto conflict = apply("other", config(9));
  ASSERT_EQ(conflict.status, 409) << conflict.body;
  const json status = conflict.json();
  EXPECT_EQ(status["reason"], "Conflict");
  EXPECT_EQ(status["message"], "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxReplicas");
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldManagerConflict");
  EXPECT_EQ(status["details"]["causes"][0]["field"], ".spec.maxReplicas");

  const auto forced = apply("other", config(9), "&force=true");
  ASSERT_EQ(forced.status, 200) << forced.body;
  EXPECT_EQ(forced.json()["spec"]["maxReplicas"], 9);
  const json managed = forced.json()["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 2u);
  for (const auto& entry : managed)
    EXPECT_EQ(entry["fieldsV1"]["f:spec"].contains("f:maxReplicas"), entry["manager"] == "other") << entry.dump();
}

TEST_F(ServerSideApplyTest, ApplyNeedsAFieldManager) {
  const auto reply = call(port_, "PATCH", kHpa, config(5), kApply);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.json()["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
}

TEST_F(ServerSideApplyTest, BadApplyBodiesAreTheClientsError) {
  EXPECT_EQ(apply("kubectl", "spec: [unclosed").status, 400);
  EXPECT_EQ(apply("kubectl", "- just\n- a list\n").status, 400);
  const auto managed = apply("kubectl", config(5) + "status: {}\n" "---\n");
  EXPECT_EQ(managed.status, 400) << managed.body;  // two documents
  const auto withManagedFields = apply("kubectl", R"({"metadata":{"name":"web","managedFields":[]},"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler"})");
  EXPECT_EQ(withManagedFields.status, 400);
  EXPECT_THAT(withManagedFields.body, HasSubstr("metadata.managedFields must be nil"));
  const auto otherName = call(port_, "PATCH", std::string(kHpa) + "x?fieldManager=k", config(5), kApply);
  EXPECT_EQ(otherName.status, 400);
  EXPECT_EQ(apply("kubectl", config(5), "&force=maybe").status, 400);
}

TEST_F(ServerSideApplyTest, OrdinaryWritesRecordTheirManagerFromTheQueryOrTheUserAgent) {
  const std::string hpa = json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
    "spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3}})").dump();
  const auto created = call(port_, "POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa,
                            {{"Content-Type", "application/json"}, {"User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc"}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["metadata"]["managedFields"][0]["manager"], "kubectl");
  const auto patched = call(port_, "PATCH", std::string(kHpa) + "?fieldManager=fedhpa-controller",
                            R"({"spec":{"maxReplicas":4}})", {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  const json managed = patched.json()["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 2u);
  const json& controller = managed[0]["manager"] == "fedhpa-controller" ? managed[0] : managed[1];
  EXPECT_EQ(controller["manager"], "fedhpa-controller");
  EXPECT_EQ(controller["fieldsV1"], json::parse(R"({"f:spec":{"f:maxReplicas":{}}})"));

  // The applier conflicts with the updater that set maxReplicas last.
  const auto conflict = apply("gitops", config(7));
  EXPECT_EQ(conflict.status, 409);
  EXPECT_THAT(conflict.json()["message"].get<std::string>(), HasSubstr("conflict with \"fedhpa-controller\" using autoscaling/v2"));
}

TEST_F(ServerSideApplyTest, ForceOnAnotherPatchAndUnprintableManagersAre422) {
  ASSERT_EQ(apply("kubectl", config(5)).status, 201);
  EXPECT_EQ(call(port_, "PATCH", std::string(kHpa) + "?force=true", R"({"spec":{"maxReplicas":4}})",
                 {{"Content-Type", "application/merge-patch+json"}}).status, 422);
  EXPECT_EQ(apply("a%01b", config(5)).status, 422);
  EXPECT_EQ(apply(std::string(129, 'm'), config(5)).status, 422);
}

// Whatever managedFields a client sends, the server stores well-formed ones (or none) and answers.
TEST_F(ServerSideApplyTest, GarbageManagedFieldsFromClientsNeverStickOrCrash) {
  ASSERT_EQ(apply("kubectl", config(5)).status, 201);
  const json stored = call(port_, "GET", kHpa).json();
  for (const char* garbage : {R"("not a list")", R"([1,2])", R"([{"operation":"Explode"}])",
                              R"([{"manager":"x","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"k:{bad":{}}}])",
                              R"([{"manager":"x","operation":"Update","fieldsV1":{"f:a":{"f:b":{"v:1":{"i:0":{"x":{}}}}}}}])",
                              R"([{"manager":7}])", R"([{"manager":"x","operation":"Apply","fieldsV1":[]}])"}) {
    json object = stored;
    object["metadata"]["managedFields"] = json::parse(garbage);
    object["metadata"].erase("resourceVersion");
    object["spec"]["maxReplicas"] = 6;
    const auto reply = call(port_, "PUT", kHpa + std::string("?fieldManager=editor"), object.dump());
    ASSERT_TRUE(reply.status == 200 || reply.status == 400) << garbage << ": " << reply.body;
    const json managed = call(port_, "GET", kHpa).json()["metadata"].value("managedFields", json::array());
    EXPECT_TRUE(decodeManagedFields(managed).has_value()) << garbage << ": " << managed.dump();
  }
  // A set whose members repeat is applied whole rather than member by member.
  std::string repeated = config(6);
  repeated.replace(repeated.find("  name: web\n"), 12, "  name: web\n  finalizers: [example.com/a, example.com/a]\n");
  const auto reply = apply("kubectl", repeated);
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json()["metadata"]["finalizers"].size(), 2u);
}

TEST_F(ServerSideApplyTest, ClearingManagedFieldsWithOneEmptyEntry) {
  ASSERT_EQ(apply("kubectl", config(5)).status, 201);
  const auto cleared = call(port_, "PATCH", kHpa, R"({"metadata":{"managedFields":[{}]}})",
                            {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_FALSE(cleared.json()["metadata"].contains("managedFields"));
  // With no owner left, a new applier takes maxReplicas without a conflict.
  EXPECT_EQ(apply("other", config(8)).status, 200);
}

}  // namespace
}  // namespace fedhpa::apiserver
