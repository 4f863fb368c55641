// What the controllers' caches keep of an object: no managedFields, no annotations but the
// federation's, of a member's copy only what reconcile reads; and what reconcile makes of a
// trimmed copy is what it makes of the whole one.
#include "federation/controller/cache_transforms.h"

#include <gtest/gtest.h>

#include <vector>

#include "federation/controller/hpa_decode.h"
#include "federation/controller/hpa_status.h"

namespace fedhpa::controller {
namespace {

using clusters::json;

// A member's copy as a kube-apiserver serves it, managedFields, someone else's annotation, the
// member HPA controller's condition messages and all.
json memberHpa() {
  return json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {
      "name": "web", "namespace": "default", "uid": "0d0c", "resourceVersion": "42", "generation": 3,
      "creationTimestamp": "2026-01-01T00:00:00Z",
      "labels": {"federation.kubernetes.io/managed-by": "fedhpa", "app": "web"},
      "annotations": {"example.com/owner": "team-a", "federation.fedhpa.io/note": "kept"},
      "managedFields": [{"manager": "fedhpa-controller", "operation": "Update", "fieldsV1": {"f:spec": {}}}]
    },
    "spec": {
      "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
      "minReplicas": 2, "maxReplicas": 5,
      "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]
    },
    "status": {
      "observedGeneration": 3, "currentReplicas": 5, "desiredReplicas": 5, "lastScaleTime": "2026-01-01T00:01:00Z",
      "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 180}}}],
      "conditions": [
        {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "lastTransitionTime": "2026-01-01T00:00:00Z",
         "message": "recommended size matches current size"},
        {"type": "ScalingLimited", "status": "True", "reason": "TooManyReplicas", "lastTransitionTime": "2026-01-01T00:00:00Z",
         "message": "the desired replica count is more than the maximum replica count"}]
    }})");
}

TEST(CacheTransforms, AMemberHpaKeepsOnlyWhatReconcileReads) {
  json trimmed = memberHpa();
  trimMemberHpa(trimmed);
  const json& metadata = trimmed["metadata"];
  EXPECT_FALSE(metadata.contains("managedFields"));
  EXPECT_FALSE(metadata.contains("uid"));
  EXPECT_EQ(metadata["annotations"], json({{"federation.fedhpa.io/note", "kept"}}));
  EXPECT_EQ(metadata["resourceVersion"], "42");  // what its writes are conditional on
  EXPECT_EQ(metadata["labels"], memberHpa()["metadata"]["labels"]);
  EXPECT_EQ(trimmed["spec"], memberHpa()["spec"]);
  EXPECT_FALSE(trimmed["status"].contains("observedGeneration"));
  EXPECT_EQ(trimmed["status"]["conditions"][1], json({{"type", "ScalingLimited"}, {"status", "True"}, {"reason", "TooManyReplicas"}}));
}

TEST(CacheTransforms, ReconcileReadsTheSameFromATrimmedMemberHpa) {
  json trimmed = memberHpa();
  trimMemberHpa(trimmed);
  const partitioner::LocalHpa whole = decodeLocalHpa(memberHpa(), "whole");
  const partitioner::LocalHpa kept = decodeLocalHpa(trimmed, "trimmed");
  EXPECT_EQ(kept.limits, whole.limits);
  EXPECT_EQ(kept.status.current, whole.status.current);
  EXPECT_EQ(kept.status.desired, whole.status.desired);
  EXPECT_EQ(kept.status.cpuUtilizationPercent, whole.status.cpuUtilizationPercent);
  EXPECT_EQ(kept.status.lastScaleTime, whole.status.lastScaleTime);
  ASSERT_TRUE(kept.status.limitedByMaxReplicas);
  EXPECT_TRUE(*kept.status.limitedByMaxReplicas);
  ASSERT_EQ(kept.metrics.size(), 1u);
  EXPECT_EQ(kept.metrics[0].current, whole.metrics[0].current);
  // What the federated HPA's status and per-cluster annotation are summed from.
  const Member member{"member1", {}, MemberHealth::Healthy, nullptr, nullptr, nullptr};
  const std::vector<MemberHpa> fromWhole = {{member, memberHpa(), partitioner::Limits{2, 5}, "42"}};
  const std::vector<MemberHpa> fromTrimmed = {{member, trimmed, partitioner::Limits{2, 5}, "42"}};
  EXPECT_EQ(statusBreakdown(fromTrimmed), statusBreakdown(fromWhole));
  const SystemTime now{};
  EXPECT_EQ(aggregatedStatus(fromTrimmed, 1, json::array(), now), aggregatedStatus(fromWhole, 1, json::array(), now));
}

