#include "federation/apiserver/authz/bootstrap_policy.h"

#include "federation/apiserver/resource_store.h"

namespace fedhpa::apiserver::authz {

using nlohmann::json;

namespace {

const std::vector<std::string> kRead = {"get", "list", "watch"};
const std::vector<std::string> kWrite = {"create", "delete", "deletecollection", "patch", "update"};
const std::vector<std::string> kReadWrite = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};

json rule(std::vector<std::string> groups, std::vector<std::string> resources, std::vector<std::string> verbs,
          std::vector<std::string> names = {}) {
  json out = {{"apiGroups", groups}, {"resources", resources}, {"verbs", verbs}};
  if (!names.empty()) out["resourceNames"] = names;
  return out;
}

json urlRule(std::vector<std::string> urls, std::vector<std::string> verbs) {
  return {{"nonResourceURLs", urls}, {"verbs", verbs}};
}

json metadata(const std::string& name, const std::string& namespaceName = "") {
  json meta = {{"name", name},
               {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
               {"annotations", {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
  if (!namespaceName.empty()) meta["namespace"] = namespaceName;
  return meta;
}

json role(const std::string& kind, const std::string& name, json rules, const std::string& namespaceName = "") {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", kind}, {"metadata", metadata(name, namespaceName)},
          {"rules", std::move(rules)}};
}

json subject(const std::string& kind, const std::string& name) {
  return {{"kind", kind}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", name}};
}

json binding(const std::string& kind, const std::string& name, const std::string& roleKind, const std::string& roleName,
             json subjects, const std::string& namespaceName = "") {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", kind},
          {"metadata", metadata(name, namespaceName)},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", roleKind}, {"name", roleName}}},
          {"subjects", std::move(subjects)}};
}

// view: everything fedhpa serves in a namespace, read-only, except Secrets (they hold member
// credentials) and RBAC objects; plus Clusters when bound cluster-wide.
json viewRules() {
  return json::array({rule({""}, {"events", "namespaces", "namespaces/status"}, kRead),
                      rule({""}, {"configmaps", "services", "services/status"}, kRead),
                      rule({"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}, kRead),
                      rule({"apps"}, {"deployments", "deployments/status", "deployments/scale"}, kRead),
                      rule({"federation"}, {"clusters", "clusters/status"}, kRead)});
}

// edit: view, plus writes to the workloads and to Secrets (which it still cannot read).
json editRules() {
  json rules = viewRules();
  rules.push_back(rule({"autoscaling"}, {"horizontalpodautoscalers"}, kWrite));
  rules.push_back(rule({"apps"}, {"deployments", "deployments/scale"}, kWrite));
  rules.push_back(rule({""}, {"configmaps", "services"}, kWrite));
  rules.push_back(rule({""}, {"secrets"}, kWrite));
  return rules;
}

// admin: edit, plus Secrets, Roles and RoleBindings in the namespace, and access reviews there.
json adminRules() {
  json rules = editRules();
  rules.push_back(rule({""}, {"secrets"}, kRead));
  rules.push_back(rule({"rbac.authorization.k8s.io"}, {"roles", "rolebindings"}, kReadWrite));
  rules.push_back(rule({"authorization.k8s.io"}, {"localsubjectaccessreviews"}, {"create"}));
  return rules;
}

// What the controller-manager does, found by auditing the walkthrough (see docs/apiserver.md): watch and
// write federated HPAs and Deployments and their status, watch ConfigMaps and Services and write
// them (the finalizer), watch Clusters and write their status,
// record Events; for Karmada's front door, create and delete the HPA a FederatedHPA owns, write
// FederatedHPAs (finalizer, status) and CronFederatedHPAs' status, read Karmada's propagation
// policies and write their status (what each placed where). Secrets (read, and updated when a member
// token rotates) and its Lease are granted by Roles in their namespaces only.
json controllerManagerRules() {
  return json::array({rule({"autoscaling"}, {"horizontalpodautoscalers"},
                           {"get", "list", "watch", "create", "update", "patch", "delete"}),
                      rule({"autoscaling"}, {"horizontalpodautoscalers/status"}, {"update", "patch"}),
                      rule({"apps"}, {"deployments"}, {"get", "list", "watch", "update", "patch"}),
                      rule({"apps"}, {"deployments/status"}, {"update", "patch"}),
                      rule({""}, {"configmaps", "services"}, {"get", "list", "watch", "update", "patch"}),
                      rule({"federation"}, {"clusters"}, {"get", "list", "watch"}),
                      rule({"federation"}, {"clusters/status"}, {"update", "patch"}),
                      rule({""}, {"events"}, {"create", "update", "patch"}),
                      rule({"autoscaling.karmada.io"}, {"federatedhpas"}, {"get", "list", "watch", "update", "patch"}),
                      rule({"autoscaling.karmada.io"}, {"federatedhpas/status"}, {"update", "patch"}),
                      rule({"autoscaling.karmada.io"}, {"cronfederatedhpas"}, {"get", "list", "watch"}),
                      rule({"autoscaling.karmada.io"}, {"cronfederatedhpas/status"}, {"update", "patch"}),
                      rule({"policy.karmada.io"}, {"propagationpolicies", "clusterpropagationpolicies"}, {"get", "list", "watch"}),
                      rule({"policy.karmada.io"}, {"propagationpolicies/status", "clusterpropagationpolicies/status"},
                           {"update", "patch"})});
}

}  // namespace

BootstrapPolicy controllerManagerPolicy() {
  const std::string name = "system:fedhpa:controller-manager";
  const json user = json::array({subject("User", kControllerManagerUser)});
  BootstrapPolicy policy;
  policy.clusterRoles = {role("ClusterRole", name, controllerManagerRules())};
  policy.clusterRoleBindings = {binding("ClusterRoleBinding", name, "ClusterRole", name, user)};
  // Member kubeconfigs live in federation-system; no other namespace's Secrets are the controller's.
  // It writes them to store a member's rotated token (token_rotator.h), but never creates or deletes one.
  policy.roles = {role("Role", name, json::array({rule({""}, {"secrets"}, kRead), rule({""}, {"secrets"}, {"update", "patch"})}),
                       "federation-system"),
                  role("Role", name,
                       json::array({rule({"coordination.k8s.io"}, {"leases"}, {"create"}),
                                    rule({"coordination.k8s.io"}, {"leases"}, {"get", "update"}, {"fedhpa-controller-manager"})}),
                       "kube-system")};
  policy.roleBindings = {binding("RoleBinding", name, "Role", name, user, "federation-system"),
                         binding("RoleBinding", name, "Role", name, user, "kube-system")};
  return policy;
}

BootstrapPolicy kubeBootstrapPolicy() {
  BootstrapPolicy policy;
  policy.clusterRoles = {
      role("ClusterRole", "cluster-admin", json::array({rule({"*"}, {"*"}, {"*"}), urlRule({"*"}, {"*"})})),
      role("ClusterRole", "admin", adminRules()),
      role("ClusterRole", "edit", editRules()),
      role("ClusterRole", "view", viewRules()),
      role("ClusterRole", "system:discovery",
           json::array({urlRule({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                                 "/readyz", "/version", "/version/"},
                                {"get"})})),
      role("ClusterRole", "system:public-info-viewer",
           json::array({urlRule({"/healthz", "/livez", "/readyz", "/version", "/version/"}, {"get"})})),
      role("ClusterRole", "system:basic-user",
           json::array({rule({"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, {"create"})}))};
  const json authenticated = json::array({subject("Group", "system:authenticated")});
  policy.clusterRoleBindings = {
      binding("ClusterRoleBinding", "cluster-admin", "ClusterRole", "cluster-admin",
              json::array({subject("Group", "system:masters")})),
      binding("ClusterRoleBinding", "system:discovery", "ClusterRole", "system:discovery", authenticated),
      binding("ClusterRoleBinding", "system:basic-user", "ClusterRole", "system:basic-user", authenticated),
      binding("ClusterRoleBinding", "system:public-info-viewer", "ClusterRole", "system:public-info-viewer",
              json::array({subject("Group", "system:authenticated"), subject("Group", "system:unauthenticated")}))};
  return policy;
}

BootstrapPolicy bootstrapPolicy() {
  BootstrapPolicy policy = kubeBootstrapPolicy();
  const BootstrapPolicy controller = controllerManagerPolicy();
  policy.clusterRoles.insert(policy.clusterRoles.end(), controller.clusterRoles.begin(), controller.clusterRoles.end());
  policy.clusterRoleBindings.insert(policy.clusterRoleBindings.end(), controller.clusterRoleBindings.begin(),
                                    controller.clusterRoleBindings.end());
  policy.roles = controller.roles;
  policy.roleBindings = controller.roleBindings;
  return policy;
}

namespace {

void ensure(ResourceStore& store, const json& wanted) {
  const std::string namespaceName = wanted["metadata"].value("namespace", "");
  const std::string name = wanted["metadata"]["name"];
  try {
    store.create(namespaceName, wanted, false);
    return;
  } catch (const api::ApiError& error) {
    if (error.code() != 409) throw;
  }
  store.update(
      namespaceName, name,
      [&](const json& current) {
        const json annotations = current["metadata"].value("annotations", json::object());
        if (annotations.value("rbac.authorization.kubernetes.io/autoupdate", "true") == "false") return current;
        json next = current;
        for (const char* field : {"rules", "subjects", "roleRef"})
          if (wanted.contains(field)) next[field] = wanted[field];
        return next;
      },
      Subresource::Main, false);
}

}  // namespace

void ensureBootstrapPolicy(const BootstrapPolicy& policy, ResourceStore& clusterRoles, ResourceStore& clusterRoleBindings,
                           ResourceStore& roles, ResourceStore& roleBindings) {
  for (const auto& object : policy.clusterRoles) ensure(clusterRoles, object);
  for (const auto& object : policy.clusterRoleBindings) ensure(clusterRoleBindings, object);
  for (const auto& object : policy.roles) ensure(roles, object);
  for (const auto& object : policy.roleBindings) ensure(roleBindings, object);
}

}  // namespace fedhpa::apiserver::authz
