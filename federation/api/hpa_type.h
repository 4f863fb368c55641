// autoscaling HorizontalPodAutoscaler, served as v2 (stored, preferred) and v1.
#pragma once

#include <memory>

#include "federation/api/resource.h"

namespace fedhpa::api {

std::shared_ptr<const ResourceType> horizontalPodAutoscalerType();

// The annotations autoscaling/v1 carries v2-only data in, as kube-apiserver names them.
inline constexpr const char* kV1MetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kV1CurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kV1ConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr const char* kV1BehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";

}  // namespace fedhpa::api
