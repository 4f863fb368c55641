// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding (stored), and the
// create-only authorization.k8s.io/v1 reviews (never stored: the authorization layer answers them).
#include "federation/api/basic_resource_type.h"
#include "federation/common/ascii.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

Schema stringList() { return Schema::arrayOf(Schema::string()); }

Schema policyRuleSchema() {
  return Schema::object(
      {{"verbs",
        stringList().describe("Allowed actions: get, list, watch, create, update, patch, delete, deletecollection, or *.")},
       {"apiGroups", stringList().describe("API groups of the resources (\"\" is the core group, * every group).")},
       {"resources", stringList().describe("Resources the rule allows, e.g. horizontalpodautoscalers or pods/log; * for all.")},
       {"resourceNames", stringList().describe("Restricts the rule to objects of these names; all objects when empty.")},
       {"nonResourceURLs", stringList().describe("URL paths such as /healthz the rule allows (ClusterRoles only).")}});
}

Schema rulesSchema() {
  return Schema::arrayOf(policyRuleSchema()).describe("What the role allows; anything not allowed is denied.");
}

Schema roleSchema(bool cluster) {
  if (!cluster)
    return topLevel({{"rules", rulesSchema()}}).describe("A set of permissions within one namespace, granted by RoleBindings.");
  return topLevel({{"rules", rulesSchema()},
                   {"aggregationRule", Schema::any().describe("Selects ClusterRoles whose rules are combined into this one.")}})
      .describe("A set of permissions that applies cluster-wide or, bound by a RoleBinding, in one namespace.");
}

Schema bindingSchema(bool cluster) {
  const Schema subject = Schema::object(
      {{"kind", Schema::string().describe("User, Group or ServiceAccount.")},
       {"apiGroup", Schema::string().describe("rbac.authorization.k8s.io for users and groups; empty for service accounts.")},
       {"name", Schema::string().describe("The user, group or service account name.")},
       {"namespace", Schema::string().describe("The service account's namespace.")}});
  const Schema roleRef = Schema::object({{"apiGroup", Schema::string().describe("rbac.authorization.k8s.io.")},
                                         {"kind", Schema::string().describe(cluster ? "ClusterRole." : "Role or ClusterRole.")},
                                         {"name", Schema::string().describe("Name of the role.")}});
  return topLevel({{"subjects", Schema::arrayOf(subject).describe("Who is granted the role.")},
                   {"roleRef", roleRef.describe("The role granted; cannot be changed after creation.")}})
      .describe(cluster ? "Grants a ClusterRole's permissions to users, groups or service accounts in every namespace."
                        : "Grants a Role's (or a ClusterRole's) permissions to users, groups or service accounts within "
                          "this namespace.");
}

std::vector<std::string> stringsAt(const json& object, const char* key) {
  std::vector<std::string> out;
  if (!object.contains(key) || !object[key].is_array()) return out;
  for (const auto& item : object[key])
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

// kube's ValidatePolicyRule: verbs always; apiGroups with resources; nonResourceURLs only cluster-wide
// and never mixed with resources.
void validateRules(const json& object, bool namespaced, std::vector<StatusCause>& causes) {
  const json rules = object.value("rules", json::array());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const std::string field = "rules[" + std::to_string(i) + "]";
    const json& rule = rules[i];
    if (stringsAt(rule, "verbs").empty()) causes.push_back(fieldRequired(field + ".verbs"));
    const bool nonResource = !stringsAt(rule, "nonResourceURLs").empty();
    const bool resource = !stringsAt(rule, "resources").empty() || !stringsAt(rule, "apiGroups").empty() ||
                          !stringsAt(rule, "resourceNames").empty();
    if (nonResource) {
      if (namespaced)
        causes.push_back(fieldInvalid(field + ".nonResourceURLs", rule["nonResourceURLs"],
                                      "namespaced rules cannot apply to non-resource URLs"));
      if (resource)
        causes.push_back(fieldInvalid(field + ".nonResourceURLs", rule["nonResourceURLs"],
                                      "rules cannot apply to both regular resources and non-resource URLs"));
      continue;
    }
    if (stringsAt(rule, "apiGroups").empty())
      causes.push_back(fieldRequired(field + ".apiGroups"));
    if (stringsAt(rule, "resources").empty()) causes.push_back(fieldRequired(field + ".resources"));
  }
}

