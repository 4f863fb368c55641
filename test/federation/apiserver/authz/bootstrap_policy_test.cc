#include "federation/apiserver/authz/bootstrap_policy.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "federation/apiserver/authz/rbac.h"
#include "test/federation/apiserver/authz/resource_attributes.h"

namespace fedhpa::apiserver::authz {
namespace {

using nlohmann::json;

Policy policyWith(const std::vector<json>& extraRoleBindings) {
  const BootstrapPolicy bootstrap = bootstrapPolicy();
  std::vector<json> roleBindings = bootstrap.roleBindings;
  roleBindings.insert(roleBindings.end(), extraRoleBindings.begin(), extraRoleBindings.end());
  return Policy::fromObjects(bootstrap.clusterRoles, bootstrap.roles, bootstrap.clusterRoleBindings, roleBindings);
}

json bindUser(const std::string& user, const std::string& clusterRole, const std::string& namespaceName) {
  return {{"metadata", {{"name", user + "-" + clusterRole}, {"namespace", namespaceName}}},
          {"roleRef", {{"kind", "ClusterRole"}, {"name", clusterRole}}},
          {"subjects", {{{"kind", "User"}, {"name", user}}}}};
}

class BootstrapRoles : public testing::Test {
 protected:
  Policy policy = policyWith({bindUser("viewer", "view", "team"), bindUser("editor", "edit", "team"),
                              bindUser("owner", "admin", "team")});

