#include "federation/apiserver/authz/rbac.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/federation/apiserver/authz/resource_attributes.h"

namespace fedhpa::apiserver::authz {
namespace {

using nlohmann::json;

UserIdentity user(const std::string& name, std::vector<std::string> groups = {"system:authenticated"}) {
  return {name, "", std::move(groups), {}};
}

Attributes resourceRequest(const std::string& verb, const std::string& group, const std::string& resource,
                           const std::string& namespaceName = "", const std::string& name = "",
                           const std::string& subresource = "", UserIdentity who = user("alice")) {
  return resourceAttributes(std::move(who), verb, group, resource, namespaceName, name, subresource);
}

Attributes pathRequest(const std::string& verb, const std::string& path) {
  Attributes a;
  a.user = user("alice");
  a.verb = verb;
  a.path = path;
  return a;
}

PolicyRule rule(const json& j) { return PolicyRule::fromJson(j); }

TEST(RbacRule, VerbsMatchExactlyOrByWildcard) {
  const auto getOnly = rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"pods"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "", "pods", "ns", "p"), getOnly));
  EXPECT_FALSE(ruleAllows(resourceRequest("list", "", "pods", "ns"), getOnly));
  EXPECT_FALSE(ruleAllows(resourceRequest("watch", "", "pods", "ns"), getOnly));
  const auto any = rule({{"verbs", {"*"}}, {"apiGroups", {""}}, {"resources", {"pods"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("deletecollection", "", "pods", "ns"), any));
  EXPECT_TRUE(ruleAllows(resourceRequest("impersonate", "", "pods"), any));
}

TEST(RbacRule, ApiGroupsSeparateCoreFromNamedGroups) {
  const auto core = rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"*"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "", "secrets", "ns", "s"), core));
  EXPECT_FALSE(ruleAllows(resourceRequest("get", "apps", "deployments", "ns", "d"), core));
  const auto anyGroup = rule({{"verbs", {"get"}}, {"apiGroups", {"*"}}, {"resources", {"deployments"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "apps", "deployments", "ns", "d"), anyGroup));
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "extensions", "deployments", "ns", "d"), anyGroup));
}

TEST(RbacRule, ResourcesNameSubresourcesExplicitly) {
  const auto pods = rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"pods"}}});
  EXPECT_FALSE(ruleAllows(resourceRequest("get", "", "pods", "ns", "p", "log"), pods)) << "pods does not grant pods/log";
  const auto logs = rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"pods/log"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "", "pods", "ns", "p", "log"), logs));
  EXPECT_FALSE(ruleAllows(resourceRequest("get", "", "pods", "ns", "p"), logs)) << "pods/log does not grant pods";
  const auto anyScale = rule({{"verbs", {"update"}}, {"apiGroups", {"apps"}}, {"resources", {"*/scale"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("update", "apps", "deployments", "ns", "d", "scale"), anyScale));
  EXPECT_FALSE(ruleAllows(resourceRequest("update", "apps", "deployments", "ns", "d", "status"), anyScale));
  EXPECT_FALSE(ruleAllows(resourceRequest("update", "apps", "deployments", "ns", "d"), anyScale));
  const auto everything = rule({{"verbs", {"get"}}, {"apiGroups", {"apps"}}, {"resources", {"*"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "apps", "deployments", "ns", "d", "status"), everything));
}

TEST(RbacRule, ResourceNamesLimitToNamedObjects) {
  const auto named = rule({{"verbs", {"get", "list", "update"}}, {"apiGroups", {"coordination.k8s.io"}},
                           {"resources", {"leases"}}, {"resourceNames", {"mine"}}});
  EXPECT_TRUE(ruleAllows(resourceRequest("get", "coordination.k8s.io", "leases", "ns", "mine"), named));
  EXPECT_TRUE(ruleAllows(resourceRequest("update", "coordination.k8s.io", "leases", "ns", "mine"), named));
  EXPECT_FALSE(ruleAllows(resourceRequest("get", "coordination.k8s.io", "leases", "ns", "theirs"), named));
  EXPECT_FALSE(ruleAllows(resourceRequest("list", "coordination.k8s.io", "leases", "ns"), named))
      << "a list names no object, so a name-limited rule cannot allow it";
}

TEST(RbacRule, NonResourceUrlsMatchExactlyOrByPrefix) {
  const auto urls = rule({{"verbs", {"get"}}, {"nonResourceURLs", {"/healthz", "/apis/*"}}});
  EXPECT_TRUE(ruleAllows(pathRequest("get", "/healthz"), urls));
  EXPECT_FALSE(ruleAllows(pathRequest("get", "/healthz/etcd"), urls));
  EXPECT_TRUE(ruleAllows(pathRequest("get", "/apis/autoscaling/v2"), urls));
  EXPECT_FALSE(ruleAllows(pathRequest("get", "/apis"), urls)) << "/apis/* needs the slash";
  EXPECT_FALSE(ruleAllows(pathRequest("post", "/healthz"), urls));
  EXPECT_FALSE(ruleAllows(pathRequest("get", "/metrics"), urls));
  EXPECT_FALSE(ruleAllows(resourceRequest("get", "", "healthz"), urls)) << "URL rules never match resources";
  const auto resources = rule({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}});
  EXPECT_FALSE(ruleAllows(pathRequest("get", "/metrics"), resources)) << "resource rules never match paths";
  EXPECT_TRUE(ruleAllows(pathRequest("get", "/metrics"), rule({{"verbs", {"get"}}, {"nonResourceURLs", {"*"}}})));
}

json binding(const std::string& kind, const std::string& name, const std::string& namespaceName, const std::string& roleKind,
             const std::string& roleName, const json& subjects) {
  json meta = {{"name", name}};
  if (!namespaceName.empty()) meta["namespace"] = namespaceName;
  return {{"kind", kind}, {"metadata", meta}, {"roleRef", {{"kind", roleKind}, {"name", roleName}}}, {"subjects", subjects}};
}

Policy examplePolicy() {
  Policy policy;
  policy.clusterRoles["hpa-reader"] = {rule({{"verbs", {"get", "list"}}, {"apiGroups", {"autoscaling"}},
                                             {"resources", {"horizontalpodautoscalers"}}})};
  policy.clusterRoles["cluster-reader"] = {rule({{"verbs", {"list"}}, {"apiGroups", {"federation"}}, {"resources", {"clusters"}}})};
  policy.roles[{"team", "secret-reader"}] = {rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"secrets"}}})};
  policy.clusterRoleBindings.push_back(Binding::fromJson(binding("ClusterRoleBinding", "readers", "", "ClusterRole",
                                                                 "cluster-reader", {{{"kind", "Group"}, {"name", "ops"}}})));
  policy.roleBindings["team"].push_back(Binding::fromJson(binding("RoleBinding", "alice-hpa", "team", "ClusterRole", "hpa-reader",
                                                                  {{{"kind", "User"}, {"name", "alice"}}})));
  policy.roleBindings["team"].push_back(Binding::fromJson(binding("RoleBinding", "sa-secrets", "team", "Role", "secret-reader",
                                                                  {{{"kind", "ServiceAccount"}, {"name", "robot"}}})));
  policy.roleBindings["team"].push_back(Binding::fromJson(binding("RoleBinding", "dangling", "team", "Role", "missing",
                                                                  {{{"kind", "User"}, {"name", "alice"}}})));
  policy.roleBindings["other"].push_back(Binding::fromJson(binding("RoleBinding", "other-sa", "other", "ClusterRole", "hpa-reader",
                                                                   {{{"kind", "ServiceAccount"}, {"name", "robot"}, {"namespace", "team"}}})));
  return policy;
}

