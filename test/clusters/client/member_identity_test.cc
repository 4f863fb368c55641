// The identity join gives the federation in a member: what its plan grants (checked with the API
// server library's RBAC evaluator, as a member would decide), and applying it, taking a token,
// verifying and removing it against a member-sim that enforces RBAC.
#include "clusters/client/member_identity.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "clusters/client/rest_client.h"
#include "clusters/sim/member_simulator.h"
#include "federation/apiserver/authz/rbac.h"
#include "test/federation/apiserver/authz/resource_attributes.h"

namespace fedhpa::clusters {
namespace {

using apiserver::authz::UserIdentity;

constexpr const char* kAdminToken = "member-admin";

const UserIdentity& federationAccount() {
  static const UserIdentity user{"system:serviceaccount:fedhpa-system:fedhpa-controller-manager", "uid",
                                 {"system:serviceaccounts", "system:serviceaccounts:fedhpa-system", "system:authenticated"},
                                 {}};
  return user;
}

bool planAllows(const std::string& verb, const std::string& group, const std::string& resource,
                const std::string& ns = "", const std::string& name = "", const std::string& subresource = "") {
  std::vector<json> clusterRoles, roles, clusterRoleBindings, roleBindings;
  for (const auto& planned : memberIdentityPlan()) {
    const std::string kind = planned.object["kind"];
    if (kind == "ClusterRole") clusterRoles.push_back(planned.object);
    if (kind == "Role") roles.push_back(planned.object);
    if (kind == "ClusterRoleBinding") clusterRoleBindings.push_back(planned.object);
    if (kind == "RoleBinding") roleBindings.push_back(planned.object);
  }
  const auto policy = apiserver::authz::Policy::fromObjects(clusterRoles, roles, clusterRoleBindings, roleBindings);
  return apiserver::authz::authorizeByRbac(
             policy, apiserver::authz::resourceAttributes(federationAccount(), verb, group, resource, ns, name, subresource))
      .allowed;
}

TEST(MemberIdentityPlan, GrantsWhatTheControllerDoesInAMemberAndNoMore) {
  for (const char* verb : {"get", "list", "watch", "create", "update", "patch", "delete"}) {
    EXPECT_TRUE(planAllows(verb, "autoscaling", "horizontalpodautoscalers", "shop")) << verb;
    EXPECT_TRUE(planAllows(verb, "apps", "deployments", "shop")) << verb;
  }
  EXPECT_TRUE(planAllows("create", "", "namespaces"));
  EXPECT_FALSE(planAllows("delete", "", "namespaces", "", "shop"));
  EXPECT_FALSE(planAllows("patch", "autoscaling", "horizontalpodautoscalers", "shop", "web", "status"));  // a member's own
  EXPECT_FALSE(planAllows("get", "", "secrets", "fedhpa-system", "any"));
  EXPECT_FALSE(planAllows("list", "", "secrets", ""));
  EXPECT_FALSE(planAllows("create", "rbac.authorization.k8s.io", "clusterroles"));
  EXPECT_FALSE(planAllows("create", "rbac.authorization.k8s.io", "rolebindings", "fedhpa-system"));
  EXPECT_FALSE(planAllows("create", "", "events", "shop"));
}

TEST(MemberIdentityPlan, MayAskForItsOwnTokenOnly) {
  EXPECT_TRUE(planAllows("create", "", "serviceaccounts", kMemberNamespace, kMemberServiceAccount, "token"));
  EXPECT_FALSE(planAllows("create", "", "serviceaccounts", kMemberNamespace, "default", "token"));
  EXPECT_FALSE(planAllows("create", "", "serviceaccounts", "kube-system", kMemberServiceAccount, "token"));
  EXPECT_FALSE(planAllows("get", "", "serviceaccounts", kMemberNamespace, kMemberServiceAccount));
}

TEST(MemberIdentityPlan, CreatesTheNamespaceFirstAndBindsTheAccountItCreates) {
  const auto plan = memberIdentityPlan();
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(plan.front().object["kind"], "Namespace");
  EXPECT_EQ(plan.front().object["metadata"]["name"], kMemberNamespace);
  for (const auto& planned : plan) {
    if (!planned.object.contains("subjects")) continue;
    EXPECT_EQ(planned.object["subjects"],
              json::array({{{"kind", "ServiceAccount"}, {"name", kMemberServiceAccount}, {"namespace", kMemberNamespace}}}));
  }
}

class MemberIdentityAgainstMemberSim : public ::testing::Test {
 protected:
  void SetUp() override {
    initializeHttpClientPool(4);
    dir_ = std::filesystem::temp_directory_path() / ("member-identity-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tokens.csv") << kAdminToken << ",admin,admin,\"system:masters\"\n";
    sim::MemberSimulatorOptions options;
    options.hpaSyncPeriod = std::chrono::hours(1);
    options.authorization = apiserver::authz::AuthorizationMode::Rbac;
    options.http.tokenAuthFile = (dir_ / "tokens.csv").string();
    member_ = std::make_unique<sim::MemberSimulator>(options);
    port_ = member_->start();
  }
  void TearDown() override {
    member_.reset();
    std::filesystem::remove_all(dir_);
  }
  RestConfig config(const std::string& token) const {
    RestConfig out;
    out.server = "http://127.0.0.1:" + std::to_string(port_);
    out.bearerToken = token;
    return out;
  }
  static RestClientOptions once() {
    RestClientOptions options;
    options.retry.attempts = 1;
    return options;
  }

