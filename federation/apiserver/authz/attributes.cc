#include "federation/apiserver/authz/attributes.h"

#include <algorithm>

#include "federation/apiserver/request_info.h"
#include "federation/common/ascii.h"

namespace fedhpa::apiserver::authz {

bool UserIdentity::inGroup(const std::string& group) const {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

UserIdentity identityOf(const std::optional<http::UserInfo>& user) {
  if (!user) return {kAnonymousUser, "", {kUnauthenticatedGroup}, {}};
  return {user->name, user->uid, user->groups, {}};
}

namespace {

// A list or watch with fieldSelector=metadata.name=x (client-go's informer for one object) is
// authorized as a request for that name, as kube-apiserver does.
std::string nameFromFieldSelector(const http::Request& request) {
  const std::string selector = request.queryParam("fieldSelector").value_or("");
  for (const char* prefix : {"metadata.name=", "metadata.name=="}) {
    const std::string p = prefix;
    if (selector.rfind(p, 0) == 0 && selector.find(',') == std::string::npos && selector.find('=', p.size()) == std::string::npos)
      return selector.substr(p.size());
  }
  return "";
}

}  // namespace

Attributes requestAttributes(const http::Request& request, const UserIdentity& user) {
  Attributes attributes;
  attributes.user = user;
  attributes.path = request.path;
  if (const auto info = parseResourceRequest(request)) {
    attributes.resourceRequest = true;
    attributes.verb = info->verb;
    attributes.namespaceName = info->namespaceName;
    attributes.apiGroup = info->group;
    attributes.apiVersion = info->version;
    attributes.resource = info->resource;
    attributes.subresource = info->subresource;
    attributes.name = info->name;
    if (attributes.name.empty() && (info->verb == "list" || info->verb == "watch"))
      attributes.name = nameFromFieldSelector(request);
    // A namespace's own URL (/api/v1/namespaces/x) names the namespace, not a namespace scope.
    if (info->group.empty() && info->resource == "namespaces" && attributes.namespaceName.empty())
      attributes.namespaceName = info->name;
  } else {
    attributes.verb = asciiLowered(request.method);
  }
  return attributes;
}

std::string forbiddenReason(const Attributes& a) {
  const std::string user = "User " + api::quoted(a.user.name);
  if (!a.resourceRequest) return user + " cannot " + a.verb + " path " + api::quoted(a.path);
  const std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  std::string message = user + " cannot " + a.verb + " resource " + api::quoted(resource) + " in API group " +
                        api::quoted(a.apiGroup);
  if (!a.namespaceName.empty()) return message + " in the namespace " + api::quoted(a.namespaceName);
  return message + " at the cluster scope";
}

api::ApiError forbidden(const Attributes& a, const std::string& reason) {
  std::string why = forbiddenReason(a);
  if (!reason.empty()) why += ": " + reason;
  if (!a.resourceRequest) return {403, "Forbidden", "forbidden: " + why, nlohmann::json::object()};
  const api::GroupResource resource{a.apiGroup, a.resource};
  const std::string subject = a.name.empty() ? resource.qualified() : resource.qualified() + " " + api::quoted(a.name);
  nlohmann::json details = {{"group", a.apiGroup}, {"kind", a.resource}};
  if (!a.name.empty()) details["name"] = a.name;
  return {403, "Forbidden", subject + " is forbidden: " + why, details};
}

}  // namespace fedhpa::apiserver::authz
