// The Attributes of a resource request, built in one line: what the RBAC tests and the tests of
// the identity join plans in a member ask the authorizer about.
#pragma once

#include <string>
#include <utility>

#include "federation/apiserver/authz/attributes.h"

namespace fedhpa::apiserver::authz {

inline Attributes resourceAttributes(UserIdentity user, std::string verb, std::string group, std::string resource,
                                     std::string namespaceName = "", std::string name = "",
                                     std::string subresource = "") {
  Attributes attributes;
  attributes.user = std::move(user);
  attributes.verb = std::move(verb);
  attributes.resourceRequest = true;
  attributes.apiGroup = std::move(group);
  attributes.resource = std::move(resource);
  attributes.namespaceName = std::move(namespaceName);
  attributes.name = std::move(name);
  attributes.subresource = std::move(subresource);
  return attributes;
}

}  // namespace fedhpa::apiserver::authz