class RoleType : public BasicResourceType {
 public:
  RoleType(bool cluster)
      : BasicResourceType(
            ResourceNames{kRbacGroup, {"v1"}, "v1", cluster ? "ClusterRole" : "Role", cluster ? "clusterroles" : "roles",
                          cluster ? "clusterrole" : "role", !cluster, {}, {}, allVerbs(), {}},
            {{"v1", roleSchema(cluster)}},
            NameRule::PathSegment),
        cluster_(cluster) {}
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    validateRules(internal, !cluster_, causes);
    return causes;
  }
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Created At", "date", "", "Time the role was created", 0}};
  }
  json tableCells(const json& internal, Clock::time_point) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/metadata/creationTimestamp")});
  }

 private:
  bool cluster_;
};

class BindingType : public BasicResourceType {
 public:
  BindingType(bool cluster)
      : BasicResourceType(ResourceNames{kRbacGroup, {"v1"}, "v1", cluster ? "ClusterRoleBinding" : "RoleBinding",
                                        cluster ? "clusterrolebindings" : "rolebindings",
                                        cluster ? "clusterrolebinding" : "rolebinding", !cluster, {}, {}, allVerbs(), {}},
                          {{"v1", bindingSchema(cluster)}}, NameRule::PathSegment),
        cluster_(cluster) {}

  // kube's ValidateRoleBinding / ValidateClusterRoleBinding, and roleRef's immutability on update.
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json roleRef = internal.value("roleRef", json::object());
    const std::string kind = roleRef.value("kind", "");
    if (roleRef.value("apiGroup", "") != kRbacGroup)
      causes.push_back(fieldNotSupported("roleRef.apiGroup", roleRef.value("apiGroup", ""), {kRbacGroup}));
    if (cluster_ && kind != "ClusterRole")
      causes.push_back(fieldNotSupported("roleRef.kind", kind, {"ClusterRole"}));
    if (!cluster_ && kind != "Role" && kind != "ClusterRole")
      causes.push_back(fieldNotSupported("roleRef.kind", kind, {"Role", "ClusterRole"}));
    if (roleRef.value("name", "").empty()) causes.push_back(fieldRequired("roleRef.name"));
    if (old && old->value("roleRef", json::object()) != roleRef)
      causes.push_back(fieldInvalid("roleRef", roleRef, "cannot change roleRef"));
    const json subjects = internal.value("subjects", json::array());
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      const std::string field = "subjects[" + std::to_string(i) + "]";
      const json& subject = subjects[i];
      const std::string subjectKind = subject.value("kind", "");
      if (subject.value("name", "").empty()) causes.push_back(fieldRequired(field + ".name"));
      if (subjectKind == "ServiceAccount") {
        if (!subject.value("apiGroup", "").empty())
          causes.push_back(fieldNotSupported(field + ".apiGroup", subject.value("apiGroup", ""), {""}));
        if (cluster_ && subject.value("namespace", "").empty()) causes.push_back(fieldRequired(field + ".namespace"));
      } else if (subjectKind == "User" || subjectKind == "Group") {
        if (subject.value("apiGroup", "") != kRbacGroup)
          causes.push_back(fieldNotSupported(field + ".apiGroup", subject.value("apiGroup", ""), {kRbacGroup}));
      } else {
        causes.push_back(fieldNotSupported(field + ".kind", subjectKind, {"ServiceAccount", "User", "Group"}));
      }
    }
    return causes;
  }
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            {"Role", "string", "", "RoleRef is the reference to the role the binding grants", 0},
            ageColumn(),
            {"Users", "string", "", "Users in the binding", 1},
            {"Groups", "string", "", "Groups in the binding", 1},
            {"ServiceAccounts", "string", "", "ServiceAccounts in the binding", 1}};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    std::string users, groups, serviceAccounts;
    const auto append = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
    for (const auto& subject : internal.value("subjects", json::array())) {
      const std::string kind = subject.value("kind", "");
      if (kind == "User") append(users, subject.value("name", ""));
      if (kind == "Group") append(groups, subject.value("name", ""));
      if (kind == "ServiceAccount") append(serviceAccounts, subject.value("namespace", "") + "/" + subject.value("name", ""));
    }
    return json::array({stringAt(internal, "/metadata/name"),
                        stringAt(internal, "/roleRef/kind") + "/" + stringAt(internal, "/roleRef/name"),
                        ageOf(internal, now), users, groups, serviceAccounts});
  }

 private:
  bool cluster_;
};

