// kube-apiserver's defaulting of an autoscaling/v2 HorizontalPodAutoscaler, as one function on
// its spec: what a member cluster holds after a create, an update or a patch. The API server's
// HPA type applies it, and the controller applies it to the spec it wants on a member so that
// the two compare equal when they mean the same.
#pragma once

#include <nlohmann/json.hpp>

namespace fedhpa::api {

// Fills, where absent (or null): minReplicas 1; metrics, when absent or empty, one Resource cpu
// target at averageUtilization 80; and when `behavior` is set, each of scaleUp and scaleDown that
// lacks them gets selectPolicy Max and the default policies (scaleUp: 4 Pods or 100 Percent per
// 15 s; scaleDown: 100 Percent per 15 s), and scaleUp a stabilizationWindowSeconds of 0.
// scaleDown gets no window: as in Kubernetes, the member's HPA controller supplies it from its
// own --horizontal-pod-autoscaler-downscale-stabilization (300 s by default). What is set stays,
// an explicit empty policy list included; a field of the wrong type is left for validation.
// Idempotent. A null spec becomes an object; any other non-object is left as it is.
void applyHpaV2Defaults(nlohmann::json& spec);

}  // namespace fedhpa::api
