// The member-sim's metrics pipeline: what a member's metrics server (and custom/external metrics
// adapters) would report for each entry of an HPA's spec.metrics, from demand annotations on the
// HPA's target Deployment, and how status.currentMetrics shows it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clusters/sim/model/hpa_model.h"

namespace fedhpa::sim {

// The demand of one metric, in replicas at target: "metrics.sim.fedhpa.io/<metric name>" on the
// Deployment (the resource name for Resource and ContainerResource, metric.name for the others).
// A metric without its own annotation follows sim.fedhpa.io/demand.
inline constexpr const char* kMetricDemandPrefix = "metrics.sim.fedhpa.io/";

// The name a metric's demand annotation uses ("cpu", "http_requests_per_second").
std::string metricName(const nlohmann::json& metricSpec);

// One MetricInput per entry of `specMetrics` (an autoscaling/v2 spec.metrics list), read at
// `replicas` pods: target * demand / replicas (metricFromDemand). Entries of a type this model
// does not know, or without a target value, are left out as kube's HPA leaves them out.
struct MemberMetric {
  nlohmann::json spec;  // the spec.metrics entry
  MetricInput input;
};
std::vector<MemberMetric> memberMetrics(const nlohmann::json& specMetrics,
                                        const nlohmann::json& deployment, int replicas);

// status.currentMetrics for those metrics: each spec entry with its target replaced by the
// reading (averageUtilization, averageValue or value, as the target type asks).
nlohmann::json currentMetricsJson(const std::vector<MemberMetric>& metrics);

// The demand annotation's value: sim.fedhpa.io/demand, or the metric's own when given.
double demandFor(const nlohmann::json& deployment, const std::string& annotation);

}  // namespace fedhpa::sim
