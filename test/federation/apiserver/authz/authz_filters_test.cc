// The authorization layer in front of a fake API: impersonation, the reviews, escalation checks,
// policy changes seen at once, and the audit log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "federation/api/served_types.h"
#include "federation/apiserver/authz/audit.h"
#include "federation/apiserver/authz/bootstrap_policy.h"
#include "federation/apiserver/authz/secure_handler.h"
#include "federation/apiserver/resource_store.h"
#include "federation/storage/sqlite_storage.h"

namespace fedhpa::apiserver::authz {
namespace {

using nlohmann::json;
using testing::HasSubstr;

class CapturingResponder : public http::Responder {
 public:
  void respond(http::Response response) override { this->response = std::move(response); }
  std::shared_ptr<http::ResponseStream> stream(int, http::Headers) override { return nullptr; }
  http::Response response;
  json body() const { return json::parse(response.flatBody()); }
};

// The API behind the filters: writes RBAC bindings to the real store, answers 201 with the body,
// and remembers who it served. A DELETE of the RoleBindings collection is answered later, by
// answerCollectionDelete(), as the API server's heavy-request pool answers after handle() returned.
class FakeApi : public http::Handler {
 public:
  explicit FakeApi(ResourceStore& roleBindings) : roleBindings_(roleBindings) {}
  void handle(http::Request request, std::shared_ptr<http::Responder> responder) override {
    servedAs = request.user ? request.user->name : "";
    ++calls;
    if (request.method == "DELETE" && request.path.ends_with("/rolebindings")) {
      pendingCollectionDelete_ = std::move(responder);
      return;
    }
    json body = request.body.empty() ? json::object() : json::parse(request.body);
    if (request.method == "POST" && request.path.find("/rolebindings") != std::string::npos)
      roleBindings_.create(body["metadata"]["namespace"], body, false);
    responder->respond({201, {{"Content-Type", "application/json"}}, body.dump()});
  }
  void answerCollectionDelete(const std::string& namespaceName) {
    for (const auto& binding : roleBindings_.list({namespaceName, {}, std::nullopt, ""}).items)
      roleBindings_.remove(namespaceName, binding["metadata"]["name"], {});
    std::exchange(pendingCollectionDelete_, nullptr)->respond({200, {{"Content-Type", "application/json"}}, "{}"});
  }
  std::string servedAs;
  int calls = 0;

 private:
  ResourceStore& roleBindings_;
  std::shared_ptr<http::Responder> pendingCollectionDelete_;
};

class AuthzFilters : public testing::Test {
 protected:
  AuthzFilters() {
    ensureBootstrapPolicy(bootstrapPolicy(), clusterRoles, clusterRoleBindings, roles, roleBindings);
    SecurityOptions options;
    options.mode = AuthorizationMode::Rbac;
    options.auditLogPath = auditPath;
    handler = secureHandler(api, options, {&clusterRoles, &clusterRoleBindings, &roles, &roleBindings, true});
  }
  ~AuthzFilters() override { std::filesystem::remove(auditPath); }

  CapturingResponder send(const std::string& method, const std::string& path, const std::string& user,
                          std::vector<std::string> groups = {}, json body = nullptr, http::Headers headers = {}) {
    http::Request request;
    request.method = method;
    request.path = path;
    request.headers = std::move(headers);
    groups.push_back("system:authenticated");
    request.user = http::UserInfo{user, "", groups};
    request.remoteAddress = "10.0.0.7";
    if (!body.is_null()) request.body = body.dump();
    auto responder = std::make_shared<CapturingResponder>();
    handler->handle(std::move(request), responder);
    return *responder;
  }

