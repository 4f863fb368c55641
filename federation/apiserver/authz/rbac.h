// Kubernetes RBAC, evaluated over a snapshot of the four rbac.authorization.k8s.io/v1 kinds: which
// rules a user holds (through ClusterRoleBindings, and RoleBindings in the request's namespace),
// whether one of them allows a request, and whether a set of rules covers another (escalation
// prevention). Pure: no storage, no clock; the snapshot is built by PolicyCache.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "federation/apiserver/authz/attributes.h"

namespace fedhpa::apiserver::authz {

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;  // "pods", "pods/log", "*/scale", "*"
  std::vector<std::string> resourceNames;
  std::vector<std::string> nonResourceURLs;  // "/healthz", "/apis/*", "*"

  static PolicyRule fromJson(const nlohmann::json& rule);
  nlohmann::json toJson() const;
  bool operator==(const PolicyRule&) const = default;
};

std::vector<PolicyRule> rulesOf(const nlohmann::json& role);

struct Subject {
  std::string kind;  // User, Group, ServiceAccount
  std::string name;
  std::string namespaceName;  // ServiceAccount
};

struct Binding {
  std::string name;
  std::string namespaceName;  // "" for a ClusterRoleBinding
  std::string roleKind;       // Role, ClusterRole
  std::string roleName;
  std::vector<Subject> subjects;

  static Binding fromJson(const nlohmann::json& binding);
  // kube's appliesTo: a User by name, a Group the user is in, a ServiceAccount by its user name
  // (the binding's namespace when the subject names none).
  bool appliesTo(const UserIdentity& user) const;
  // "RoleBinding \"ns/x\" of ClusterRole \"view\"", for decision reasons.
  std::string describe() const;
};

// The four kinds, read at one moment.
struct Policy {
  std::map<std::string, std::vector<PolicyRule>> clusterRoles;
  std::map<std::pair<std::string, std::string>, std::vector<PolicyRule>> roles;  // (namespace, name)
  std::vector<Binding> clusterRoleBindings;
  std::map<std::string, std::vector<Binding>> roleBindings;  // by namespace

  // The rules a binding grants; nullptr when its role does not exist (the binding grants nothing).
  const std::vector<PolicyRule>* rulesOfBinding(const Binding& binding) const;

  static Policy fromObjects(const std::vector<nlohmann::json>& clusterRoles, const std::vector<nlohmann::json>& roles,
                            const std::vector<nlohmann::json>& clusterRoleBindings,
                            const std::vector<nlohmann::json>& roleBindings);
};

struct Decision {
  bool allowed = false;
  std::string reason;  // on allow: the binding that allowed it, as kube's RBAC reports it
};

// kube's RBAC rule matching: verbs, apiGroups, resources (with "resource/subresource" and "*/sub"),
// resourceNames, nonResourceURLs (exact, "*", or a prefix ending in "*").
bool ruleAllows(const Attributes& attributes, const PolicyRule& rule);

Decision authorizeByRbac(const Policy& policy, const Attributes& attributes);

// Every rule that applies to the user: cluster-wide, plus the namespace's when one is given.
std::vector<PolicyRule> rulesFor(const Policy& policy, const UserIdentity& user, const std::string& namespaceName);

// The parts of `requested` that `owned` does not cover, as kube's escalation check computes them:
// each requested rule is split into single (verb, group, resource, name) or (verb, URL) grants and
// each grant must be allowed by one owned rule. Empty: no escalation.
std::vector<PolicyRule> uncoveredRules(const std::vector<PolicyRule>& owned, const std::vector<PolicyRule>& requested);

}  // namespace fedhpa::apiserver::authz
