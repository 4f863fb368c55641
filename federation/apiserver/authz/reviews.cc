#include "federation/apiserver/authz/reviews.h"

namespace fedhpa::apiserver::authz {

using nlohmann::json;

namespace {

std::string text(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

api::ApiError invalid(const std::string& kind, const std::string& field, const json& value, const std::string& detail) {
  return api::ApiError::invalid(kAuthorizationGroup, kind, "", {api::fieldInvalid(field, value, detail)});
}

// spec.resourceAttributes or spec.nonResourceAttributes (exactly one) as request attributes.
Attributes accessAttributes(const std::string& kind, const json& spec, const UserIdentity& user) {
  const bool resource = spec.contains("resourceAttributes") && spec["resourceAttributes"].is_object();
  const bool nonResource = spec.contains("nonResourceAttributes") && spec["nonResourceAttributes"].is_object();
  if (resource == nonResource)
    throw invalid(kind, "spec", "", "exactly one of nonResourceAttributes or resourceAttributes must be specified");
  Attributes attributes;
  attributes.user = user;
  if (nonResource) {
    const json& na = spec["nonResourceAttributes"];
    attributes.verb = text(na, "verb");
    attributes.path = text(na, "path");
    return attributes;
  }
  const json& ra = spec["resourceAttributes"];
  attributes.resourceRequest = true;
  attributes.verb = text(ra, "verb");
  attributes.namespaceName = text(ra, "namespace");
  attributes.apiGroup = text(ra, "group");
  attributes.apiVersion = text(ra, "version");
  attributes.resource = text(ra, "resource");
  attributes.subresource = text(ra, "subresource");
  attributes.name = text(ra, "name");
  return attributes;
}

UserIdentity subjectOf(const std::string& kind, const json& spec) {
  UserIdentity user;
  user.name = text(spec, "user");
  user.uid = text(spec, "uid");
  if (spec.contains("groups") && spec["groups"].is_array())
    for (const auto& group : spec["groups"])
      if (group.is_string()) user.groups.push_back(group.get<std::string>());
  if (spec.contains("extra") && spec["extra"].is_object())
    for (const auto& [key, values] : spec["extra"].items())
      if (values.is_array())
        for (const auto& value : values)
          if (value.is_string()) user.extra[key].push_back(value.get<std::string>());
  if (user.name.empty() && user.groups.empty())
    throw invalid(kind, "spec.user", "", "at least one of user or group must be specified");
  return user;
}

json accessStatus(const Decision& decision) {
  json status = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  return status;
}

json rulesStatus(const std::vector<PolicyRule>& rules) {
  json resourceRules = json::array();
  json nonResourceRules = json::array();
  for (const auto& rule : rules) {
    if (!rule.nonResourceURLs.empty()) {
      nonResourceRules.push_back({{"verbs", rule.verbs}, {"nonResourceURLs", rule.nonResourceURLs}});
      continue;
    }
    json out = {{"verbs", rule.verbs}, {"apiGroups", rule.apiGroups}, {"resources", rule.resources}};
    if (!rule.resourceNames.empty()) out["resourceNames"] = rule.resourceNames;
    resourceRules.push_back(out);
  }
  return {{"resourceRules", resourceRules}, {"nonResourceRules", nonResourceRules}, {"incomplete", false}};
}

}  // namespace

json answerReview(const std::string& resource, json review, const UserIdentity& requester, const std::string& urlNamespace,
                  Authorizer& authorizer) {
  const std::string kind = text(review, "kind");
  json spec = review.contains("spec") && review["spec"].is_object() ? review["spec"] : json::object();
  if (resource == "selfsubjectaccessreviews") {
    review["status"] = accessStatus(authorizer.authorize(accessAttributes(kind, spec, requester)));
  } else if (resource == "subjectaccessreviews") {
    review["status"] = accessStatus(authorizer.authorize(accessAttributes(kind, spec, subjectOf(kind, spec))));
  } else if (resource == "localsubjectaccessreviews") {
    Attributes attributes = accessAttributes(kind, spec, subjectOf(kind, spec));
    if (!attributes.resourceRequest)
      throw invalid(kind, "spec.nonResourceAttributes", "", "disallowed on this kind of request");
    if (attributes.namespaceName != urlNamespace)
      throw invalid(kind, "spec.resourceAttributes.namespace", attributes.namespaceName,
                    "must match metadata.namespace");
    review["status"] = accessStatus(authorizer.authorize(attributes));
  } else if (resource == "selfsubjectrulesreviews") {
    const std::string namespaceName = text(spec, "namespace");
    if (namespaceName.empty()) throw api::ApiError::badRequest("no namespace on request");
    review["status"] = rulesStatus(authorizer.rulesFor(requester, namespaceName));
  } else {
    throw api::ApiError::pathNotFound("/apis/authorization.k8s.io/v1/" + resource);
  }
  review["spec"] = spec;
  if (!review.contains("metadata") || !review["metadata"].is_object()) review["metadata"] = json::object();
  review["metadata"]["creationTimestamp"] = nullptr;
  return review;
}

}  // namespace fedhpa::apiserver::authz
