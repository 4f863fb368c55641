// kube's RBAC escalation prevention: nobody creates or changes a Role or ClusterRole granting more
// than they hold (unless allowed to `escalate` it), nor binds a role whose rules they do not hold
// (unless allowed to `bind` it). system:masters is exempt.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "federation/apiserver/authz/authorizer.h"

namespace fedhpa::apiserver::authz {

// For a create/update (PUT) of one of the four RBAC kinds: `object` is the request body. For a
// PATCH (object = nullptr): a binding is checked against its current roleRef (currentRoleRef;
// it cannot change); a role's patched rules are not known here, so a patch needs `escalate`.
// Throws ApiError 403 with kube's "attempting to grant RBAC permissions not currently held".
struct RoleRef {
  std::string kind;  // Role, ClusterRole
  std::string name;
};
void confirmNoEscalation(const Attributes& attributes, const nlohmann::json* object,
                         const std::optional<RoleRef>& currentRoleRef, Authorizer& authorizer);

// kube's PolicyRule.CompactString: {APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}.
std::string compactString(const PolicyRule& rule);

}  // namespace fedhpa::apiserver::authz