TEST(CacheTransforms, AMemberDeploymentKeepsItsSpecAndReplicaCounts) {
  json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}, {"resourceVersion", "7"}, {"annotations", {{"deployment.kubernetes.io/revision", "1"}}}}},
      {"spec", {{"replicas", 3}, {"template", {{"spec", {{"containers", json::array({{{"name", "web"}, {"image", "nginx"}}})}}}}}}},
      {"status",
       {{"replicas", 3}, {"readyReplicas", 2}, {"availableReplicas", 2}, {"updatedReplicas", 3}, {"observedGeneration", 1},
        {"conditions", json::array({{{"type", "Available"}, {"status", "True"}, {"message", "has minimum availability"}}})}}}};
  const json spec = deployment["spec"];
  trimMemberDeployment(deployment);
  EXPECT_FALSE(deployment["metadata"].contains("annotations"));
  EXPECT_EQ(deployment["spec"], spec);
  EXPECT_EQ(deployment["status"], json({{"replicas", 3}, {"readyReplicas", 2}, {"availableReplicas", 2}, {"updatedReplicas", 3}}));
}

// A member's copy of a Service keeps its content (with what the member allocated) and the metadata
// a write needs; its status and someone else's annotations are written by nobody here.
TEST(CacheTransforms, AMemberCopyKeepsItsContentAndWriteMetadata) {
  json service = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", "web"}, {"namespace", "default"}, {"resourceVersion", "9"}, {"uid", "5e"},
        {"labels", {{"federation.kubernetes.io/managed-by", "fedhpa"}}},
        {"annotations", {{"mesh.example.com/injected", "true"}}},
        {"managedFields", json::array({{{"manager", "fedhpa-controller"}}})}}},
      {"spec", {{"clusterIP", "10.96.0.10"}, {"ports", json::array({{{"port", 80}}})}}},
      {"status", {{"loadBalancer", json::object()}}}};
  const json spec = service["spec"];
  trimMemberCopy(service);
  EXPECT_EQ(service["spec"], spec);
  EXPECT_FALSE(service.contains("status"));
  EXPECT_EQ(service["metadata"], json({{"name", "web"}, {"namespace", "default"}, {"resourceVersion", "9"},
                                       {"labels", {{"federation.kubernetes.io/managed-by", "fedhpa"}}}}));
}

// A federated object keeps all it had but managedFields and annotations not the federation's:
// kubectl's last-applied-configuration, a whole second copy of the object, above all.
TEST(CacheTransforms, AFederationObjectLosesManagedFieldsAndForeignAnnotationsOnly) {
  json federated = memberHpa();
  federated["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = memberHpa().dump();
  federated["metadata"]["annotations"]["federation.kubernetes.io/hpa-cluster-status"] = "{}";
  federated["metadata"]["finalizers"] = {"federation.kubernetes.io/delete-from-underlying-clusters"};
  json expected = federated;
  federationObjectTransform()(federated);
  expected["metadata"].erase("managedFields");
  expected["metadata"]["annotations"] = {{"federation.kubernetes.io/hpa-cluster-status", "{}"}, {"federation.fedhpa.io/note", "kept"}};
  EXPECT_EQ(federated, expected);
  EXPECT_TRUE(isFederationAnnotation("federation.alpha.kubernetes.io/cluster-selector"));
  EXPECT_FALSE(isFederationAnnotation("federation.example.com/x"));
}

}  // namespace
}  // namespace fedhpa::controller
