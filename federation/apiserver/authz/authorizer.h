// kube-apiserver's authorizer chain for the two modes fedhpa offers: AlwaysAllow, or system:masters
// (the privileged group, never denied) then RBAC over a cached snapshot of the RBAC objects.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "federation/apiserver/authz/rbac.h"

namespace fedhpa::storage {
class Watch;
}
namespace fedhpa::apiserver {
class ResourceStore;
}

namespace fedhpa::apiserver::authz {

enum class AuthorizationMode { AlwaysAllow, Rbac };

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Decision authorize(const Attributes& attributes) = 0;
  // The rules the user holds in the namespace ("" = cluster-wide only): SelfSubjectRulesReview
  // and the escalation check read them.
  virtual std::vector<PolicyRule> rulesFor(const UserIdentity& user, const std::string& namespaceName) = 0;
  // The rules a role grants (none when it does not exist): a binding to it grants these.
  virtual std::vector<PolicyRule> rulesOfRole(const std::string& kind, const std::string& namespaceName,
                                              const std::string& name) = 0;
};

// The RBAC objects as one snapshot, rebuilt on first use after it went stale. It goes stale when
// one of the four stores' watches sees a change, which is how a change through another API server
// on the same etcd arrives (as kube-apiserver's RBAC informers see it), and when the
// authorization layer invalidates it after a write to an RBAC object or a namespace delete through
// this server is answered, so that the next request here sees that write without waiting for
// its watch event.
class PolicyCache {
 public:
  PolicyCache(ResourceStore& clusterRoles, ResourceStore& clusterRoleBindings, ResourceStore& roles,
              ResourceStore& roleBindings);
  ~PolicyCache();
  std::shared_ptr<const Policy> current();
  void invalidate();

 private:
  ResourceStore& clusterRoles_;
  ResourceStore& clusterRoleBindings_;
  ResourceStore& roles_;
  ResourceStore& roleBindings_;
  std::mutex mutex_;
  std::shared_ptr<const Policy> policy_;
  // Shared with the watches' callbacks, which a delivery thread may still be running while a
  // watch is destroyed.
  std::shared_ptr<std::atomic<bool>> stale_ = std::make_shared<std::atomic<bool>>(true);
  std::vector<std::unique_ptr<storage::Watch>> watches_;  // one per store, from the revision it was read at
};

class AlwaysAllowAuthorizer final : public Authorizer {
 public:
  Decision authorize(const Attributes&) override { return {true, ""}; }
  std::vector<PolicyRule> rulesFor(const UserIdentity&, const std::string&) override;
  std::vector<PolicyRule> rulesOfRole(const std::string&, const std::string&, const std::string&) override { return {}; }
};

class RbacAuthorizer final : public Authorizer {
 public:
  explicit RbacAuthorizer(PolicyCache& cache) : cache_(cache) {}
  Decision authorize(const Attributes& attributes) override;
  std::vector<PolicyRule> rulesFor(const UserIdentity& user, const std::string& namespaceName) override;
  std::vector<PolicyRule> rulesOfRole(const std::string& kind, const std::string& namespaceName,
                                      const std::string& name) override;

 private:
  PolicyCache& cache_;
};

// Everything, as the rules of cluster-admin: what system:masters and AlwaysAllow hold.
std::vector<PolicyRule> allRules();

}  // namespace fedhpa::apiserver::authz
