#include "federation/apiserver/authz/authorizer.h"

#include "federation/apiserver/resource_store.h"

namespace fedhpa::apiserver::authz {

std::vector<PolicyRule> allRules() { return {{{"*"}, {"*"}, {"*"}, {}, {}}, {{"*"}, {}, {}, {}, {"*"}}}; }

PolicyCache::PolicyCache(ResourceStore& clusterRoles, ResourceStore& clusterRoleBindings, ResourceStore& roles,
                         ResourceStore& roleBindings)
    : clusterRoles_(clusterRoles), clusterRoleBindings_(clusterRoleBindings), roles_(roles), roleBindings_(roleBindings) {}

void PolicyCache::invalidate() {
  std::lock_guard lock(mutex_);
  stale_ = true;
}

std::shared_ptr<const Policy> PolicyCache::current() {
  std::lock_guard lock(mutex_);
  if (!stale_ && policy_) return policy_;
  const auto everything = [](ResourceStore& store) { return store.list({"", {}, std::nullopt, ""}).items; };
  auto policy = std::make_shared<Policy>(Policy::fromObjects(everything(clusterRoles_), everything(roles_),
                                                             everything(clusterRoleBindings_), everything(roleBindings_)));
  policy_ = std::move(policy);
  stale_ = false;
  return policy_;
}

std::vector<PolicyRule> AlwaysAllowAuthorizer::rulesFor(const UserIdentity&, const std::string&) { return allRules(); }

Decision RbacAuthorizer::authorize(const Attributes& attributes) {
  if (attributes.user.inGroup(kMastersGroup)) return {true, ""};
  return authorizeByRbac(*cache_.current(), attributes);
}

std::vector<PolicyRule> RbacAuthorizer::rulesFor(const UserIdentity& user, const std::string& namespaceName) {
  if (user.inGroup(kMastersGroup)) return allRules();
  return authz::rulesFor(*cache_.current(), user, namespaceName);
}

std::vector<PolicyRule> RbacAuthorizer::rulesOfRole(const std::string& kind, const std::string& namespaceName,
                                                    const std::string& name) {
  const auto policy = cache_.current();
  Binding binding;
  binding.namespaceName = namespaceName;
  binding.roleKind = kind;
  binding.roleName = name;
  const auto* rules = policy->rulesOfBinding(binding);
  return rules ? *rules : std::vector<PolicyRule>{};
}

}  // namespace fedhpa::apiserver::authz
