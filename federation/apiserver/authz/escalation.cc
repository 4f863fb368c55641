#include "federation/apiserver/authz/escalation.h"

namespace fedhpa::apiserver::authz {

using nlohmann::json;

namespace {

// A string member of client JSON ("" when absent or of another type: validation answers that later).
std::string textAt(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

std::string quotedList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + api::quoted(items[i]);
  return out + "]";
}

bool allowedTo(Authorizer& authorizer, const Attributes& request, const std::string& verb, const std::string& resource,
               const std::string& name) {
  Attributes check = request;
  check.verb = verb;
  check.resource = resource;
  check.subresource.clear();
  check.name = name;
  return authorizer.authorize(check).allowed;
}

void refuseIfUncovered(const Attributes& a, const std::vector<PolicyRule>& granted, Authorizer& authorizer) {
  const auto missing = uncoveredRules(authorizer.rulesFor(a.user, a.namespaceName), granted);
  if (missing.empty()) return;
  std::string reason = "user " + api::quoted(a.user.name) + " (groups=" + quotedList(a.user.groups) +
                       ") is attempting to grant RBAC permissions not currently held:";
  for (const auto& rule : missing) reason += "\n" + compactString(rule);
  const api::GroupResource resource{a.apiGroup, a.resource};
  throw api::ApiError(403, "Forbidden", resource.qualified() + " " + api::quoted(a.name) + " is forbidden: " + reason,
                      json{{"group", a.apiGroup}, {"kind", a.resource}, {"name", a.name}});
}

}  // namespace

std::string compactString(const PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.apiGroups.empty()) parts.push_back("APIGroups:" + quotedList(rule.apiGroups));
  if (!rule.resources.empty()) parts.push_back("Resources:" + quotedList(rule.resources));
  if (!rule.nonResourceURLs.empty()) parts.push_back("NonResourceURLs:" + quotedList(rule.nonResourceURLs));
  if (!rule.resourceNames.empty()) parts.push_back("ResourceNames:" + quotedList(rule.resourceNames));
  parts.push_back("Verbs:" + quotedList(rule.verbs));
  std::string out = "{";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

void confirmNoEscalation(const Attributes& request, const json* object, const std::optional<RoleRef>& currentRoleRef,
                         Authorizer& authorizer) {
  if (request.user.inGroup(kMastersGroup)) return;
  Attributes a = request;
  if (object && a.name.empty() && object->is_object() && object->contains("metadata"))
    a.name = textAt((*object)["metadata"], "name");
  const bool role = a.resource == "roles" || a.resource == "clusterroles";
  if (role) {
    if (allowedTo(authorizer, a, "escalate", a.resource, a.name)) return;
    if (!object) {
      const api::GroupResource resource{a.apiGroup, a.resource};
      throw api::ApiError(403, "Forbidden",
                          resource.qualified() + " " + api::quoted(a.name) + " is forbidden: a patch of a role needs " +
                              "the escalate verb (or system:masters); send the whole object with update instead",
                          json{{"group", a.apiGroup}, {"kind", a.resource}, {"name", a.name}});
    }
    refuseIfUncovered(a, rulesOf(*object), authorizer);
    return;
  }
  // A binding: its roleRef from the body, or for a patch the current one (roleRef is immutable).
  RoleRef roleRef = currentRoleRef.value_or(RoleRef{});
  if (object) {
    const json ref = object->is_object() && object->contains("roleRef") ? (*object)["roleRef"] : json::object();
    roleRef = {textAt(ref, "kind"), textAt(ref, "name")};
  }
  if (roleRef.name.empty()) return;  // nothing bound: validation refuses it, or the binding does not exist (404)
  const std::string roleResource = roleRef.kind == "Role" ? "roles" : "clusterroles";
  if (allowedTo(authorizer, a, "bind", roleResource, roleRef.name)) return;
  refuseIfUncovered(a, authorizer.rulesOfRole(roleRef.kind, a.resource == "rolebindings" ? a.namespaceName : "", roleRef.name),
                    authorizer);
}

}  // namespace fedhpa::apiserver::authz
