// apps/v1 Deployment, autoscaling/v1 (HorizontalPodAutoscaler, Scale) and autoscaling/v2
// HorizontalPodAutoscaler (k8s.io/api/{apps,autoscaling}/.../generated.proto).
#include "federation/api/machinery/protobuf_schema.h"

namespace fedhpa::api::machinery {

using namespace proto;

namespace {

void addDeploymentTables(ProtoRegistry& registry) {
  registry.add("apps.Deployment", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "apps.DeploymentSpec"),
                                   msg(3, "status", "apps.DeploymentStatus")});
  registry.add("apps.DeploymentSpec",
               {i32(1, "replicas", kPointer), msg(2, "selector", "meta.LabelSelector", kPointer),
                msg(3, "template", "core.PodTemplateSpec"), msg(4, "strategy", "apps.DeploymentStrategy"),
                i32(5, "minReadySeconds"), i32(6, "revisionHistoryLimit", kPointer), boolean(7, "paused"),
                i32(9, "progressDeadlineSeconds", kPointer)});
  registry.add("apps.DeploymentStrategy", {str(1, "type"), msg(2, "rollingUpdate", "apps.RollingUpdateDeployment", kPointer)});
  registry.add("apps.RollingUpdateDeployment",
               {intOrString(1, "maxUnavailable", kPointer), intOrString(2, "maxSurge", kPointer)});
  registry.add("apps.DeploymentStatus",
               {i64(1, "observedGeneration"), i32(2, "replicas"), i32(3, "updatedReplicas"), i32(4, "availableReplicas"),
                i32(5, "unavailableReplicas"), msgs(6, "conditions", "apps.DeploymentCondition"), i32(7, "readyReplicas"),
                i32(8, "collisionCount", kPointer), i32(9, "terminatingReplicas", kPointer)});
  registry.add("apps.DeploymentCondition", {str(1, "type", kAlways), str(2, "status", kAlways), str(4, "reason"),
                                            str(5, "message"), time(6, "lastUpdateTime"), time(7, "lastTransitionTime")});
  registry.addKind("apps/v1", "Deployment", "apps.Deployment");
}

