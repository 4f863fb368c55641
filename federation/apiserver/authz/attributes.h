// What an authorizer decides on, as kube-apiserver's authorizer.Attributes: who (after
// impersonation), the verb, and either a resource (group, resource, subresource, namespace, name)
// or a non-resource path. Also the 403 answer kube-apiserver gives when the decision is no.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "federation/api/status.h"
#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::authz {

inline constexpr const char* kAnonymousUser = "system:anonymous";
inline constexpr const char* kAuthenticatedGroup = "system:authenticated";
inline constexpr const char* kUnauthenticatedGroup = "system:unauthenticated";
inline constexpr const char* kMastersGroup = "system:masters";
inline constexpr const char* kServiceAccountPrefix = "system:serviceaccount:";

struct UserIdentity {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool inGroup(const std::string& group) const;
};

// The authenticated user, or kube's anonymous user when the request carried no credentials.
UserIdentity identityOf(const std::optional<http::UserInfo>& user);

struct Attributes {
  UserIdentity user;
  std::string verb;  // get list watch create update patch delete deletecollection impersonate ...; or get/post/... for paths
  bool resourceRequest = false;
  std::string namespaceName;
  std::string apiGroup;
  std::string apiVersion;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;  // non-resource requests
};

// kube-apiserver's RequestInfoFactory: resource requests from the URL (a list or watch filtered by
// metadata.name= names that object), everything else a non-resource request with the method as verb.
Attributes requestAttributes(const http::Request& request, const UserIdentity& user);

// `User "alice" cannot list resource "secrets" in API group "" in the namespace "default"`.
std::string forbiddenReason(const Attributes& attributes);
// The 403 Status: `secrets is forbidden: User "alice" cannot ...`, details naming group and resource.
api::ApiError forbidden(const Attributes& attributes, const std::string& reason = "");

}  // namespace fedhpa::apiserver::authz
