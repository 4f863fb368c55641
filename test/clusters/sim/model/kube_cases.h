// Shared by the tests that transcribe Kubernetes' own HPA controller cases: the conditions kube's
// test controller runs under (pkg/controller/podautoscaler/horizontal_test.go) and its pods.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "clusters/sim/model/hpa_model.h"

namespace fedhpa::sim::kube {

inline const TimePoint kNow = Clock::from_time_t(1'800'000'000);

// kube's test controller: tolerance 0.1, CPU initialisation 2 min, initial readiness delay 10 s,
// downscale stabilisation 5 min; its fake metrics are sampled now over a 1 min window.
inline ControllerOptions testController() {
  ControllerOptions options;
  options.tolerance = 0.1;
  options.cpuInitializationPeriod = std::chrono::minutes(2);
  options.initialReadinessDelay = std::chrono::seconds(10);
  options.downscaleStabilization = std::chrono::minutes(5);
  return options;
}
inline constexpr std::chrono::seconds kTestMetricWindow{60};

// coolCPUCreationTime (started 3 min ago) and hotCPUCreationTime (started now); the Ready
// condition changed when the pod started.
inline Pod coolPod(bool ready = true) {
  const TimePoint started = kNow - std::chrono::minutes(3);
  return {Pod::Phase::Running, ready, false, started, started};
}
inline Pod hotPod(bool ready = true) { return {Pod::Phase::Running, ready, false, kNow, kNow}; }

inline std::vector<Pod> coolPods(int count) { return std::vector<Pod>(static_cast<std::size_t>(count), coolPod()); }

// A Resource cpu Utilization metric with each pod's utilisation (percent of its request).
inline MetricInput cpuUtilization(double target, std::vector<std::optional<double>> perPod) {
  MetricInput metric;
  metric.target = target;
  metric.description = "cpu resource utilization (percentage of request)";
  metric.perPod = std::move(perPod);
  return metric;
}

// A Resource cpu Utilization metric read as one figure: kube's sum(usage) / sum(requests).
inline MetricInput cpuUtilizationTotal(double target, std::optional<double> utilization) {
  MetricInput metric;
  metric.target = target;
  metric.current = utilization;
  metric.description = "cpu resource utilization (percentage of request)";
  return metric;
}

inline MetricInput metric(MetricSource source, TargetType type, double target, std::optional<double> current,
                          std::vector<std::optional<double>> perPod = {}) {
  MetricInput out;
  out.source = source;
  out.targetType = type;
  out.target = target;
  out.current = current;
  out.name = source == MetricSource::Resource || source == MetricSource::ContainerResource ? "cpu" : "qps";
  out.description = source == MetricSource::Pods       ? "pods metric qps"
                    : source == MetricSource::Object   ? "qps metric on Deployment/some-deployment"
                    : source == MetricSource::External ? "external metric qps"
                    : source == MetricSource::ContainerResource ? "cpu container resource utilization (percentage of request)"
                                                                : "cpu resource utilization (percentage of request)";
  out.perPod = std::move(perPod);
  return out;
}

// generateScalingRules(pods, podsPeriod, percent, percentPeriod, stabilizationWindow).
inline ScalingRules rules(int pods, int podsPeriod, int percent, int percentPeriod, int window) {
  ScalingRules out{std::chrono::seconds(window), SelectPolicy::Max, {}};
  if (pods != 0) out.policies.push_back({ScalingPolicy::Type::Pods, pods, std::chrono::seconds(podsPeriod)});
  if (percent != 0) out.policies.push_back({ScalingPolicy::Type::Percent, percent, std::chrono::seconds(percentPeriod)});
  return out;
}

// generateEventsUniformDistribution(changes, period): each change in the middle of its share of
// the last `period` seconds, oldest first.
inline std::vector<HpaMemory::ScaleEvent> uniformEvents(const std::vector<int>& changes, int period) {
  std::vector<HpaMemory::ScaleEvent> out;
  const double segment = static_cast<double>(period) / static_cast<double>(changes.size());
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const double ago = period - segment * static_cast<double>(i + 1) + segment / 2;
    out.push_back({kNow - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(ago)), changes[i]});
  }
  return out;
}

}  // namespace fedhpa::sim::kube
