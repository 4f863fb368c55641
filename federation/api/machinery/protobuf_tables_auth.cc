// rbac.authorization.k8s.io/v1, authorization.k8s.io/v1 (access reviews), authentication.k8s.io/v1
// (TokenRequest) and coordination.k8s.io/v1 (Lease), from their generated.proto files.
#include "federation/api/machinery/protobuf_schema.h"

namespace fedhpa::api::machinery {

using namespace proto;

namespace {

void addRbacTables(ProtoRegistry& registry) {
  registry.add("rbac.PolicyRule", {strs(1, "verbs"), strs(2, "apiGroups"), strs(3, "resources"), strs(4, "resourceNames"),
                                   strs(5, "nonResourceURLs")});
  registry.add("rbac.Role", {msg(1, "metadata", "meta.ObjectMeta"), msgs(2, "rules", "rbac.PolicyRule")});
  registry.add("rbac.ClusterRole", {msg(1, "metadata", "meta.ObjectMeta"), msgs(2, "rules", "rbac.PolicyRule"),
                                    msg(3, "aggregationRule", "rbac.AggregationRule", kPointer)});
  registry.add("rbac.AggregationRule", {msgs(1, "clusterRoleSelectors", "meta.LabelSelector")});
  registry.add("rbac.Subject", {str(1, "kind", kAlways), str(2, "apiGroup"), str(3, "name", kAlways), str(4, "namespace")});
  registry.add("rbac.RoleRef", {str(1, "apiGroup", kAlways), str(2, "kind", kAlways), str(3, "name", kAlways)});
  registry.add("rbac.RoleBinding", {msg(1, "metadata", "meta.ObjectMeta"), msgs(2, "subjects", "rbac.Subject"),
                                    msg(3, "roleRef", "rbac.RoleRef")});
  for (const char* kind : {"Role", "ClusterRole"})
    registry.addKind("rbac.authorization.k8s.io/v1", kind, std::string("rbac.") + kind);
  for (const char* kind : {"RoleBinding", "ClusterRoleBinding"})
    registry.addKind("rbac.authorization.k8s.io/v1", kind, "rbac.RoleBinding");
}

void addAuthorizationTables(ProtoRegistry& registry) {
  registry.add("authorization.ResourceAttributes",
               {str(1, "namespace"), str(2, "verb"), str(3, "group"), str(4, "version"), str(5, "resource"),
                str(6, "subresource"), str(7, "name")});
  registry.add("authorization.NonResourceAttributes", {str(1, "path"), str(2, "verb")});
  // SubjectAccessReviewSpec; SelfSubjectAccessReviewSpec is its fields 1 and 2.
  registry.add("authorization.AccessReviewSpec",
               {msg(1, "resourceAttributes", "authorization.ResourceAttributes", kPointer),
                msg(2, "nonResourceAttributes", "authorization.NonResourceAttributes", kPointer), str(3, "user"),
                strs(4, "groups"), map(5, "extra", ProtoKind::StringListMap), str(6, "uid")});
  registry.add("authorization.AccessReviewStatus",
               {boolean(1, "allowed", kAlways), str(2, "reason"), str(3, "evaluationError"), boolean(4, "denied")});
  registry.add("authorization.AccessReview", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "authorization.AccessReviewSpec"),
                                              msg(3, "status", "authorization.AccessReviewStatus")});
  registry.add("authorization.RulesReviewSpec", {str(1, "namespace")});
  registry.add("authorization.ResourceRule", {strs(1, "verbs"), strs(2, "apiGroups"), strs(3, "resources"), strs(4, "resourceNames")});
  registry.add("authorization.NonResourceRule", {strs(1, "verbs"), strs(2, "nonResourceURLs")});
  registry.add("authorization.RulesReviewStatus",
               {msgs(1, "resourceRules", "authorization.ResourceRule"), msgs(2, "nonResourceRules", "authorization.NonResourceRule"),
                boolean(3, "incomplete", kAlways), str(4, "evaluationError")});
  registry.add("authorization.RulesReview", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "authorization.RulesReviewSpec"),
                                             msg(3, "status", "authorization.RulesReviewStatus")});
  for (const char* kind : {"SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview"})
    registry.addKind("authorization.k8s.io/v1", kind, "authorization.AccessReview");
  registry.addKind("authorization.k8s.io/v1", "SelfSubjectRulesReview", "authorization.RulesReview");
}

}  // namespace

void addAuthTables(ProtoRegistry& registry) {
  addRbacTables(registry);
  addAuthorizationTables(registry);
  registry.add("authentication.TokenRequest", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "authentication.TokenRequestSpec"),
                                               msg(3, "status", "authentication.TokenRequestStatus")});
  registry.add("authentication.TokenRequestSpec",
               {strs(1, "audiences"), msg(3, "boundObjectRef", "authentication.BoundObjectReference", kPointer),
                i64(4, "expirationSeconds", kPointer)});
  registry.add("authentication.BoundObjectReference", {str(1, "kind"), str(2, "apiVersion"), str(3, "name"), str(4, "uid")});
  registry.add("authentication.TokenRequestStatus", {str(1, "token", kAlways), time(2, "expirationTimestamp", kAlways)});
  registry.addKind("authentication.k8s.io/v1", "TokenRequest", "authentication.TokenRequest");

  registry.add("coordination.Lease", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "coordination.LeaseSpec")});
  registry.add("coordination.LeaseSpec",
               {str(1, "holderIdentity", kPointer), i32(2, "leaseDurationSeconds", kPointer),
                microTime(3, "acquireTime", kPointer), microTime(4, "renewTime", kPointer),
                i32(5, "leaseTransitions", kPointer), str(6, "strategy", kPointer), str(7, "preferredHolder", kPointer)});
  registry.addKind("coordination.k8s.io/v1", "Lease", "coordination.Lease");
}

}  // namespace fedhpa::api::machinery
