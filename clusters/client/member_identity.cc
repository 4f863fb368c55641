#include "clusters/client/member_identity.h"

namespace fedhpa::clusters {

const Resource kMemberNamespaces{"", "v1", "namespaces", false};
const Resource kServiceAccounts{"", "v1", "serviceaccounts", true};
const Resource kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles", false};
const Resource kClusterRoleBindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false};
const Resource kRoles{"rbac.authorization.k8s.io", "v1", "roles", true};
const Resource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings", true};

namespace {

const Resource kSelfSubjectAccessReviews{"authorization.k8s.io", "v1", "selfsubjectaccessreviews", false};
const Resource kMemberHpas{"autoscaling", "v2", "horizontalpodautoscalers", true};

json metadata(const std::string& name, const std::string& namespaceName = "") {
  json meta = {{"name", name}, {"labels", {{kIdentityManagedByLabel, kIdentityManagedByValue}}}};
  if (!namespaceName.empty()) meta["namespace"] = namespaceName;
  return meta;
}

json rule(const std::string& group, const std::vector<std::string>& resources, const std::vector<std::string>& verbs) {
  return {{"apiGroups", {group}}, {"resources", resources}, {"verbs", verbs}};
}

// Every call fedhpa's controller-manager makes in a member, and nothing more:
//  - HPAs, Deployments, ConfigMaps and Services: its informers list and watch them cluster-wide;
//    the reconcilers get (settling an unanswered write), create, patch (their own fields of a
//    copy, from what the cache keeps of it), update and delete its copies (unjoin's release of the
//    copies updates them);
//  - namespaces: the HPA reconciler creates a copy's namespace when the member lacks it;
//  - /readyz and /healthz: the health prober (kube grants them to everyone too).
// It writes no Events in members and reads no Secrets there.
json controllerRules() {
  const std::vector<std::string> manage = {"get", "list", "watch", "create", "update", "patch", "delete"};
  return json::array({rule("autoscaling", {"horizontalpodautoscalers"}, manage), rule("apps", {"deployments"}, manage),
                      rule("", {"configmaps", "services"}, manage),
                      rule("", {"namespaces"}, {"create"}),
                      {{"nonResourceURLs", {"/readyz", "/healthz"}}, {"verbs", {"get"}}}});
}

json subjects() {
  return json::array({{{"kind", "ServiceAccount"}, {"name", kMemberServiceAccount}, {"namespace", kMemberNamespace}}});
}

json roleRef(const std::string& kind) {
  return {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", kMemberRoleName}};
}

bool isRbac(const Resource& resource) { return resource.group == "rbac.authorization.k8s.io"; }

}  // namespace

std::vector<PlannedObject> memberIdentityPlan() {
  const std::string rbacVersion = "rbac.authorization.k8s.io/v1";
  // Its next token, and no other account's: what the controller-manager needs to rotate it.
  const json tokenRule = {{"apiGroups", {""}},
                          {"resources", {"serviceaccounts/token"}},
                          {"resourceNames", {kMemberServiceAccount}},
                          {"verbs", {"create"}}};
  return {
      {kMemberNamespaces, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", metadata(kMemberNamespace)}}},
      {kServiceAccounts,
       {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", metadata(kMemberServiceAccount, kMemberNamespace)}}},
      {kClusterRoles, {{"apiVersion", rbacVersion}, {"kind", "ClusterRole"}, {"metadata", metadata(kMemberRoleName)},
                       {"rules", controllerRules()}}},
      {kClusterRoleBindings, {{"apiVersion", rbacVersion}, {"kind", "ClusterRoleBinding"}, {"metadata", metadata(kMemberRoleName)},
                              {"roleRef", roleRef("ClusterRole")}, {"subjects", subjects()}}},
      {kRoles, {{"apiVersion", rbacVersion}, {"kind", "Role"}, {"metadata", metadata(kMemberRoleName, kMemberNamespace)},
                {"rules", json::array({tokenRule})}}},
      {kRoleBindings, {{"apiVersion", rbacVersion}, {"kind", "RoleBinding"},
                       {"metadata", metadata(kMemberRoleName, kMemberNamespace)}, {"roleRef", roleRef("Role")},
                       {"subjects", subjects()}}},
  };
}

void applyMemberIdentity(KubeClient& member, const std::vector<PlannedObject>& plan) {
  for (const auto& [resource, object] : plan) {
    const std::string ns = object["metadata"].value("namespace", "");
    const std::string name = object["metadata"]["name"];
    try {
      member.create(resource, ns, object);
      continue;
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::AlreadyExists) throw;
    }
    if (!isRbac(resource)) continue;  // the namespace and the account: theirs to keep as they are
    json current = member.get(resource, ns, name);
    bool changed = false;
    for (const char* field : {"rules", "subjects"}) {
      if (!object.contains(field) || current.value(field, json()) == object[field]) continue;
      current[field] = object[field];
      changed = true;
    }
    if (current.value("roleRef", json()) != object.value("roleRef", json())) {
      // roleRef cannot change: a binding that points elsewhere is replaced.
      member.remove(resource, ns, name);
      member.create(resource, ns, object);
      continue;
    }
    if (changed) member.update(resource, current);  // conditional on the resourceVersion just read
  }
}

IssuedToken requestServiceAccountToken(KubeClient& member, const std::string& namespaceName, const std::string& name,
                                       std::chrono::seconds lifetime) {
  const json request = {{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenRequest"},
                        {"spec", {{"expirationSeconds", lifetime.count()}}}};
  const json answer = member.createSubresource(kServiceAccounts, namespaceName, name, "token", request);
  const json status = answer.value("status", json::object());
  if (!status.contains("token") || !status["token"].is_string() || status["token"].get<std::string>().empty())
    throw ClientError(ClientError::Kind::Other, 0, "", "the member answered the TokenRequest without a token");
  return {status["token"].get<std::string>(), status.value("expirationTimestamp", "")};
}

IssuedToken requestMemberToken(KubeClient& member, std::chrono::seconds lifetime) {
  return requestServiceAccountToken(member, kMemberNamespace, kMemberServiceAccount, lifetime);
}

void verifyMemberAccess(KubeClient& asFederation) {
  const json review = {{"apiVersion", "authorization.k8s.io/v1"},
                       {"kind", "SelfSubjectAccessReview"},
                       {"spec", {{"resourceAttributes", {{"verb", "create"}, {"group", "autoscaling"},
                                                         {"resource", "horizontalpodautoscalers"}}}}}};
  json answer;
  try {
    answer = asFederation.create(kSelfSubjectAccessReviews, "", review);
  } catch (const ClientError& error) {
    if (error.kind() != ClientError::Kind::NotFound) throw;
    ListOptions one;
    one.limit = 1;
    asFederation.list(kMemberHpas, "", one);  // an authorized read, where no review is served
    return;
  }
  const json status = answer.value("status", json::object());
  if (status.value("allowed", false)) return;
  std::string why = status.value("reason", "");
  if (why.empty()) why = status.value("evaluationError", "");
  throw ClientError(ClientError::Kind::Forbidden, 403, "Forbidden",
                    std::string("the member's credential for the federation may not create horizontalpodautoscalers") +
                        (why.empty() ? "" : ": " + why));
}

IdentityRemoval removeMemberIdentity(KubeClient& member, const std::vector<PlannedObject>& plan) {
  IdentityRemoval result;
  for (auto it = plan.rbegin(); it != plan.rend(); ++it) {
    const std::string ns = it->object["metadata"].value("namespace", "");
    const std::string name = it->object["metadata"]["name"];
    try {
      const json current = member.get(it->resource, ns, name);
      const json labels = current["metadata"].value("labels", json::object());
      if (labels.value(kIdentityManagedByLabel, "") != kIdentityManagedByValue) {
        result.kept.push_back(it->object["kind"].get<std::string>() + " " + (ns.empty() ? "" : ns + "/") + name);
        continue;
      }
      member.remove(it->resource, ns, name, "", current["metadata"].value("resourceVersion", ""));
      ++result.removed;
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::NotFound) throw;
    }
  }
  return result;
}

}  // namespace fedhpa::clusters
