// Random valid partitioner inputs for property tests: 1-50 clusters, replicas up to 10^6,
// random statuses, windows and preferences. Deterministic for a given seed.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "test/partitioner/builders.h"

namespace fedhpa::partitioner::testing {

struct RandomCase {
  FederatedSpec spec;
  std::vector<ClusterState> clusters;
  Policy policy;
};

class RandomInputs {
 public:
  explicit RandomInputs(std::uint64_t seed) : rng_(seed) {}

  Replicas between(Replicas low, Replicas high) {
    return std::uniform_int_distribution<Replicas>(low, high)(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::mt19937_64& engine() { return rng_; }

  // A replica count at a random scale, so small, medium and huge counts are all common.
  Replicas replicas(Replicas least) {
    static constexpr Replicas kScales[] = {3, 12, 100, 10'000, 1'000'000};
    return between(least, std::max(least, kScales[between(0, 4)]));
  }

  LocalHpa localHpa() {
    LocalHpa hpa;
    hpa.limits.max = replicas(1);
    hpa.limits.min = between(chance(0.1) ? 0 : 1, std::min<Replicas>(hpa.limits.max, chance(0.5) ? 1 : hpa.limits.max));
    HpaStatus& s = hpa.status;
    // Statuses near the limits are the interesting ones.
    auto near = [&]() {
      switch (between(0, 3)) {
        case 0: return hpa.limits.max;
        case 1: return hpa.limits.min;
        case 2: return Replicas{0};
        default: return between(0, hpa.limits.max);
      }
    };
    s.current = near();
    s.desired = chance(0.5) ? s.current : near();
    if (chance(0.7)) s.cpuUtilizationPercent = between(0, 300);
    if (chance(0.8)) s.lastScaleTime = kNow - std::chrono::seconds(between(0, 600));
    if (chance(0.3)) s.limitedByMaxReplicas = chance(0.5);
    // Random metric lists: every source and target type, readings from idle to far above target
    // (and huge), some missing, some targets not positive.
    if (chance(0.4)) {
      const Replicas count = between(1, 3);
      for (Replicas i = 0; i < count; ++i) {
        MetricReading m;
        m.source = static_cast<MetricReading::Source>(between(0, 4));
        m.target = static_cast<MetricReading::Target>(between(0, 2));
        m.name = "m" + std::to_string(i);
        m.targetValue = chance(0.05) ? 0.0 : static_cast<double>(between(1, 1000)) / 10.0;
        if (chance(0.85)) {
          m.current = chance(0.05) ? 1e300 : m.targetValue * static_cast<double>(between(0, 400)) / 100.0;
        }
        hpa.metrics.push_back(std::move(m));
      }
    }
    return hpa;
  }

  RandomCase next(Policy::Kind kind) {
    RandomCase c;
    c.policy = {kind, std::chrono::seconds(chance(0.3) ? 0 : between(0, 300))};
    c.spec.limits.max = replicas(1);
    c.spec.limits.min = between(1, chance(0.5) ? std::min<Replicas>(c.spec.limits.max, 3) : c.spec.limits.max);
    if (chance(0.9)) c.spec.targetCPUUtilizationPercent = between(1, 100);
    const Replicas count = between(1, 50);
    // Most of the time the local limits are a rough split of the federated max, as they are in a
    // federation that has been running; otherwise anything, as after a spec change or a restore.
    const bool steady = chance(0.6);
    const Replicas share = std::max<Replicas>(1, c.spec.limits.max / count);
    for (Replicas i = 0; i < count; ++i) {
      ClusterState cluster;
      cluster.name = "member" + std::to_string(i);
      if (!chance(0.2)) {
        cluster.hpa = localHpa();
        if (steady) {
          Limits& l = cluster.hpa->limits;
          l.max = between(std::max<Replicas>(1, share / 2), share + share / 2);
          l.min = std::min(l.min, l.max);
          cluster.hpa->status.current = std::min(cluster.hpa->status.current, l.max);
          cluster.hpa->status.desired = std::min(cluster.hpa->status.desired, l.max);
        }
      }
      if (kind == Policy::Kind::Demand && chance(0.1)) {
        Preferences& p = cluster.preferences;
        if (chance(0.5)) p.weight = between(0, 5);
        if (chance(0.5)) p.minReplicas = between(0, 5);
        if (chance(0.5)) p.tier = between(0, 2);
        if (chance(0.5)) p.maxReplicas = between(std::max<Replicas>(1, p.minReplicas.value_or(1)), 1000);
      }
      // Static weights (Karmada's staticWeightList): most clusters weighed, some at 0.
      if (kind == Policy::Kind::Static && chance(0.9)) cluster.preferences.weight = between(0, 5);
      c.clusters.push_back(std::move(cluster));
    }
    return c;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace fedhpa::partitioner::testing