Schema resourceAttributesSchema() {
  return Schema::object({{"namespace", Schema::string().describe(
                                           "The namespace of the request; empty for cluster-wide resources or all namespaces.")},
                         {"verb", Schema::string().describe("The action, e.g. get, list, create, delete.")},
                         {"group", Schema::string().describe("The resource's API group.")},
                         {"version", Schema::string().describe("The resource's API version.")},
                         {"resource", Schema::string().describe("The resource, e.g. horizontalpodautoscalers.")},
                         {"subresource", Schema::string().describe("The subresource, e.g. status or scale.")},
                         {"name", Schema::string().describe("The object's name; empty for every object.")},
                         {"fieldSelector", Schema::any().describe("A field selector the request would carry.")},
                         {"labelSelector", Schema::any().describe("A label selector the request would carry.")}});
}

Schema accessReviewSpec(bool self) {
  std::map<std::string, Schema> fields = {
      {"resourceAttributes", resourceAttributesSchema().describe("The API request to check.")},
      {"nonResourceAttributes", Schema::object({{"path", Schema::string().describe("The URL path, e.g. /healthz.")},
                                                {"verb", Schema::string().describe("The HTTP verb, lower-case (get).")}})
                                    .describe("The non-resource request to check, instead of resourceAttributes.")}};
  if (!self) {
    fields["user"] = Schema::string().describe("The user to check for.");
    fields["groups"] = stringList().describe("The user's groups.");
    fields["uid"] = Schema::string().describe("The user's UID.");
    fields["extra"] = Schema::mapOf(stringList()).describe("Further attributes of the user, as an authenticator reports them.");
  }
  return Schema::object(fields).describe("The request to be checked.");
}

// A review is answered, not stored: only create is served, and nothing about it is listed in tables.
class ReviewType : public BasicResourceType {
 public:
  ReviewType(std::string kind, std::string resource, bool namespaced, Schema spec, std::string description)
      : BasicResourceType(ResourceNames{"authorization.k8s.io", {"v1"}, "v1", kind, resource, asciiLowered(kind), namespaced,
                                        {}, {}, {"create"}, {}},
                          {{"v1", topLevel({{"spec", std::move(spec)},
                                            {"status",
                                             Schema::any().describe("The server's answer: allowed (or the rules), and why.")}})
                                      .describe(std::move(description))}},
                          NameRule::PathSegment) {}
  std::vector<StatusCause> validate(const json&, const json*) const override { return {}; }
  std::vector<TableColumn> tableColumns() const override { return {nameColumn()}; }
  json tableCells(const json& internal, Clock::time_point) const override {
    return json::array({stringAt(internal, "/metadata/name")});
  }

 private:
};

}  // namespace

std::shared_ptr<const ResourceType> roleType() { return std::make_shared<RoleType>(false); }
std::shared_ptr<const ResourceType> clusterRoleType() { return std::make_shared<RoleType>(true); }
std::shared_ptr<const ResourceType> roleBindingType() { return std::make_shared<BindingType>(false); }
std::shared_ptr<const ResourceType> clusterRoleBindingType() { return std::make_shared<BindingType>(true); }

std::vector<std::shared_ptr<const ResourceType>> authorizationReviewTypes() {
  return {
      std::make_shared<ReviewType>("SelfSubjectAccessReview", "selfsubjectaccessreviews", false, accessReviewSpec(true),
                                   "Asks whether the caller may make a request (kubectl auth can-i); answered, never stored."),
      std::make_shared<ReviewType>(
          "SelfSubjectRulesReview", "selfsubjectrulesreviews", false,
          Schema::object({{"namespace", Schema::string().describe("The namespace whose rules to list.")}})
              .describe("The namespace to list the caller's rules in."),
          "Lists what the caller may do in a namespace (kubectl auth can-i --list); answered, never stored."),
      std::make_shared<ReviewType>("SubjectAccessReview", "subjectaccessreviews", false, accessReviewSpec(false),
                                   "Asks whether a given user may make a request; answered, never stored."),
      std::make_shared<ReviewType>("LocalSubjectAccessReview", "localsubjectaccessreviews", true, accessReviewSpec(false),
                                   "Asks whether a given user may make a request in this namespace; answered, never "
                                   "stored.")};
}

}  // namespace fedhpa::api