TEST(RbacBindings, RoleBindingToClusterRoleGrantsOnlyInItsNamespace) {
  const Policy policy = examplePolicy();
  const auto decision = authorizeByRbac(policy, resourceRequest("list", "autoscaling", "horizontalpodautoscalers", "team"));
  EXPECT_TRUE(decision.allowed);
  EXPECT_EQ(decision.reason, "RBAC: allowed by RoleBinding \"team/alice-hpa\" of ClusterRole \"hpa-reader\" to User \"alice\"");
  EXPECT_FALSE(authorizeByRbac(policy, resourceRequest("list", "autoscaling", "horizontalpodautoscalers", "other")).allowed);
  EXPECT_FALSE(authorizeByRbac(policy, resourceRequest("list", "autoscaling", "horizontalpodautoscalers", "")).allowed)
      << "a RoleBinding never grants cluster-wide";
  EXPECT_FALSE(authorizeByRbac(policy, resourceRequest("list", "autoscaling", "horizontalpodautoscalers", "team", "", "",
                                                       user("bob")))
                   .allowed);
}

TEST(RbacBindings, ClusterRoleBindingGrantsEverywhereToItsGroup) {
  const Policy policy = examplePolicy();
  const auto ops = user("carol", {"ops", "system:authenticated"});
  EXPECT_TRUE(authorizeByRbac(policy, resourceRequest("list", "federation", "clusters", "", "", "", ops)).allowed);
  EXPECT_TRUE(authorizeByRbac(policy, resourceRequest("list", "federation", "clusters", "any", "", "", ops)).allowed);
  EXPECT_FALSE(authorizeByRbac(policy, resourceRequest("list", "federation", "clusters", "", "", "", user("alice"))).allowed);
}

TEST(RbacBindings, ServiceAccountsMatchByTheirUserName) {
  const Policy policy = examplePolicy();
  const auto robot = user("system:serviceaccount:team:robot", {"system:serviceaccounts", "system:authenticated"});
  EXPECT_TRUE(authorizeByRbac(policy, resourceRequest("get", "", "secrets", "team", "s", "", robot)).allowed)
      << "a subject without namespace is in the binding's";
  EXPECT_TRUE(authorizeByRbac(policy, resourceRequest("get", "autoscaling", "horizontalpodautoscalers", "other", "h", "", robot))
                  .allowed);
  const auto impostor = user("system:serviceaccount:other:robot");
  EXPECT_FALSE(authorizeByRbac(policy, resourceRequest("get", "", "secrets", "team", "s", "", impostor)).allowed);
  EXPECT_FALSE(authorizeByRbac(policy, resourceRequest("get", "", "secrets", "team", "s", "", user("robot"))).allowed);
}

