// Terse construction of partitioner inputs for table tests:
//   Cluster("member1").hpa(1, 5).running(5, 5).cpu(90).scaledAgo(600s)
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "partitioner/reasons.h"
#include "partitioner/types.h"

namespace fedhpa::partitioner::testing {

using namespace std::chrono_literals;

inline const TimePoint kNow = TimePoint{} + std::chrono::hours(24 * 365 * 56);

class Cluster {
 public:
  explicit Cluster(std::string name) { state_.name = std::move(name); }
  Cluster& hpa(Replicas min, Replicas max) {
    state_.hpa = LocalHpa{{min, max}, {}, {}};
    return *this;
  }
  Cluster& running(Replicas current, Replicas desired) {
    state_.hpa->status.current = current;
    state_.hpa->status.desired = desired;
    return *this;
  }
  Cluster& cpu(Replicas utilization) {
    state_.hpa->status.cpuUtilizationPercent = utilization;
    return *this;
  }
  // One metric: target kind and value, the status's reading (nullopt: missing from the status).
  Cluster& metric(MetricReading::Source source, std::string name, MetricReading::Target target,
                  double targetValue, std::optional<double> current) {
    state_.hpa->metrics.push_back({source, target, std::move(name), targetValue, current});
    return *this;
  }
  Cluster& scaledAgo(std::chrono::seconds ago) {
    state_.hpa->status.lastScaleTime = kNow - ago;
    return *this;
  }
  Cluster& limitedByMax(bool limited) {
    state_.hpa->status.limitedByMaxReplicas = limited;
    return *this;
  }
  Cluster& prefer(std::optional<Replicas> weight, std::optional<Replicas> min,
                  std::optional<Replicas> max) {
    state_.preferences = {weight, min, max, state_.preferences.tier};
    return *this;
  }
  Cluster& tier(Replicas tier) {
    state_.preferences.tier = tier;
    return *this;
  }
  operator ClusterState() const { return state_; }

 private:
  ClusterState state_;
};

inline FederatedSpec federated(Replicas min, Replicas max, std::optional<Replicas> cpu = 50) {
  return FederatedSpec{{min, max}, cpu};
}

inline Policy policy(Policy::Kind kind, std::chrono::seconds window = 120s) {
  return Policy{kind, window};
}

inline const Policy kDemand = policy(Policy::Kind::Demand);

// The limits the plan gives `name` (empty: no HPA there); a name the plan does not list at all
// is a failure of the test, not an empty result.
inline std::optional<Limits> planned(const Plan& plan, const std::string& name) {
  for (const ClusterPlan& c : plan.clusters) {
    if (c.name == name) return c.limits;
  }
  ADD_FAILURE() << "no cluster " << name;
  return std::nullopt;
}

// Every cluster's limits, in the plan's order.
inline std::vector<std::optional<Limits>> resultOf(const Plan& plan) {
  std::vector<std::optional<Limits>> result;
  for (const ClusterPlan& c : plan.clusters) result.push_back(c.limits);
  return result;
}

// Why the plan moves `cluster`'s limits; empty when it does not move them.
inline std::string reasonForCluster(const Plan& plan, const std::string& cluster) {
  for (const Move& m : plan.moves) {
    if (m.cluster == cluster) return reasonFor(plan, m);
  }
  return "";
}

}  // namespace fedhpa::partitioner::testing

namespace fedhpa::partitioner {
// Readable failure messages: "{min 1, max 3}".
inline void PrintTo(const Limits& limits, std::ostream* out) {
  *out << "{min " << limits.min << ", max " << limits.max << "}";
}
}  // namespace fedhpa::partitioner