  std::filesystem::path dir_;
  std::unique_ptr<sim::MemberSimulator> member_;
  std::uint16_t port_ = 0;
};

TEST_F(MemberIdentityAgainstMemberSim, AppliedTwiceTokenWorksUntilTheIdentityIsRemoved) {
  RestClient admin(config(kAdminToken), once());
  const auto plan = memberIdentityPlan();
  applyMemberIdentity(admin, plan);
  // Drift: someone widened the role; a re-join puts it back.
  json role = admin.get(kClusterRoles, "", kMemberRoleName);
  role["rules"].push_back({{"apiGroups", {""}}, {"resources", {"secrets"}}, {"verbs", {"get"}}});
  admin.update(kClusterRoles, role);
  applyMemberIdentity(admin, plan);
  EXPECT_EQ(admin.get(kClusterRoles, "", kMemberRoleName)["rules"], plan[2].object["rules"]);

  const IssuedToken issued = requestMemberToken(admin, std::chrono::hours(24));
  EXPECT_FALSE(issued.expirationTimestamp.empty());
  RestClient federation(config(issued.token), once());
  verifyMemberAccess(federation);
  // The account's own next token, through the Role join made.
  EXPECT_FALSE(requestMemberToken(federation, std::chrono::hours(1)).token.empty());
  try {
    federation.list(Resource{"", "v1", "secrets", true}, "default", {});
    ADD_FAILURE() << "the federation's account read Secrets";
  } catch (const ClientError& error) {
    EXPECT_EQ(error.kind(), ClientError::Kind::Forbidden);
  }

  const IdentityRemoval removal = removeMemberIdentity(admin, plan);
  EXPECT_EQ(removal.removed, plan.size());
  EXPECT_TRUE(removal.kept.empty());
  EXPECT_EQ(removeMemberIdentity(admin, plan).removed, 0u);  // gone is no error
  try {
    verifyMemberAccess(federation);
    ADD_FAILURE() << "the removed account's token still works";
  } catch (const ClientError& error) {
    EXPECT_EQ(error.kind(), ClientError::Kind::Unauthorized);
  }
}

// A namespace fedhpa-system the operator made before join (with something of theirs in it), and a
// ClusterRole of that name someone else keeps: join uses them (and repairs the role's rules) but
// does not label them, and unjoin deletes only what carries fedhpa's label.
TEST_F(MemberIdentityAgainstMemberSim, UnjoinDeletesOnlyWhatCarriesFedhpasLabel) {
  RestClient admin(config(kAdminToken), once());
  admin.create(kMemberNamespaces, "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kMemberNamespace}}}});
  const Resource configMaps{"", "v1", "configmaps", true};
  admin.create(configMaps, kMemberNamespace,
               {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "theirs"}}}, {"data", {{"k", "v"}}}});
  admin.create(kClusterRoles, "", {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
                                   {"metadata", {{"name", kMemberRoleName}, {"labels", {{kIdentityManagedByLabel, "someone-else"}}}}},
                                   {"rules", json::array()}});
  const auto plan = memberIdentityPlan();
  applyMemberIdentity(admin, plan);
  EXPECT_EQ(admin.get(kClusterRoles, "", kMemberRoleName)["rules"], plan[2].object["rules"]) << "join still repairs it";
  EXPECT_EQ(admin.get(kServiceAccounts, kMemberNamespace, kMemberServiceAccount)["metadata"]["labels"][kIdentityManagedByLabel],
            "fedhpa");

  const IdentityRemoval removal = removeMemberIdentity(admin, plan);
  EXPECT_EQ(removal.removed, 4u);  // the ServiceAccount, the ClusterRoleBinding, the Role and its binding
  EXPECT_EQ(removal.kept, (std::vector<std::string>{"ClusterRole fedhpa:controller-manager", "Namespace fedhpa-system"}));
  EXPECT_EQ(admin.get(kMemberNamespaces, "", kMemberNamespace)["metadata"]["name"], kMemberNamespace);
  EXPECT_EQ(admin.get(configMaps, kMemberNamespace, "theirs")["data"]["k"], "v");
  EXPECT_EQ(admin.get(kClusterRoles, "", kMemberRoleName)["metadata"]["labels"][kIdentityManagedByLabel], "someone-else");
  for (const auto& [resource, name] : {std::pair{kServiceAccounts, std::string(kMemberServiceAccount)},
                                       std::pair{kClusterRoleBindings, std::string(kMemberRoleName)},
                                       std::pair{kRoles, std::string(kMemberRoleName)}}) {
    try {
      admin.get(resource, resource.namespaced ? kMemberNamespace : "", name);
      ADD_FAILURE() << resource.resource << " " << name << " is still there";
    } catch (const ClientError& error) {
      EXPECT_EQ(error.kind(), ClientError::Kind::NotFound);
    }
  }
}

TEST_F(MemberIdentityAgainstMemberSim, VerifyRefusesACredentialThatMayNotWriteHpas) {
  RestClient admin(config(kAdminToken), once());
  admin.create(kServiceAccounts, "default", {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "nobody"}}}});
  const json answer = admin.createSubresource(kServiceAccounts, "default", "nobody", "token", {{"spec", json::object()}});
  RestClient nobody(config(answer["status"]["token"]), once());
  try {
    verifyMemberAccess(nobody);
    ADD_FAILURE() << "an account without grants passed";
  } catch (const ClientError& error) {
    EXPECT_EQ(error.kind(), ClientError::Kind::Forbidden);
    EXPECT_NE(std::string(error.what()).find("may not create horizontalpodautoscalers"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fedhpa::clusters
