#include "federation/apiserver/authz/authorizer.h"

#include <algorithm>

#include "federation/apiserver/resource_store.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver::authz {

std::vector<PolicyRule> allRules() { return {{{"*"}, {"*"}, {"*"}, {}, {}}, {{"*"}, {}, {}, {}, {"*"}}}; }

PolicyCache::PolicyCache(ResourceStore& clusterRoles, ResourceStore& clusterRoleBindings, ResourceStore& roles,
                         ResourceStore& roleBindings)
    : clusterRoles_(clusterRoles), clusterRoleBindings_(clusterRoleBindings), roles_(roles), roleBindings_(roleBindings) {}

PolicyCache::~PolicyCache() = default;

void PolicyCache::invalidate() { stale_->store(true); }

std::shared_ptr<const Policy> PolicyCache::current() {
  std::lock_guard lock(mutex_);
  const bool watching =
      !watches_.empty() && std::none_of(watches_.begin(), watches_.end(), [](const auto& watch) { return watch->ended(); });
  if (policy_ && watching && !stale_->load()) return policy_;
  // Fresh from here: a change while the stores are read marks it stale again.
  stale_->store(false);
  watches_.clear();
  ResourceStore* const stores[] = {&clusterRoles_, &roles_, &clusterRoleBindings_, &roleBindings_};
  std::vector<ListPage> pages;
  for (ResourceStore* store : stores) pages.push_back(store->list({"", {}, std::nullopt, ""}));
  try {
    for (std::size_t i = 0; i < pages.size(); ++i)
      watches_.push_back(stores[i]->watch("", std::stoll(pages[i].resourceVersion),
                                          [stale = stale_](const StoreWatchEvent&) { stale->store(true); }));
  } catch (const std::exception& error) {
    // No watch now (the watch cache being rebuilt, say): this snapshot serves this request, and
    // the next one reads the stores again.
    FEDHPA_LOG(debug) << "RBAC policy: cannot watch its stores (" << error.what() << "); reading them again next time";
    watches_.clear();
  }
  policy_ = std::make_shared<Policy>(Policy::fromObjects(pages[0].items, pages[1].items, pages[2].items, pages[3].items));
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
