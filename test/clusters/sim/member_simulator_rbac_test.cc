// The member-sim as a real member enforces: ServiceAccounts and their TokenRequest, the tokens
// authenticated as the account, RBAC over what is bound to it, SelfSubjectAccessReview for
// `kubectl auth can-i`, and a deleted account's tokens refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "clusters/sim/member_simulator.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::sim {
namespace {

using apiserver::testing::call;
using apiserver::testing::HttpReply;
using nlohmann::json;

constexpr const char* kAdminToken = "admin-token";
constexpr const char* kAccounts = "/api/v1/namespaces/default/serviceaccounts";

class MemberSimRbacTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("member-sim-rbac-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tokens.csv") << kAdminToken << ",admin,admin-uid,\"system:masters\"\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  MemberSimulatorOptions options(apiserver::authz::AuthorizationMode mode) const {
    MemberSimulatorOptions out;
    out.hpaSyncPeriod = std::chrono::hours(1);
    out.authorization = mode;
    out.http.tokenAuthFile = (dir_ / "tokens.csv").string();
    return out;
  }

  static HttpReply as(std::uint16_t port, const std::string& token, const std::string& method, const std::string& target,
                      const json& body = nullptr) {
    return call(port, method, target, body.is_null() ? "" : body.dump(),
                {{"Content-Type", "application/json"}, {"Authorization", "Bearer " + token}});
  }

  // Creates ServiceAccount default/<name> and returns a token for it.
  static std::string accountToken(std::uint16_t port, const std::string& name) {
    const auto created = as(port, kAdminToken, "POST", kAccounts,
                            {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}});
    EXPECT_EQ(created.status, 201) << created.body;
    const auto issued = as(port, kAdminToken, "POST", std::string(kAccounts) + "/" + name + "/token",
                           {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", json::object()}});
    EXPECT_EQ(issued.status, 201) << issued.body;
    return issued.json()["status"].value("token", "");
  }

  static bool canI(std::uint16_t port, const std::string& token, const json& resourceAttributes) {
    const auto reply = as(port, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                          {{"apiVersion", "authorization.k8s.io/v1"},
                           {"kind", "SelfSubjectAccessReview"},
                           {"spec", {{"resourceAttributes", resourceAttributes}}}});
    EXPECT_EQ(reply.status, 201) << reply.body;
    return reply.json()["status"].value("allowed", false);
  }

  std::filesystem::path dir_;
};

TEST_F(MemberSimRbacTest, AServiceAccountTokenHoldsWhatItsBindingGrantsAndNothingElse) {
  MemberSimulator sim(options(apiserver::authz::AuthorizationMode::Rbac));
  const auto port = sim.start();
  const std::string token = accountToken(port, "fedhpa");
  ASSERT_FALSE(token.empty());
  const json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                     {"kind", "ClusterRole"},
                     {"metadata", {{"name", "hpa-writer"}}},
                     {"rules", {{{"apiGroups", {"autoscaling"}}, {"resources", {"horizontalpodautoscalers"}},
                                 {"verbs", {"get", "list", "create"}}}}}};
  ASSERT_EQ(as(port, kAdminToken, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", role).status, 201);
  const json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                        {"kind", "ClusterRoleBinding"},
                        {"metadata", {{"name", "hpa-writer"}}},
                        {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "hpa-writer"}}},
                        {"subjects", {{{"kind", "ServiceAccount"}, {"name", "fedhpa"}, {"namespace", "default"}}}}};
  ASSERT_EQ(as(port, kAdminToken, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding).status, 201);

  EXPECT_EQ(as(port, token, "GET", apiserver::testing::kHpas).status, 200);
  const auto secrets = as(port, token, "GET", "/api/v1/namespaces/default/secrets");
  EXPECT_EQ(secrets.status, 403) << secrets.body;
  EXPECT_NE(secrets.body.find("system:serviceaccount:default:fedhpa"), std::string::npos) << secrets.body;
  EXPECT_TRUE(canI(port, token, {{"verb", "create"}, {"group", "autoscaling"}, {"resource", "horizontalpodautoscalers"},
                                 {"namespace", "default"}}));
  EXPECT_FALSE(canI(port, token, {{"verb", "get"}, {"resource", "secrets"}, {"namespace", "default"}}));
  EXPECT_FALSE(canI(port, token, {{"verb", "create"}, {"group", "rbac.authorization.k8s.io"}, {"resource", "clusterroles"}}));
  // Its own token only through a grant: none here.
  EXPECT_EQ(as(port, token, "POST", std::string(kAccounts) + "/fedhpa/token", json{{"spec", json::object()}}).status, 403);
}

