// The RBAC objects kube-apiserver creates at start (its bootstrap policy), for fedhpa's resources:
// cluster-admin, admin, edit, view, the discovery / public-info / basic-user roles every
// authenticated user gets, and the controller-manager's own roles. manifests/deploy/
// controller-manager-rbac.yaml holds the controller-manager's part for deployments that keep
// the policy elsewhere; a test keeps the two equal.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace fedhpa::apiserver {
class ResourceStore;
}

namespace fedhpa::apiserver::authz {

// The user name the controller-manager authenticates as (its own certificate CN or token user).
inline constexpr const char* kControllerManagerUser = "system:fedhpa-controller-manager";

struct BootstrapPolicy {
  std::vector<nlohmann::json> clusterRoles, clusterRoleBindings, roles, roleBindings;
};

// kube's part: cluster-admin, admin, edit, view and what every user gets (a member-sim's policy).
BootstrapPolicy kubeBootstrapPolicy();
// Everything the federation API server creates at start: kube's part and the controller-manager's.
BootstrapPolicy bootstrapPolicy();
// The controller-manager's ClusterRole, Roles and their bindings (a subset of bootstrapPolicy()).
BootstrapPolicy controllerManagerPolicy();

// Creates what is missing; an object that exists is brought back to the bootstrap content unless
// its rbac.authorization.kubernetes.io/autoupdate annotation is "false", as kube-apiserver does.
void ensureBootstrapPolicy(const BootstrapPolicy& policy, ResourceStore& clusterRoles, ResourceStore& clusterRoleBindings,
                           ResourceStore& roles, ResourceStore& roleBindings);

}  // namespace fedhpa::apiserver::authz