  bool can(const std::string& who, const std::string& verb, const std::string& group, const std::string& resource,
           const std::string& namespaceName, const std::string& name = "", const std::string& subresource = "",
           std::vector<std::string> groups = {"system:authenticated"}) {
    return authorizeByRbac(policy, resourceAttributes({who, "", std::move(groups), {}}, verb, group, resource,
                                                      namespaceName, name, subresource))
        .allowed;
  }
  bool canGetPath(const std::string& path, std::vector<std::string> groups) {
    Attributes a;
    a.user = {"someone", "", std::move(groups), {}};
    a.verb = "get";
    a.path = path;
    return authorizeByRbac(policy, a).allowed;
  }
};

TEST_F(BootstrapRoles, ViewReadsWorkloadsButNeverSecrets) {
  EXPECT_TRUE(can("viewer", "list", "autoscaling", "horizontalpodautoscalers", "team"));
  EXPECT_TRUE(can("viewer", "watch", "apps", "deployments", "team"));
  EXPECT_TRUE(can("viewer", "get", "autoscaling", "horizontalpodautoscalers", "team", "h", "status"));
  EXPECT_FALSE(can("viewer", "list", "autoscaling", "horizontalpodautoscalers", "other"));
  EXPECT_FALSE(can("viewer", "create", "autoscaling", "horizontalpodautoscalers", "team"));
  for (const char* verb : {"get", "list", "watch"}) EXPECT_FALSE(can("viewer", verb, "", "secrets", "team")) << verb;
  EXPECT_FALSE(can("viewer", "list", "rbac.authorization.k8s.io", "rolebindings", "team"));
}

TEST_F(BootstrapRoles, EditWritesWorkloadsAndSecretsButCannotReadSecrets) {
  EXPECT_TRUE(can("editor", "create", "autoscaling", "horizontalpodautoscalers", "team"));
  EXPECT_TRUE(can("editor", "patch", "apps", "deployments", "team", "d", "scale"));
  EXPECT_TRUE(can("editor", "create", "", "secrets", "team"));
  for (const char* verb : {"get", "list", "watch"}) EXPECT_FALSE(can("editor", verb, "", "secrets", "team")) << verb;
  EXPECT_FALSE(can("editor", "create", "rbac.authorization.k8s.io", "rolebindings", "team"));
}

TEST_F(BootstrapRoles, AdminAlsoReadsSecretsAndManagesRbacInItsNamespace) {
  EXPECT_TRUE(can("owner", "get", "", "secrets", "team", "s"));
  EXPECT_TRUE(can("owner", "create", "rbac.authorization.k8s.io", "rolebindings", "team"));
  EXPECT_FALSE(can("owner", "create", "rbac.authorization.k8s.io", "clusterroles", ""));
  EXPECT_FALSE(can("owner", "get", "", "secrets", "federation-system", "member1"));
}

TEST_F(BootstrapRoles, SystemMastersAreClusterAdmins) {
  const std::vector<std::string> masters = {"system:masters", "system:authenticated"};
  EXPECT_TRUE(can("root", "delete", "federation", "clusters", "", "member1", "", masters));
  EXPECT_TRUE(can("root", "get", "", "secrets", "federation-system", "member1", "", masters));
  EXPECT_TRUE(canGetPath("/metrics", masters));
}

TEST_F(BootstrapRoles, DiscoveryForTheAuthenticatedHealthForEveryone) {
  EXPECT_TRUE(canGetPath("/apis/autoscaling/v2", {"system:authenticated"}));
  EXPECT_TRUE(canGetPath("/openapi/v3", {"system:authenticated"}));
  EXPECT_FALSE(canGetPath("/metrics", {"system:authenticated"}));
  EXPECT_TRUE(canGetPath("/healthz", {"system:unauthenticated"}));
  EXPECT_TRUE(canGetPath("/version", {"system:unauthenticated"}));
  EXPECT_FALSE(canGetPath("/apis", {"system:unauthenticated"}));
  EXPECT_TRUE(can("anyone", "create", "authorization.k8s.io", "selfsubjectaccessreviews", ""));
  EXPECT_TRUE(can("anyone", "create", "authorization.k8s.io", "selfsubjectrulesreviews", ""));
  EXPECT_FALSE(can("anyone", "create", "authorization.k8s.io", "subjectaccessreviews", ""));
}

TEST_F(BootstrapRoles, ControllerManagerHasWhatItUsesAndNoMore) {
  const std::string cm = kControllerManagerUser;
  EXPECT_TRUE(can(cm, "watch", "autoscaling", "horizontalpodautoscalers", ""));
  EXPECT_TRUE(can(cm, "update", "autoscaling", "horizontalpodautoscalers", "team", "h"));
  EXPECT_TRUE(can(cm, "patch", "autoscaling", "horizontalpodautoscalers", "team", "h", "status"));
  EXPECT_TRUE(can(cm, "patch", "federation", "clusters", "", "member1", "status"));
  EXPECT_TRUE(can(cm, "create", "", "events", "team"));
  EXPECT_TRUE(can(cm, "watch", "", "secrets", "federation-system"));
  EXPECT_TRUE(can(cm, "get", "coordination.k8s.io", "leases", "kube-system", "fedhpa-controller-manager"));
  EXPECT_FALSE(can(cm, "get", "coordination.k8s.io", "leases", "kube-system", "someone-elses"));
  EXPECT_FALSE(can(cm, "list", "", "secrets", "")) << "no Secrets cluster-wide";
  EXPECT_FALSE(can(cm, "get", "", "secrets", "default", "s"));
  // A rotated member token is written into the member's Secret; nothing else of the Secrets.
  EXPECT_TRUE(can(cm, "update", "", "secrets", "federation-system", "member1"));
  EXPECT_TRUE(can(cm, "patch", "", "secrets", "federation-system", "member1"));
  EXPECT_FALSE(can(cm, "update", "", "secrets", "default", "s"));
  EXPECT_FALSE(can(cm, "create", "", "secrets", "federation-system"));
  EXPECT_FALSE(can(cm, "delete", "", "secrets", "federation-system", "member1"));
  EXPECT_FALSE(can(cm, "delete", "federation", "clusters", "", "member1"));
  EXPECT_FALSE(can(cm, "update", "federation", "clusters", "", "member1"));
  // Karmada's front door: the HPA a FederatedHPA owns, and the Karmada objects' finalizer and status.
  EXPECT_TRUE(can(cm, "create", "autoscaling", "horizontalpodautoscalers", "team"));
  EXPECT_TRUE(can(cm, "delete", "autoscaling", "horizontalpodautoscalers", "team", "h"));
  EXPECT_TRUE(can(cm, "update", "autoscaling.karmada.io", "federatedhpas", "team", "f"));
  EXPECT_TRUE(can(cm, "update", "autoscaling.karmada.io", "cronfederatedhpas", "team", "c", "status"));
  EXPECT_FALSE(can(cm, "create", "autoscaling.karmada.io", "federatedhpas", "team"));
  EXPECT_FALSE(can(cm, "update", "autoscaling.karmada.io", "cronfederatedhpas", "team", "c"));
  EXPECT_FALSE(can(cm, "delete", "apps", "deployments", "team", "d"));
  EXPECT_FALSE(can(cm, "create", "rbac.authorization.k8s.io", "rolebindings", "team"));
}

json toJson(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (const auto& entry : node) out[entry.first.as<std::string>()] = toJson(entry.second);
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& item : node) out.push_back(toJson(item));
    return out;
  }
  return node.as<std::string>();  // every scalar of an RBAC object is a string
}

TEST(ControllerManagerManifest, EqualsTheBootstrapPolicy) {
  const auto documents = YAML::LoadAllFromFile(FEDHPA_SOURCE_DIR "/manifests/deploy/controller-manager-rbac.yaml");
  std::vector<json> fromFile;
  for (const auto& document : documents) fromFile.push_back(toJson(document));
  const BootstrapPolicy policy = controllerManagerPolicy();
  std::vector<json> fromCode;
  for (const auto* list : {&policy.clusterRoles, &policy.clusterRoleBindings, &policy.roles, &policy.roleBindings})
    fromCode.insert(fromCode.end(), list->begin(), list->end());
  const auto key = [](const json& o) {
    return o["kind"].get<std::string>() + "/" + o["metadata"].value("namespace", "") + "/" + o["metadata"]["name"].get<std::string>();
  };
  const auto byKey = [&](std::vector<json> objects) {
    std::sort(objects.begin(), objects.end(), [&](const json& a, const json& b) { return key(a) < key(b); });
    return objects;
  };
  const auto file = byKey(fromFile);
  const auto code = byKey(fromCode);
  ASSERT_EQ(file.size(), code.size());
  for (std::size_t i = 0; i < file.size(); ++i) EXPECT_EQ(file[i], code[i]) << key(code[i]);
}

}  // namespace
}  // namespace fedhpa::apiserver::authz