TEST_F(MemberSimRbacTest, DeletingTheServiceAccountTurnsItsTokenInto401) {
  MemberSimulator sim(options(apiserver::authz::AuthorizationMode::Rbac));
  const auto port = sim.start();
  const std::string token = accountToken(port, "short-lived");
  const auto review = as(port, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                         {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectRulesReview"},
                          {"spec", {{"namespace", "default"}}}});
  EXPECT_EQ(review.status, 201) << review.body;
  ASSERT_EQ(as(port, kAdminToken, "DELETE", std::string(kAccounts) + "/short-lived").status, 200);
  const auto refused = as(port, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                          {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectRulesReview"},
                           {"spec", {{"namespace", "default"}}}});
  EXPECT_EQ(refused.status, 401) << refused.body;
  EXPECT_EQ(refused.json()["reason"], "Unauthorized");
  // A bad bearer token is a 401 even on the paths anyone may read.
  EXPECT_EQ(as(port, token, "GET", "/readyz").status, 401);
  EXPECT_EQ(call(port, "GET", "/readyz").status, 200);
}

TEST_F(MemberSimRbacTest, TokenRequestForAMissingAccountOrABoundObjectIsAStatus) {
  MemberSimulator sim(options(apiserver::authz::AuthorizationMode::AlwaysAllow));
  const auto port = sim.start();
  const auto missing = as(port, kAdminToken, "POST", std::string(kAccounts) + "/nobody/token", json{{"spec", json::object()}});
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(missing.json()["kind"], "Status");
  accountToken(port, "bound");
  const auto bound = as(port, kAdminToken, "POST", std::string(kAccounts) + "/bound/token",
                        json{{"spec", {{"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "p"}}}}}});
  EXPECT_EQ(bound.status, 422) << bound.body;
  EXPECT_EQ(bound.json()["details"]["causes"][0]["field"], "spec.boundObjectRef");
  // Discovery lists the subresource as kubectl create token looks for it.
  const auto discovery = as(port, kAdminToken, "GET", "/api/v1");
  EXPECT_NE(discovery.body.find(R"("name":"serviceaccounts/token")"), std::string::npos);
}

// Without flags (what `fedhpa up` ran before): no credential needed, everything allowed, and
// service-account tokens still authenticate; one it cannot verify (a restarted member-sim's key
// is new) counts as no credential, as on any unauthenticated member-sim.
TEST(MemberSimDefaults, AnonymousRequestsAreServedAndTokensStillAuthenticate) {
  MemberSimulatorOptions options;
  options.hpaSyncPeriod = std::chrono::hours(1);
  MemberSimulator sim(options);
  const auto port = sim.start();
  EXPECT_EQ(call(port, "GET", "/api/v1/namespaces/default/secrets").status, 200);
  ASSERT_EQ(call(port, "POST", kAccounts, R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"a"}})").status, 201);
  const auto issued = call(port, "POST", std::string(kAccounts) + "/a/token", R"({"spec":{}})");
  ASSERT_EQ(issued.status, 201) << issued.body;
  const std::string token = issued.json()["status"]["token"];
  const auto review = call(port, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                           R"({"kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"secrets"}}})",
                           {{"Content-Type", "application/json"}, {"Authorization", "Bearer " + token}});
  ASSERT_EQ(review.status, 201) << review.body;
  EXPECT_EQ(review.json()["status"]["allowed"], true);
  EXPECT_EQ(call(port, "GET", "/api/v1/namespaces/default/secrets", "",
                 {{"Authorization", "Bearer " + token + "x"}}).status, 200);
}

// Shutdown order under RBAC: the faults layer is made before the API server and so outlives it,
// while the API handler it holds keeps RBAC's policy cache, whose watches point into the server's
// storage. stop() lets the handler go while the storage is there; the sanitizer trees run this.
TEST_F(MemberSimRbacTest, ShutsDownCleanlyAfterServingUnderRbac) {
  for (int round = 0; round < 3; ++round) {
    MemberSimulator sim(options(apiserver::authz::AuthorizationMode::Rbac));
    const auto port = sim.start();
    ASSERT_EQ(as(port, kAdminToken, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles").status, 200);
    EXPECT_EQ(as(port, "wrong", "GET", apiserver::testing::kHpas).status, 401);
    sim.stop();
  }
}

}  // namespace
}  // namespace fedhpa::sim
