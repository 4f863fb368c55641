// kube-apiserver's impersonation filter: Impersonate-User, Impersonate-Group, Impersonate-Uid and
// Impersonate-Extra-<key> headers, each allowed only when the requester may `impersonate` that
// user (or service account), group, uid or extra value.
#pragma once

#include <optional>

#include "federation/apiserver/authz/authorizer.h"
#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::authz {

// The user to act as, or nullopt when the request asks for no impersonation. Throws ApiError: 400
// for groups, uid or extras without a user; 403 (kube's message) for what the requester may not
// impersonate.
std::optional<UserIdentity> impersonatedUser(const http::Request& request, const UserIdentity& requester,
                                             Authorizer& authorizer);

}  // namespace fedhpa::apiserver::authz