TEST(RbacBindings, RulesForCollectsClusterAndNamespaceRules) {
  const Policy policy = examplePolicy();
  EXPECT_EQ(rulesFor(policy, user("alice"), "team").size(), 1u) << "the dangling binding grants nothing";
  EXPECT_TRUE(rulesFor(policy, user("alice"), "other").empty());
  EXPECT_EQ(rulesFor(policy, user("carol", {"ops"}), "team").size(), 1u);
}

TEST(RbacEscalation, CoveredRulesPassAndTheRestAreNamed) {
  const std::vector<PolicyRule> owned = {
      rule({{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"secrets", "pods/*"}}}),
      rule({{"verbs", {"*"}}, {"apiGroups", {"apps"}}, {"resources", {"deployments"}}, {"resourceNames", {"web"}}}),
      rule({{"verbs", {"get"}}, {"nonResourceURLs", {"/apis/*"}}})};
  EXPECT_TRUE(uncoveredRules(owned, {rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"secrets"}}})}).empty());
  EXPECT_TRUE(uncoveredRules(owned, {rule({{"verbs", {"delete"}}, {"apiGroups", {"apps"}}, {"resources", {"deployments"}},
                                           {"resourceNames", {"web"}}})})
                  .empty());
  EXPECT_TRUE(uncoveredRules(owned, {rule({{"verbs", {"get"}}, {"nonResourceURLs", {"/apis/apps"}}})}).empty());
  const auto missing = uncoveredRules(
      owned, {rule({{"verbs", {"get", "delete"}}, {"apiGroups", {""}}, {"resources", {"secrets"}}}),
              rule({{"verbs", {"get"}}, {"apiGroups", {"apps"}}, {"resources", {"deployments"}}})});
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].verbs, std::vector<std::string>{"delete"});
  EXPECT_EQ(missing[1].resources, std::vector<std::string>{"deployments"}) << "all deployments, not only web";
  EXPECT_EQ(uncoveredRules(owned, {rule({{"verbs", {"*"}}, {"apiGroups", {""}}, {"resources", {"secrets"}}})}).size(), 1u)
      << "a wildcard verb is covered only by a wildcard";
}

TEST(RbacForbidden, MessagesAreKubeApiserversWords) {
  auto a = resourceRequest("list", "autoscaling", "horizontalpodautoscalers", "other");
  auto status = forbidden(a).toStatus();
  EXPECT_EQ(status["message"],
            "horizontalpodautoscalers.autoscaling is forbidden: User \"alice\" cannot list resource "
            "\"horizontalpodautoscalers\" in API group \"autoscaling\" in the namespace \"other\"");
  EXPECT_EQ(status["code"], 403);
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(status["details"]["group"], "autoscaling");
  EXPECT_EQ(status["details"]["kind"], "horizontalpodautoscalers");
  status = forbidden(resourceRequest("get", "", "secrets", "", "s", "")).toStatus();
  EXPECT_EQ(status["message"], "secrets \"s\" is forbidden: User \"alice\" cannot get resource \"secrets\" in API group \"\" at "
                               "the cluster scope");
  status = forbidden(resourceRequest("patch", "apps", "deployments", "ns", "d", "scale")).toStatus();
  EXPECT_EQ(status["message"], "deployments.apps \"d\" is forbidden: User \"alice\" cannot patch resource \"deployments/scale\" in "
                               "API group \"apps\" in the namespace \"ns\"");
  status = forbidden(pathRequest("get", "/metrics")).toStatus();
  EXPECT_EQ(status["message"], "forbidden: User \"alice\" cannot get path \"/metrics\"");
}

TEST(RbacAttributes, RequestsBecomeKubesAttributes) {
  http::Request request;
  request.method = "GET";
  request.path = "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers";
  request.query.emplace("watch", "true");
  request.query.emplace("fieldSelector", "metadata.name=one");
  Attributes a = requestAttributes(request, user("alice"));
  EXPECT_TRUE(a.resourceRequest);
  EXPECT_EQ(a.verb, "watch");
  EXPECT_EQ(a.name, "one") << "a watch of one object by field selector names it";
  request = {};
  request.method = "POST";
  request.path = "/healthz";
  a = requestAttributes(request, user("alice"));
  EXPECT_FALSE(a.resourceRequest);
  EXPECT_EQ(a.verb, "post");
  request.method = "GET";
  request.path = "/api/v1/namespaces/team";
  a = requestAttributes(request, user("alice"));
  EXPECT_EQ(a.namespaceName, "team") << "a namespace is in its own scope, as in kube";
  EXPECT_EQ(identityOf(std::nullopt).name, "system:anonymous");
  EXPECT_THAT(identityOf(std::nullopt).groups, testing::ElementsAre("system:unauthenticated"));
}

}  // namespace
}  // namespace fedhpa::apiserver::authz
