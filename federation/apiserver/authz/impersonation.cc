#include "federation/apiserver/authz/impersonation.h"
#include "federation/common/ascii.h"

#include <algorithm>

namespace fedhpa::apiserver::authz {

namespace {

constexpr std::string_view kExtraPrefix = "impersonate-extra-";

// Extra keys travel percent-encoded in the header name (they may hold '/').
std::string percentDecoded(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

void requireImpersonate(Authorizer& authorizer, Attributes attributes) {
  attributes.verb = "impersonate";
  attributes.resourceRequest = true;
  const Decision decision = authorizer.authorize(attributes);
  if (!decision.allowed) throw forbidden(attributes, decision.reason);
}

}  // namespace

std::optional<UserIdentity> impersonatedUser(const http::Request& request, const UserIdentity& requester,
                                             Authorizer& authorizer) {
  std::optional<std::string> userName = request.header("Impersonate-User");
  std::optional<std::string> uid = request.header("Impersonate-Uid");
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
  for (const auto& [name, value] : request.headers) {
    const std::string lower = asciiLowered(name);
    if (lower == "impersonate-group") groups.push_back(value);
    if (lower.rfind(kExtraPrefix, 0) == 0 && lower.size() > kExtraPrefix.size())
      extra[percentDecoded(lower.substr(kExtraPrefix.size()))].push_back(value);
  }
  if (!userName && groups.empty() && !uid && extra.empty()) return std::nullopt;
  if (!userName || userName->empty())
    throw api::ApiError::badRequest("requested impersonation of groups, uid or extra without impersonating a user");

  Attributes acting;
  acting.user = requester;
  UserIdentity target;
  target.name = *userName;
  if (userName->rfind(kServiceAccountPrefix, 0) == 0) {
    // system:serviceaccount:NAMESPACE:NAME
    const std::string rest = userName->substr(std::string(kServiceAccountPrefix).size());
    const auto colon = rest.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size())
      throw api::ApiError::badRequest("invalid service account name " + api::quoted(*userName));
    acting.resource = "serviceaccounts";
    acting.namespaceName = rest.substr(0, colon);
    acting.name = rest.substr(colon + 1);
    if (groups.empty()) target.groups = {"system:serviceaccounts", "system:serviceaccounts:" + acting.namespaceName};
  } else {
    acting.resource = "users";
    acting.name = *userName;
  }
  requireImpersonate(authorizer, acting);
  for (const auto& group : groups) {
    Attributes groupAttributes{requester, "", true, "", "", "", "groups", "", group, ""};
    requireImpersonate(authorizer, groupAttributes);
    target.groups.push_back(group);
  }
  for (const auto& [key, values] : extra)
    for (const auto& value : values)
      requireImpersonate(authorizer, {requester, "", true, "", "authentication.k8s.io", "", "userextras", key, value, ""});
  if (uid) {
    requireImpersonate(authorizer, {requester, "", true, "", "authentication.k8s.io", "", "uids", "", *uid, ""});
    target.uid = *uid;
  }
  target.extra = extra;
  // As kube: an impersonated user is authenticated (anonymous stays unauthenticated).
  const std::string implied = target.name == kAnonymousUser ? kUnauthenticatedGroup : kAuthenticatedGroup;
  if (!target.inGroup(implied)) target.groups.push_back(implied);
  return target;
}

}  // namespace fedhpa::apiserver::authz
