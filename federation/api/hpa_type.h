// autoscaling HorizontalPodAutoscaler, served as v2 (stored, preferred) and v1.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "federation/api/resource.h"
#include "federation/api/schema.h"

namespace fedhpa::api {

// withClusterShares: the federation's, with the -o wide Clusters column (clusterSharesColumn below);
// a member cluster's (the member-sim's) prints kube-apiserver's columns only.
std::shared_ptr<const ResourceType> horizontalPodAutoscalerType(bool withClusterShares = true);
// Its autoscaling/v2 schema: Karmada's FederatedHPA has the same fields and describes them its own way.
Schema horizontalPodAutoscalerV2Schema();

// The annotations autoscaling/v1 carries v2-only data in, as kube-apiserver names them.
inline constexpr const char* kV1MetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kV1CurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kV1ConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr const char* kV1BehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";

// Where the controller writes each member's share of a federated HPA: a JSON object from cluster
// name to {"min", "max", "current", "desired"[, "cpuUtilization"]}.
inline constexpr const char* kClusterStatusAnnotation = "federation.kubernetes.io/hpa-cluster-status";

// The -o wide column of a federated HPA: each member's min-max and current replicas, from that
// annotation, e.g. "member1 1-8 (5), member2 1-1 (1)"; "<none>" before the controller wrote it.
TableColumn clusterSharesColumn();
std::string clusterShares(const nlohmann::json& hpa);

}  // namespace fedhpa::api