void addAutoscalingTables(ProtoRegistry& registry) {
  registry.add("autoscaling.Scale", {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "autoscaling.ScaleSpec"),
                                     msg(3, "status", "autoscaling.ScaleStatus")});
  // replicas is omitempty in Go, but 0 is a scale to zero: kept, so that the handler sees it was sent.
  registry.add("autoscaling.ScaleSpec", {i32(1, "replicas", kAlways)});
  registry.add("autoscaling.ScaleStatus", {i32(1, "replicas", kAlways), str(2, "selector")});
  registry.add("autoscaling.CrossVersionObjectReference",
               {str(1, "kind", kAlways), str(2, "name", kAlways), str(3, "apiVersion")});

  registry.add("autoscaling.v1.HorizontalPodAutoscaler",
               {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "autoscaling.v1.Spec"), msg(3, "status", "autoscaling.v1.Status")});
  registry.add("autoscaling.v1.Spec", {msg(1, "scaleTargetRef", "autoscaling.CrossVersionObjectReference"),
                                       i32(2, "minReplicas", kPointer), i32(3, "maxReplicas", kAlways),
                                       i32(4, "targetCPUUtilizationPercentage", kPointer)});
  registry.add("autoscaling.v1.Status", {i64(1, "observedGeneration", kPointer), time(2, "lastScaleTime", kPointer),
                                         i32(3, "currentReplicas", kAlways), i32(4, "desiredReplicas", kAlways),
                                         i32(5, "currentCPUUtilizationPercentage", kPointer)});

  registry.add("autoscaling.v2.HorizontalPodAutoscaler",
               {msg(1, "metadata", "meta.ObjectMeta"), msg(2, "spec", "autoscaling.v2.Spec"), msg(3, "status", "autoscaling.v2.Status")});
  registry.add("autoscaling.v2.Spec", {msg(1, "scaleTargetRef", "autoscaling.CrossVersionObjectReference"),
                                       i32(2, "minReplicas", kPointer), i32(3, "maxReplicas", kAlways),
                                       msgs(4, "metrics", "autoscaling.v2.MetricSpec"),
                                       msg(5, "behavior", "autoscaling.v2.Behavior", kPointer)});
  registry.add("autoscaling.v2.MetricSpec",
               {str(1, "type", kAlways), msg(2, "object", "autoscaling.v2.ObjectMetricSource", kPointer),
                msg(3, "pods", "autoscaling.v2.MetricSource", kPointer), msg(4, "resource", "autoscaling.v2.ResourceMetricSource", kPointer),
                msg(5, "external", "autoscaling.v2.MetricSource", kPointer),
                msg(7, "containerResource", "autoscaling.v2.ResourceMetricSource", kPointer)});
  registry.add("autoscaling.v2.ObjectMetricSource",
               {msg(1, "describedObject", "autoscaling.CrossVersionObjectReference"), msg(2, "target", "autoscaling.v2.MetricTarget"),
                msg(3, "metric", "autoscaling.v2.MetricIdentifier")});
  // PodsMetricSource and ExternalMetricSource: {1 metric, 2 target}.
  registry.add("autoscaling.v2.MetricSource",
               {msg(1, "metric", "autoscaling.v2.MetricIdentifier"), msg(2, "target", "autoscaling.v2.MetricTarget")});
  // ResourceMetricSource {1 name, 2 target}; ContainerResourceMetricSource adds 3 container.
  registry.add("autoscaling.v2.ResourceMetricSource",
               {str(1, "name", kAlways), msg(2, "target", "autoscaling.v2.MetricTarget"), str(3, "container")});
  registry.add("autoscaling.v2.MetricTarget", {str(1, "type", kAlways), quantity(2, "value", kPointer),
                                               quantity(3, "averageValue", kPointer), i32(4, "averageUtilization", kPointer)});
  registry.add("autoscaling.v2.MetricIdentifier", {str(1, "name", kAlways), msg(2, "selector", "meta.LabelSelector", kPointer)});
  registry.add("autoscaling.v2.Behavior", {msg(1, "scaleUp", "autoscaling.v2.ScalingRules", kPointer),
                                           msg(2, "scaleDown", "autoscaling.v2.ScalingRules", kPointer)});
  // stabilizationWindowSeconds came after selectPolicy and policies: it is field 3.
  registry.add("autoscaling.v2.ScalingRules", {str(1, "selectPolicy", kPointer), msgs(2, "policies", "autoscaling.v2.ScalingPolicy"),
                                               i32(3, "stabilizationWindowSeconds", kPointer),
                                               quantity(4, "tolerance", kPointer)});
  registry.add("autoscaling.v2.ScalingPolicy", {str(1, "type", kAlways), i32(2, "value", kAlways), i32(3, "periodSeconds", kAlways)});
  registry.add("autoscaling.v2.Status",
               {i64(1, "observedGeneration", kPointer), time(2, "lastScaleTime", kPointer), i32(3, "currentReplicas"),
                i32(4, "desiredReplicas", kAlways), msgs(5, "currentMetrics", "autoscaling.v2.MetricStatus"),
                msgs(6, "conditions", "autoscaling.v2.Condition")});
  registry.add("autoscaling.v2.MetricStatus",
               {str(1, "type", kAlways), msg(2, "object", "autoscaling.v2.ObjectMetricStatus", kPointer),
                msg(3, "pods", "autoscaling.v2.PodsMetricStatus", kPointer),
                msg(4, "resource", "autoscaling.v2.ResourceMetricStatus", kPointer),
                msg(5, "external", "autoscaling.v2.PodsMetricStatus", kPointer),
                msg(7, "containerResource", "autoscaling.v2.ResourceMetricStatus", kPointer)});
  registry.add("autoscaling.v2.ObjectMetricStatus",
               {msg(1, "metric", "autoscaling.v2.MetricIdentifier"), msg(2, "current", "autoscaling.v2.MetricValueStatus"),
                msg(3, "describedObject", "autoscaling.CrossVersionObjectReference")});
  // PodsMetricStatus and ExternalMetricStatus: {1 metric, 2 current}.
  registry.add("autoscaling.v2.PodsMetricStatus",
               {msg(1, "metric", "autoscaling.v2.MetricIdentifier"), msg(2, "current", "autoscaling.v2.MetricValueStatus")});
  registry.add("autoscaling.v2.ResourceMetricStatus",
               {str(1, "name", kAlways), msg(2, "current", "autoscaling.v2.MetricValueStatus"), str(3, "container")});
  registry.add("autoscaling.v2.MetricValueStatus", {quantity(1, "value", kPointer), quantity(2, "averageValue", kPointer),
                                                    i32(3, "averageUtilization", kPointer)});
  registry.add("autoscaling.v2.Condition", {str(1, "type", kAlways), str(2, "status", kAlways),
                                            time(3, "lastTransitionTime"), str(4, "reason"), str(5, "message")});
  registry.addKind("autoscaling/v1", "Scale", "autoscaling.Scale");
  registry.addKind("autoscaling/v1", "HorizontalPodAutoscaler", "autoscaling.v1.HorizontalPodAutoscaler");
  registry.addKind("autoscaling/v2", "HorizontalPodAutoscaler", "autoscaling.v2.HorizontalPodAutoscaler");
}

}  // namespace

void addAppsAndAutoscalingTables(ProtoRegistry& registry) {
  addDeploymentTables(registry);
  addAutoscalingTables(registry);
}

}  // namespace fedhpa::api::machinery
