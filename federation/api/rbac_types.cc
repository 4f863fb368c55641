// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding (stored), and the
// create-only authorization.k8s.io/v1 reviews (never stored: the authorization layer answers them).
#include "federation/api/basic_resource_type.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

Schema stringList() { return Schema::arrayOf(Schema::string()); }

Schema policyRuleSchema() {
  return Schema::object({{"verbs", stringList()},
                         {"apiGroups", stringList()},
                         {"resources", stringList()},
                         {"resourceNames", stringList()},
                         {"nonResourceURLs", stringList()}});
}

Schema bindingSchema() {
  return topLevel({{"subjects", Schema::arrayOf(Schema::object({{"kind", Schema::string()},
                                                                 {"apiGroup", Schema::string()},
                                                                 {"name", Schema::string()},
                                                                 {"namespace", Schema::string()}}))},
                   {"roleRef", Schema::object({{"apiGroup", Schema::string()}, {"kind", Schema::string()},
                                               {"name", Schema::string()}})}});
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
            {{"v1", topLevel(cluster ? std::map<std::string, Schema>{{"rules", Schema::arrayOf(policyRuleSchema())},
                                                                     {"aggregationRule", Schema::any()}}
                                     : std::map<std::string, Schema>{{"rules", Schema::arrayOf(policyRuleSchema())}})}},
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
                          {{"v1", bindingSchema()}}, NameRule::PathSegment),
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
  return Schema::object({{"namespace", Schema::string()}, {"verb", Schema::string()}, {"group", Schema::string()},
                         {"version", Schema::string()}, {"resource", Schema::string()},
                         {"subresource", Schema::string()}, {"name", Schema::string()},
                         {"fieldSelector", Schema::any()}, {"labelSelector", Schema::any()}});
}

Schema accessReviewSpec(bool self) {
  std::map<std::string, Schema> fields = {
      {"resourceAttributes", resourceAttributesSchema()},
      {"nonResourceAttributes", Schema::object({{"path", Schema::string()}, {"verb", Schema::string()}})}};
  if (!self) {
    fields["user"] = Schema::string();
    fields["groups"] = stringList();
    fields["uid"] = Schema::string();
    fields["extra"] = Schema::mapOf(stringList());
  }
  return Schema::object(fields);
}

// A review is answered, not stored: only create is served, and nothing about it is listed in tables.
class ReviewType : public BasicResourceType {
 public:
  ReviewType(std::string kind, std::string resource, bool namespaced, Schema spec)
      : BasicResourceType(ResourceNames{"authorization.k8s.io", {"v1"}, "v1", kind, resource, lowered(kind), namespaced,
                                        {}, {}, {"create"}, {}},
                          {{"v1", topLevel({{"spec", std::move(spec)}, {"status", Schema::any()}})}},
                          NameRule::PathSegment) {}
  std::vector<StatusCause> validate(const json&, const json*) const override { return {}; }
  std::vector<TableColumn> tableColumns() const override { return {nameColumn()}; }
  json tableCells(const json& internal, Clock::time_point) const override {
    return json::array({stringAt(internal, "/metadata/name")});
  }

 private:
  static std::string lowered(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }
};

}  // namespace

std::shared_ptr<const ResourceType> roleType() { return std::make_shared<RoleType>(false); }
std::shared_ptr<const ResourceType> clusterRoleType() { return std::make_shared<RoleType>(true); }
std::shared_ptr<const ResourceType> roleBindingType() { return std::make_shared<BindingType>(false); }
std::shared_ptr<const ResourceType> clusterRoleBindingType() { return std::make_shared<BindingType>(true); }

std::vector<std::shared_ptr<const ResourceType>> authorizationReviewTypes() {
  return {std::make_shared<ReviewType>("SelfSubjectAccessReview", "selfsubjectaccessreviews", false, accessReviewSpec(true)),
          std::make_shared<ReviewType>("SelfSubjectRulesReview", "selfsubjectrulesreviews", false,
                                       Schema::object({{"namespace", Schema::string()}})),
          std::make_shared<ReviewType>("SubjectAccessReview", "subjectaccessreviews", false, accessReviewSpec(false)),
          std::make_shared<ReviewType>("LocalSubjectAccessReview", "localsubjectaccessreviews", true,
                                       accessReviewSpec(false))};
}

}  // namespace fedhpa::api
