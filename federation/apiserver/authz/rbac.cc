#include "federation/apiserver/authz/rbac.h"

#include <algorithm>

namespace fedhpa::apiserver::authz {

using nlohmann::json;

namespace {

constexpr const char* kAll = "*";

std::vector<std::string> strings(const json& object, const char* key) {
  std::vector<std::string> out;
  if (!object.is_object() || !object.contains(key) || !object[key].is_array()) return out;
  for (const auto& item : object[key])
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::string stringField(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
  return object[key].get<std::string>();
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool verbMatches(const PolicyRule& rule, const std::string& verb) { return has(rule.verbs, kAll) || has(rule.verbs, verb); }

bool groupMatches(const PolicyRule& rule, const std::string& group) {
  return has(rule.apiGroups, kAll) || has(rule.apiGroups, group);
}

// "pods" or "pods/log" (the request's resource and subresource joined), "*", or "*/log".
bool resourceMatches(const std::vector<std::string>& ruleResources, const std::string& resource,
                     const std::string& subresource) {
  const std::string combined = subresource.empty() ? resource : resource + "/" + subresource;
  for (const auto& ruleResource : ruleResources) {
    if (ruleResource == kAll || ruleResource == combined) return true;
    if (!subresource.empty() && ruleResource == "*/" + subresource) return true;
  }
  return false;
}

bool nameMatches(const PolicyRule& rule, const std::string& name) {
  return rule.resourceNames.empty() || has(rule.resourceNames, name);
}

bool urlMatches(const std::vector<std::string>& ruleUrls, const std::string& path) {
  for (const auto& url : ruleUrls) {
    if (url == kAll || url == path) return true;
    if (!url.empty() && url.back() == '*' && path.rfind(url.substr(0, url.size() - 1), 0) == 0) return true;
  }
  return false;
}

std::string describeSubject(const Subject& subject) {
  if (subject.kind == "ServiceAccount")
    return "ServiceAccount " + api::quoted(subject.namespaceName + "/" + subject.name);
  return subject.kind + " " + api::quoted(subject.name);
}

// kube's ruleCovers for one atomic grant.
bool covers(const PolicyRule& owner, const PolicyRule& grant) {
  const auto allOf = [](const std::vector<std::string>& ownerItems, const std::vector<std::string>& items) {
    return has(ownerItems, kAll) || std::all_of(items.begin(), items.end(), [&](const auto& i) { return has(ownerItems, i); });
  };
  if (!allOf(owner.verbs, grant.verbs)) return false;
  if (!allOf(owner.apiGroups, grant.apiGroups)) return false;
  for (const auto& resource : grant.resources) {
    const auto slash = resource.find('/');
    const std::string base = slash == std::string::npos ? resource : resource.substr(0, slash);
    const std::string sub = slash == std::string::npos ? "" : resource.substr(slash + 1);
    if (!has(owner.resources, resource) && !resourceMatches(owner.resources, base, sub)) return false;
  }
  for (const auto& url : grant.nonResourceURLs)
    if (!urlMatches(owner.nonResourceURLs, url)) return false;
  if (grant.resourceNames.empty()) return owner.resourceNames.empty();
  return owner.resourceNames.empty() || allOf(owner.resourceNames, grant.resourceNames);
}

// kube's BreakdownRule: one grant per (group, resource, verb[, name]) and per (URL, verb).
std::vector<PolicyRule> breakdown(const PolicyRule& rule) {
  std::vector<PolicyRule> grants;
  for (const auto& group : rule.apiGroups)
    for (const auto& resource : rule.resources)
      for (const auto& verb : rule.verbs) {
        if (rule.resourceNames.empty()) grants.push_back({{verb}, {group}, {resource}, {}, {}});
        for (const auto& name : rule.resourceNames) grants.push_back({{verb}, {group}, {resource}, {name}, {}});
      }
  for (const auto& url : rule.nonResourceURLs)
    for (const auto& verb : rule.verbs) grants.push_back({{verb}, {}, {}, {}, {url}});
  return grants;
}

}  // namespace

PolicyRule PolicyRule::fromJson(const json& rule) {
  return {strings(rule, "verbs"), strings(rule, "apiGroups"), strings(rule, "resources"), strings(rule, "resourceNames"),
          strings(rule, "nonResourceURLs")};
}

json PolicyRule::toJson() const {
  json out = {{"verbs", verbs}};
  if (!apiGroups.empty()) out["apiGroups"] = apiGroups;
  if (!resources.empty()) out["resources"] = resources;
  if (!resourceNames.empty()) out["resourceNames"] = resourceNames;
  if (!nonResourceURLs.empty()) out["nonResourceURLs"] = nonResourceURLs;
  return out;
}

std::vector<PolicyRule> rulesOf(const json& role) {
  std::vector<PolicyRule> rules;
  if (role.is_object() && role.contains("rules") && role["rules"].is_array())
    for (const auto& rule : role["rules"]) rules.push_back(PolicyRule::fromJson(rule));
  return rules;
}

Binding Binding::fromJson(const json& binding) {
  Binding out;
  const json meta = binding.value("metadata", json::object());
  out.name = stringField(meta, "name");
  out.namespaceName = stringField(meta, "namespace");
  const json roleRef = binding.value("roleRef", json::object());
  out.roleKind = stringField(roleRef, "kind");
  out.roleName = stringField(roleRef, "name");
  if (binding.contains("subjects") && binding["subjects"].is_array())
    for (const auto& subject : binding["subjects"])
      out.subjects.push_back({stringField(subject, "kind"), stringField(subject, "name"), stringField(subject, "namespace")});
  return out;
}

bool Binding::appliesTo(const UserIdentity& user) const {
  return std::any_of(subjects.begin(), subjects.end(), [&](const Subject& subject) {
    if (subject.kind == "User") return subject.name == user.name;
    if (subject.kind == "Group") return user.inGroup(subject.name);
    if (subject.kind == "ServiceAccount") {
      const std::string ns = subject.namespaceName.empty() ? namespaceName : subject.namespaceName;
      return user.name == kServiceAccountPrefix + ns + ":" + subject.name;
    }
    return false;
  });
}

std::string Binding::describe() const {
  if (namespaceName.empty()) return "ClusterRoleBinding " + api::quoted(name) + " of " + roleKind + " " + api::quoted(roleName);
  return "RoleBinding " + api::quoted(namespaceName + "/" + name) + " of " + roleKind + " " + api::quoted(roleName);
}

const std::vector<PolicyRule>* Policy::rulesOfBinding(const Binding& binding) const {
  if (binding.roleKind == "ClusterRole") {
    const auto it = clusterRoles.find(binding.roleName);
    return it == clusterRoles.end() ? nullptr : &it->second;
  }
  if (binding.roleKind == "Role" && !binding.namespaceName.empty()) {
    const auto it = roles.find({binding.namespaceName, binding.roleName});
    return it == roles.end() ? nullptr : &it->second;
  }
  return nullptr;
}

Policy Policy::fromObjects(const std::vector<json>& clusterRoles, const std::vector<json>& roles,
                           const std::vector<json>& clusterRoleBindings, const std::vector<json>& roleBindings) {
  Policy policy;
  const auto metaOf = [](const json& object, const char* key) {
    return object.contains("metadata") ? stringField(object["metadata"], key) : std::string();
  };
  for (const auto& role : clusterRoles) policy.clusterRoles[metaOf(role, "name")] = rulesOf(role);
  for (const auto& role : roles) policy.roles[{metaOf(role, "namespace"), metaOf(role, "name")}] = rulesOf(role);
  for (const auto& binding : clusterRoleBindings) policy.clusterRoleBindings.push_back(Binding::fromJson(binding));
  for (const auto& binding : roleBindings) {
    Binding parsed = Binding::fromJson(binding);
    policy.roleBindings[parsed.namespaceName].push_back(std::move(parsed));
  }
  return policy;
}

bool ruleAllows(const Attributes& a, const PolicyRule& rule) {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.resourceRequest) return urlMatches(rule.nonResourceURLs, a.path);
  return groupMatches(rule, a.apiGroup) && resourceMatches(rule.resources, a.resource, a.subresource) &&
         nameMatches(rule, a.name);
}

namespace {

// Calls visit(binding, rules) for every binding that applies to the user, cluster-wide first; stops
// when visit returns true.
template <typename Visit>
bool visitRules(const Policy& policy, const UserIdentity& user, const std::string& namespaceName, Visit visit) {
  const auto visitAll = [&](const std::vector<Binding>& bindings) {
    for (const auto& binding : bindings) {
      if (!binding.appliesTo(user)) continue;
      if (const auto* rules = policy.rulesOfBinding(binding))
        if (visit(binding, *rules)) return true;
    }
    return false;
  };
  if (visitAll(policy.clusterRoleBindings)) return true;
  if (namespaceName.empty()) return false;
  const auto it = policy.roleBindings.find(namespaceName);
  return it != policy.roleBindings.end() && visitAll(it->second);
}

std::string describeMatch(const Binding& binding, const UserIdentity& user) {
  for (const auto& subject : binding.subjects) {
    Binding one = binding;
    one.subjects = {subject};
    if (one.appliesTo(user)) return binding.describe() + " to " + describeSubject(subject);
  }
  return binding.describe();
}

}  // namespace

Decision authorizeByRbac(const Policy& policy, const Attributes& attributes) {
  Decision decision;
  visitRules(policy, attributes.user, attributes.namespaceName, [&](const Binding& binding, const auto& rules) {
    for (const auto& rule : rules) {
      if (!ruleAllows(attributes, rule)) continue;
      decision = {true, "RBAC: allowed by " + describeMatch(binding, attributes.user)};
      return true;
    }
    return false;
  });
  return decision;
}

std::vector<PolicyRule> rulesFor(const Policy& policy, const UserIdentity& user, const std::string& namespaceName) {
  std::vector<PolicyRule> out;
  visitRules(policy, user, namespaceName, [&](const Binding&, const auto& rules) {
    out.insert(out.end(), rules.begin(), rules.end());
    return false;
  });
  return out;
}

std::vector<PolicyRule> uncoveredRules(const std::vector<PolicyRule>& owned, const std::vector<PolicyRule>& requested) {
  std::vector<PolicyRule> missing;
  for (const auto& rule : requested)
    for (const auto& grant : breakdown(rule))
      if (std::none_of(owned.begin(), owned.end(), [&](const PolicyRule& o) { return covers(o, grant); }))
        missing.push_back(grant);
  return missing;
}

}  // namespace fedhpa::apiserver::authz
