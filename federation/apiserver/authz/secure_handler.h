// The filters kube-apiserver runs between authentication and the REST handlers, in its order:
// audit (an ID per request, one Event when it completes), impersonation, authorization (403 with
// kube's message), then the authorization.k8s.io reviews answered here and RBAC escalation checks
// on writes to RBAC objects, and finally the API itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "federation/apiserver/authz/authorizer.h"
#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::authz {

struct SecurityOptions {
  AuthorizationMode mode = AuthorizationMode::AlwaysAllow;
  std::string auditLogPath;          // "" = no audit log
  std::uint64_t auditLogMaxBytes = 0;  // 0 = never rotate
  // With RBAC, whether the bootstrap policy holds the fedhpa controller-manager's roles (in
  // federation-system and kube-system) besides kube's: a member-sim's has kube's only.
  bool controllerManagerRoles = true;
};

// The four RBAC stores (all set, or the server does not serve RBAC), and whether the
// authorization.k8s.io reviews are served.
struct RbacStores {
  ResourceStore* clusterRoles = nullptr;
  ResourceStore* clusterRoleBindings = nullptr;
  ResourceStore* roles = nullptr;
  ResourceStore* roleBindings = nullptr;
  bool servesReviews = false;
};

// Throws std::runtime_error when RBAC is asked for without the RBAC stores, or the audit log
// cannot be opened.
std::shared_ptr<http::Handler> secureHandler(std::shared_ptr<http::Handler> api, const SecurityOptions& options,
                                             const RbacStores& stores);

}  // namespace fedhpa::apiserver::authz
