// A load scenario for `fedhpa simulate`: one federated HPA over named member clusters, each with
// a demand curve, and the periods of the controllers that act on it. Parsed from the JSON format
// docs/simulate.md documents; every rule a scenario must follow is checked here, once.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clusters/sim/model/replica_calculator.h"
#include "federation/simulation/json_fields.h"
#include "partitioner/types.h"

namespace fedhpa::simulation {

// A scenario that breaks a rule; what() names the field ("demand.member4: unknown cluster").
using ScenarioError = InputError;

// Demand in "replicas at target utilisation": piecewise linear between [seconds, value] points,
// constant before the first and after the last.
class DemandCurve {
 public:
  struct Point {
    double seconds = 0;
    double replicas = 0;
  };
  DemandCurve() = default;
  explicit DemandCurve(std::vector<Point> points);  // times strictly increasing, values >= 0

  double at(double seconds) const;
  const std::vector<Point>& points() const { return points_; }

 private:
  std::vector<Point> points_;
};

struct Outage {
  std::string cluster;
  double from = 0;  // seconds, inclusive
  double to = 0;    // seconds, exclusive
  bool covers(double seconds) const { return seconds >= from && seconds < to; }
};

struct Scenario {
  partitioner::Limits federated;  // minReplicas, maxReplicas
  int targetUtilization = 80;     // targetCPUUtilizationPercentage
  std::vector<std::string> clusters;
  std::chrono::seconds duration{3600};
  std::chrono::seconds step{5};
  std::chrono::seconds hpaSync{15};  // --horizontal-pod-autoscaler-sync-period
  // The members' (and the shared pool's) HPA controller flags: tolerance, downscale
  // stabilisation, CPU initialisation period, initial readiness delay; kube's defaults.
  sim::ControllerOptions controller;
  std::chrono::seconds reconcile{15};
  std::chrono::seconds scaleForbiddenWindow{120};
  // How long a cluster in an outage stays eligible (the controller's --cluster-unhealthy-grace).
  std::chrono::seconds unhealthyGrace{40};
  std::map<std::string, partitioner::Preferences> preferences;
  std::map<std::string, DemandCurve> demand;  // a cluster left out has no demand
  std::vector<Outage> outages;
  // The federated HPA's autoscaling/v2 metric list (targets only), given to every member HPA;
  // empty: CPU utilisation against targetUtilization, as before metric lists.
  std::vector<partitioner::MetricReading> metrics;
  // Per metric name, per cluster: that metric's demand in replicas at its target. A metric or a
  // cluster left out follows `demand`.
  std::map<std::string, std::map<std::string, DemandCurve>> metricDemand;
  // Overflow: load a cluster cannot hold, beyond its local HPA's max (all of it when it holds
  // none), goes to another cluster, as a capacity-aware load balancer in front of both would
  // send it. spill[from] = to; one hop (a spill target does not spill on).
  std::map<std::string, std::string> spill;
  // From a pod's creation to its Ready condition, per cluster (the member-sim's
  // --pod-startup-delay); a cluster left out: pods ready at once. The shared pool's pods take the
  // shortest of them, so that the tracking figure does not flatter the federation.
  std::map<std::string, std::chrono::seconds> podStartup;
  std::chrono::seconds podStartupFor(const std::string& cluster) const;
  std::chrono::seconds sharedPoolPodStartup() const;

  double demandAt(const std::string& cluster, double seconds) const;
  // The demand of metric `metric` (an index into `metrics`) at a cluster, before any spill.
  double metricDemandAt(std::size_t metric, const std::string& cluster, double seconds) const;
  // How many demands each cluster has: one per metric, or the single CPU demand.
  std::size_t demandCount() const { return metrics.empty() ? 1 : metrics.size(); }
  bool isDown(const std::string& cluster, double seconds) const;
};

// Throws ScenarioError naming the field for: unknown clusters (in demand, metricDemand, spill,
// outages, preferences), metric demand for a metric the list does not have, spill chains,
// negative values, minReplicas > maxReplicas, zero clusters, times that do not increase.
Scenario parseScenario(const nlohmann::json& document);

}  // namespace fedhpa::simulation