  json bindingTo(const std::string& role, const std::string& user, const std::string& namespaceName,
                 const std::string& kind = "ClusterRole") {
    return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "RoleBinding"},
            {"metadata", {{"name", user + "-" + role}, {"namespace", namespaceName}}},
            {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", role}}},
            {"subjects", {{{"kind", "User"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", user}}}}};
  }

  std::unique_ptr<storage::Storage> storage = storage::SqliteStorage::openInMemory({});
  ResourceStore clusterRoles{api::clusterRoleType(), *storage};
  ResourceStore clusterRoleBindings{api::clusterRoleBindingType(), *storage};
  ResourceStore roles{api::roleType(), *storage};
  ResourceStore roleBindings{api::roleBindingType(), *storage};
  std::shared_ptr<FakeApi> api = std::make_shared<FakeApi>(roleBindings);
  std::string auditPath = testing::TempDir() + "/authz_filters_audit_" + std::to_string(::getpid()) + ".log";
  std::shared_ptr<http::Handler> handler;
};

const std::string kHpas = "/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers";
const std::string kRoleBindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings";

TEST_F(AuthzFilters, DeniedRequestsNeverReachTheApi) {
  const auto answer = send("GET", kHpas, "alice");
  EXPECT_EQ(answer.response.status, 403);
  EXPECT_EQ(answer.body()["message"], "horizontalpodautoscalers.autoscaling is forbidden: User \"alice\" cannot list resource "
                                      "\"horizontalpodautoscalers\" in API group \"autoscaling\" in the namespace \"team\"");
  EXPECT_EQ(api->calls, 0);
}

TEST_F(AuthzFilters, ABindingWrittenThroughTheApiAppliesToTheNextRequest) {
  EXPECT_EQ(send("POST", kRoleBindings, "root", {"system:masters"}, bindingTo("view", "alice", "team")).response.status, 201);
  EXPECT_EQ(send("GET", kHpas, "alice").response.status, 201) << "served by the fake API";
  EXPECT_EQ(api->servedAs, "alice");
}

// A collection delete of RoleBindings is answered from another thread after the filters passed it
// on; a request authorized meanwhile reads the policy before the delete. The policy is read again
// once the delete is answered, not only when it was passed on: otherwise the deleted binding
// would keep granting until the next policy change. Its audit record has the answer's status.
TEST_F(AuthzFilters, ABindingDeletedByALaterAnsweredCollectionDeleteStopsGrantingWhenAnswered) {
  EXPECT_EQ(send("POST", kRoleBindings, "root", {"system:masters"}, bindingTo("view", "alice", "team")).response.status, 201);
  send("DELETE", kRoleBindings, "root", {"system:masters"});  // answered below
  EXPECT_EQ(send("GET", kHpas, "alice").response.status, 201) << "the binding is still there";
  api->answerCollectionDelete("team");
  EXPECT_EQ(send("GET", kHpas, "alice").response.status, 403) << "the deleted binding grants nothing";
  std::ifstream file(auditPath);
  std::vector<json> records;
  for (std::string line; std::getline(file, line);) records.push_back(json::parse(line));
  const auto collectionDelete = std::find_if(records.begin(), records.end(), [](const json& r) { return r["verb"] == "deletecollection"; });
  ASSERT_NE(collectionDelete, records.end());
  EXPECT_EQ((*collectionDelete)["responseStatus"]["code"], 200);
}

// Another API server on the same storage writes a binding: this one learns of it from its watch
// on the RBAC stores, as kube-apiserver's RBAC informers do, not only from writes through itself.
TEST_F(AuthzFilters, ABindingWrittenThroughAnotherApiServerSoonApplies) {
  EXPECT_EQ(send("GET", kHpas, "alice").response.status, 403) << "the policy is read, and cached";
  roleBindings.create("team", bindingTo("view", "alice", "team"), false);  // not through this server
  int status = 0;
  for (int i = 0; i < 500 && status != 201; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    status = send("GET", kHpas, "alice").response.status;
  }
  EXPECT_EQ(status, 201) << "still denied 5 s after the binding was stored";
}

TEST_F(AuthzFilters, ImpersonationNeedsTheImpersonateVerb) {
  const auto denied = send("GET", kHpas, "alice", {}, nullptr, {{"Impersonate-User", "bob"}});
  EXPECT_EQ(denied.response.status, 403);
  EXPECT_EQ(denied.body()["message"],
            "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope");
  const auto allowed = send("GET", kHpas, "root", {"system:masters"}, nullptr,
                            {{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:masters"}});
  EXPECT_EQ(allowed.response.status, 201);
  EXPECT_EQ(api->servedAs, "bob");
  const auto asBob = send("GET", kHpas, "root", {"system:masters"}, nullptr, {{"Impersonate-User", "bob"}});
  EXPECT_EQ(asBob.response.status, 403) << "bob himself holds nothing";
  EXPECT_THAT(asBob.body()["message"].get<std::string>(), HasSubstr("User \"bob\" cannot list"));
  EXPECT_EQ(send("GET", kHpas, "root", {"system:masters"}, nullptr, {{"Impersonate-Group", "x"}}).response.status, 400);
}

TEST_F(AuthzFilters, ReviewsAreAnsweredHereAndNeverStored) {
  send("POST", kRoleBindings, "root", {"system:masters"}, bindingTo("view", "alice", "team"));
  const int callsBefore = api->calls;
  const json access = {{"apiVersion", "authorization.k8s.io/v1"},
                       {"kind", "SelfSubjectAccessReview"},
                       {"spec", {{"resourceAttributes", {{"namespace", "team"}, {"verb", "list"}, {"group", "autoscaling"},
                                                         {"resource", "horizontalpodautoscalers"}}}}}};
  const auto yes = send("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "alice", {}, access);
  EXPECT_EQ(yes.response.status, 201);
  EXPECT_EQ(yes.body()["status"]["allowed"], true);
  EXPECT_THAT(yes.body()["status"]["reason"].get<std::string>(), HasSubstr("RoleBinding \"team/alice-view\" of ClusterRole \"view\""));
  json secrets = access;
  secrets["spec"]["resourceAttributes"] = {{"namespace", "team"}, {"verb", "get"}, {"resource", "secrets"}};
  EXPECT_EQ(send("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "alice", {}, secrets).body()["status"]["allowed"],
            false);
  const json rulesReview = {{"kind", "SelfSubjectRulesReview"}, {"spec", {{"namespace", "team"}}}};
  const auto rules = send("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "alice", {}, rulesReview).body();
  bool hpaRule = false;
  for (const auto& rule : rules["status"]["resourceRules"]) {
    EXPECT_NE(rule["resources"][0], "secrets");
    hpaRule |= rule["resources"][0] == "horizontalpodautoscalers";
  }
  EXPECT_TRUE(hpaRule);
  json sar = access;
  sar["kind"] = "SubjectAccessReview";
  sar["spec"]["user"] = "alice";
  EXPECT_EQ(send("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "alice", {}, sar).response.status, 403)
      << "asking about others needs its own right";
  EXPECT_EQ(send("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "root", {"system:masters"}, sar)
                .body()["status"]["allowed"],
            true);
  EXPECT_EQ(send("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "root", {"system:masters"}).response.status, 405);
  EXPECT_EQ(send("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "alice", {}, json{{"spec", json::object()}})
                .response.status,
            422);
  EXPECT_EQ(api->calls, callsBefore);
}

TEST_F(AuthzFilters, NobodyGrantsMoreThanTheyHold) {
  send("POST", kRoleBindings, "root", {"system:masters"}, bindingTo("admin", "owner", "team"));
  EXPECT_EQ(send("POST", kRoleBindings, "owner", {}, bindingTo("edit", "carol", "team")).response.status, 201);
  const auto escalation = send("POST", kRoleBindings, "owner", {}, bindingTo("cluster-admin", "carol", "team"));
  EXPECT_EQ(escalation.response.status, 403);
  EXPECT_THAT(escalation.body()["message"].get<std::string>(),
              HasSubstr("rolebindings.rbac.authorization.k8s.io \"carol-cluster-admin\" is forbidden: user \"owner\" "
                        "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"
                        "{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}"));
  const json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"},
                     {"metadata", {{"name", "r"}, {"namespace", "team"}}},
                     {"rules", {{{"apiGroups", {""}}, {"resources", {"secrets"}}, {"verbs", {"get"}}}}}};
  const std::string rolesPath = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles";
  EXPECT_EQ(send("POST", rolesPath, "owner", {}, role).response.status, 201);
  json wider = role;
  wider["rules"][0]["resources"] = {"secrets", "clusters"};
  EXPECT_EQ(send("POST", rolesPath, "owner", {}, wider).response.status, 403);
  EXPECT_EQ(send("PATCH", rolesPath + "/r", "owner", {}, json::object()).response.status, 403) << "a patch needs escalate";
  EXPECT_EQ(send("PATCH", kRoleBindings + "/owner-admin", "owner", {}, json::object()).response.status, 201)
      << "a binding's patch is checked against its current roleRef, which the owner holds";
}

TEST_F(AuthzFilters, TheAuditLogSaysWhoDidWhatAndTheResponseNamesTheEvent) {
  const json hpa = {{"metadata", {{"name", "web"}}}};
  const auto created = send("POST", kHpas, "root", {"system:masters"}, hpa, {{"User-Agent", "kubectl/v1.32.4"}});
  send("GET", kHpas, "alice");
  std::ifstream file(auditPath);
  std::string first, second;
  std::getline(file, first);
  std::getline(file, second);
  const json create = json::parse(first);
  EXPECT_EQ(create["apiVersion"], "audit.k8s.io/v1");
  EXPECT_EQ(create["kind"], "Event");
  EXPECT_EQ(create["level"], "Metadata");
  EXPECT_EQ(create["stage"], "ResponseComplete");
  EXPECT_EQ(create["verb"], "create");
  EXPECT_EQ(create["user"]["username"], "root");
  EXPECT_EQ(create["sourceIPs"], json({"10.0.0.7"}));
  EXPECT_EQ(create["userAgent"], "kubectl/v1.32.4");
  EXPECT_EQ(create["objectRef"], json({{"resource", "horizontalpodautoscalers"}, {"namespace", "team"}, {"name", "web"},
                                       {"apiGroup", "autoscaling"}, {"apiVersion", "v2"}}));
  EXPECT_EQ(create["responseStatus"]["code"], 201);
  EXPECT_EQ(create["requestURI"], kHpas);
  EXPECT_EQ(created.response.headers.find("Audit-Id")->second, create["auditID"]);
  EXPECT_THAT(create["requestReceivedTimestamp"].get<std::string>(), testing::MatchesRegex("^[0-9-]+T[0-9:]+\\.[0-9]{6}Z$"));
  const json denied = json::parse(second);
  EXPECT_EQ(denied["user"]["username"], "alice");
  EXPECT_EQ(denied["verb"], "list");
  EXPECT_EQ(denied["responseStatus"]["code"], 403);
}

TEST(AuditLog, RotatesAFullFile) {
  const std::filesystem::path directory = testing::TempDir();
  const std::string name = "audit_rotation_" + std::to_string(::getpid()) + ".log";
  const std::string path = (directory / name).string();
  {
    AuditLog log(path, 600);
    AuditRecord record;
    record.auditId = "id";
    for (int i = 0; i < 4; ++i) log.write(record);
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    if (entry.path().filename().string().rfind(name, 0) == 0) {
      ++files;
      EXPECT_LE(std::filesystem::file_size(entry.path()), 1200u);
      std::filesystem::remove(entry.path());
    }
  EXPECT_GE(files, 2);
}

}  // namespace
}  // namespace fedhpa::apiserver::authz
