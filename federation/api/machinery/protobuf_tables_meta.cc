// meta/v1 (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto): the parts every object shares,
// lists, Status and watch events.
#include "federation/api/machinery/protobuf_schema.h"

namespace fedhpa::api::machinery {

using namespace proto;

void addMetaTables(ProtoRegistry& registry) {
  registry.add("meta.ObjectMeta",
               {str(1, "name"), str(2, "generateName"), str(3, "namespace"), str(4, "selfLink"), str(5, "uid"),
                str(6, "resourceVersion"), i64(7, "generation"), time(8, "creationTimestamp"),
                time(9, "deletionTimestamp", kPointer), i64(10, "deletionGracePeriodSeconds", kPointer),
                map(11, "labels"), map(12, "annotations"), msgs(13, "ownerReferences", "meta.OwnerReference"),
                strs(14, "finalizers"), msgs(17, "managedFields", "meta.ManagedFieldsEntry")});
  registry.add("meta.OwnerReference",
               {str(1, "kind", kAlways), str(3, "name", kAlways), str(4, "uid", kAlways), str(5, "apiVersion", kAlways),
                boolean(6, "controller", kPointer), boolean(7, "blockOwnerDeletion", kPointer)});
  registry.add("meta.ManagedFieldsEntry",
               {str(1, "manager"), str(2, "operation"), str(3, "apiVersion"), time(4, "time", kPointer),
                str(6, "fieldsType"), jsonBytes(7, "fieldsV1"), str(8, "subresource")});
  registry.add("meta.ListMeta", {str(1, "selfLink"), str(2, "resourceVersion"), str(3, "continue"),
                                 i64(4, "remainingItemCount", kPointer)});
  registry.add("meta.LabelSelector",
               {map(1, "matchLabels"), msgs(2, "matchExpressions", "meta.LabelSelectorRequirement")});
  registry.add("meta.LabelSelectorRequirement", {str(1, "key", kAlways), str(2, "operator", kAlways), strs(3, "values")});
  registry.add("meta.Condition", {str(1, "type", kAlways), str(2, "status", kAlways), i64(3, "observedGeneration"),
                                  time(4, "lastTransitionTime", kAlways), str(5, "reason", kAlways),
                                  str(6, "message", kAlways)});
  registry.add("meta.Status", {msg(1, "metadata", "meta.ListMeta"), str(2, "status"), str(3, "message"), str(4, "reason"),
                               msg(5, "details", "meta.StatusDetails", kPointer), i32(6, "code")});
  registry.add("meta.StatusDetails", {str(1, "name"), str(2, "group"), str(3, "kind"), msgs(4, "causes", "meta.StatusCause"),
                                      i32(5, "retryAfterSeconds"), str(6, "uid")});
  registry.add("meta.StatusCause", {str(1, "reason"), str(2, "message"), str(3, "field")});
  registry.addKind("v1", "Status", "meta.Status");
}

}  // namespace fedhpa::api::machinery
