#include "federation/simulation/simulator.h"

#include <algorithm>
#include <cmath>

#include "clusters/sim/model/hpa_model.h"
#include "partitioner/partition.h"

namespace fedhpa::simulation {
namespace {

namespace pt = fedhpa::partitioner;
using Clock = std::chrono::system_clock;

// Virtual time starts at a fixed instant so that runs are identical.
const Clock::time_point kEpoch = Clock::time_point{} + std::chrono::hours(24 * 365 * 50);

Clock::time_point at(double seconds) {
  return kEpoch + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Per cluster, one demand per metric (Scenario::demandCount), in replicas at that metric's target.
using Demands = std::map<std::string, std::vector<double>>;

// The replicas a set of per-metric demands asks for: the largest (the metric that binds).
double binding(const std::vector<double>& demands) {
  return demands.empty() ? 0 : *std::max_element(demands.begin(), demands.end());
}

// One HPA and the Deployment it scales, as a member-sim runs them: the Deployment follows the
// HPA, its new pods ready `podStartup` later (until then they serve nothing and the HPA treats
// them as kube's replica calculator does), and the status is what the partitioner later reads:
// CPU utilisation alone, or every metric of the list with its reading (as
// status.currentMetrics carries them).
class SimulatedHpa {
 public:
  SimulatedHpa(pt::Limits limits, int targetUtilization, std::vector<pt::MetricReading> metrics,
               std::chrono::seconds podStartup, sim::ControllerOptions controller)
      : limits_(limits), targetUtilization_(targetUtilization), replicas_(static_cast<int>(limits.min)),
        readings_(std::move(metrics)), podStartup_(podStartup), controller_(controller),
        // The Deployment was there before the HPA: its pods are ready.
        podsCreated_(static_cast<std::size_t>(replicas_), kEpoch - podStartup) {}

  void setLimits(pt::Limits limits) { limits_ = limits; }
  const pt::Limits& limits() const { return limits_; }
  // The pods that serve: ready ones.
  int readyReplicas(Clock::time_point now) const {
    return static_cast<int>(std::count_if(podsCreated_.begin(), podsCreated_.end(),
                                           [&](Clock::time_point created) { return created + podStartup_ <= now; }));
  }

  void sync(const std::vector<double>& demands, Clock::time_point now) {
    sim::SyncInput input;
    input.spec.minReplicas = static_cast<int>(limits_.min);
    input.spec.maxReplicas = static_cast<int>(limits_.max);
    input.spec.targetUtilization = targetUtilization_;
    input.currentReplicas = replicas_;
    input.options = controller_;
    const int serving = podStartup_.count() == 0 ? replicas_ : readyReplicas(now);
    if (podStartup_.count() > 0) {
      for (const Clock::time_point created : podsCreated_) {
        const bool ready = created + podStartup_ <= now;
        input.pods.push_back({ready ? sim::Pod::Phase::Running : sim::Pod::Phase::Pending, ready, false, created,
                              ready ? created + podStartup_ : created});
      }
    }
    if (readings_.empty() && serving > 0) {
      input.utilizationPercent = sim::utilizationFromDemand(demands.front(), serving, targetUtilization_);
    }
    for (std::size_t i = 0; i < readings_.size(); ++i) {
      pt::MetricReading& reading = readings_[i];
      double value = sim::metricFromDemand(demands[i], serving, reading.targetValue);
      // The status reports utilisation as a whole percentage.
      if (reading.target == pt::MetricReading::Target::Utilization) value = std::floor(value);
      reading.current = value;
      // The partitioner's source and target kinds are listed in the same order as the model's.
      sim::MetricInput metric{reading.targetValue, value, reading.name};
      metric.source = static_cast<sim::MetricSource>(reading.source);
      metric.targetType = static_cast<sim::TargetType>(reading.target);
      metric.name = reading.name;
      const bool perPod = metric.source == sim::MetricSource::Resource || metric.source == sim::MetricSource::ContainerResource ||
                          metric.source == sim::MetricSource::Pods;
      if (perPod && !input.pods.empty()) metric.perPod.assign(input.pods.size(), serving > 0 ? std::optional<double>(value) : std::nullopt);
      input.metrics.push_back(std::move(metric));
    }
    input.now = now;
    const sim::SyncResult result = sim::syncHpa(input, memory_);
    status_.current = result.currentReplicas;
    status_.desired = result.desiredReplicas;
    status_.cpuUtilizationPercent = result.currentUtilizationPercent;
    // A condition this sync did not set keeps its last value, as in the HPA's status.
    for (const auto& condition : result.conditions)
      if (condition.type == "ScalingLimited") status_.limitedByMaxReplicas = condition.status && condition.reason == "TooManyReplicas";
    if (result.rescaled) {
      status_.lastScaleTime = now;
      replicas_ = result.desiredReplicas;
      // The Deployment controller: new pods now, a scale-down takes the newest first.
      podsCreated_.resize(static_cast<std::size_t>(std::max(0, replicas_)), now);
    }
  }

  pt::LocalHpa observed() const { return {limits_, status_, readings_}; }

 private:
  pt::Limits limits_;
  int targetUtilization_;
  int replicas_;
  std::vector<pt::MetricReading> readings_;  // the metric list, with the last sync's readings
  std::chrono::seconds podStartup_;
  sim::ControllerOptions controller_;
  std::vector<Clock::time_point> podsCreated_;  // the Deployment's pods, oldest first
  sim::HpaMemory memory_;
  pt::HpaStatus status_;
};

struct Member {
  std::string name;
  std::optional<SimulatedHpa> hpa;  // present while the federation has placed an HPA here
  bool up = true;
  double downSince = 0;
};

class FederationSimulation {
 public:
  FederationSimulation(const Scenario& scenario, pt::Policy::Kind policy) : scenario_(scenario) {
    policy_.kind = policy;
    policy_.scaleForbiddenWindow = scenario.scaleForbiddenWindow;
    spec_.limits = scenario.federated;
    if (scenario.metrics.empty()) spec_.targetCPUUtilizationPercent = scenario.targetUtilization;
    for (const pt::MetricReading& m : scenario.metrics)
      if (m.source == pt::MetricReading::Source::Resource && m.name == "cpu" && m.target == pt::MetricReading::Target::Utilization)
        spec_.targetCPUUtilizationPercent = static_cast<pt::Replicas>(m.targetValue);
    for (const auto& name : scenario.clusters) members_.push_back({name, std::nullopt, true, 0});
    std::sort(members_.begin(), members_.end(), [](const Member& a, const Member& b) { return a.name < b.name; });
    outcome_.policy = policy;
  }

  Outcome run() {
    const long long step = scenario_.step.count();
    for (long long t = 0; t < scenario_.duration.count(); t += step) {
      updateAvailability(t);
      if (t % scenario_.reconcile.count() == 0) reconcile(t);
      if (t % scenario_.hpaSync.count() == 0) syncHpas(t);
      serve(t, static_cast<double>(step));
    }
    measureAdaptations();
    return std::move(outcome_);
  }

 private:
  void updateAvailability(long long t) {
    for (Member& m : members_) {
      const bool up = !scenario_.isDown(m.name, static_cast<double>(t));
      if (m.up && !up) m.downSince = static_cast<double>(t);
      m.up = up;
    }
  }

  // A cluster stays eligible through the unhealthy grace, as in the controller.
  bool eligible(const Member& m, long long t) const {
    return m.up || static_cast<double>(t) - m.downSince < static_cast<double>(scenario_.unhealthyGrace.count());
  }

  // The controller's reconcile: the partitioner's plan over the eligible clusters, written to
  // them. A cluster that is down keeps whatever HPA it had: nobody can reach it to change it.
  void reconcile(long long t) {
    std::vector<pt::ClusterState> states;
    std::vector<Member*> eligibleMembers;
    for (Member& m : members_) {
      if (!eligible(m, t)) continue;
      pt::ClusterState state;
      state.name = m.name;
      if (m.hpa) state.hpa = m.hpa->observed();
      if (const auto p = scenario_.preferences.find(m.name); p != scenario_.preferences.end()) state.preferences = p->second;
      states.push_back(std::move(state));
      eligibleMembers.push_back(&m);
    }
    const pt::Plan& plan = pt::partition(spec_, states, policy_, at(static_cast<double>(t)), workspace_);
    for (std::size_t i = 0; i < plan.clusters.size(); ++i) {
      Member& m = *eligibleMembers[i];  // the plan lists clusters by name, as members_ is sorted
      const auto& limits = plan.clusters[i].limits;
      if (!m.up) continue;  // within the grace: planned for, but unreachable
      if (!limits) {
        if (m.hpa) ++outcome_.limitChanges;
        m.hpa.reset();
      } else if (!m.hpa) {
        m.hpa.emplace(*limits, scenario_.targetUtilization, scenario_.metrics, scenario_.podStartupFor(m.name),
                       scenario_.controller);
        ++outcome_.limitChanges;
      } else if (m.hpa->limits() != *limits) {
        m.hpa->setLimits(*limits);
        ++outcome_.limitChanges;
      }
    }
  }

  void syncHpas(long long t) {
    const Demands demands = demandsAt(t);
    for (Member& m : members_)
      if (m.up && m.hpa) m.hpa->sync(demands.at(m.name), at(static_cast<double>(t)));
    std::vector<double> total(scenario_.demandCount(), 0.0);
    for (const Member& m : members_)
      if (m.up)
        for (std::size_t i = 0; i < total.size(); ++i) total[i] += demands.at(m.name)[i];
    reference_.sync(total, at(static_cast<double>(t)));
  }

  // Each cluster's demands at t, after spill: what a cluster that is down or at its local max
  // cannot hold goes to its spill target (scenario.h). The total is unchanged, so the shared pool
  // sees the same load either way.
  Demands demandsAt(long long t) const {
    const double seconds = static_cast<double>(t);
    Demands demands;
    for (const Member& m : members_) {
      std::vector<double>& own = demands[m.name];
      for (std::size_t i = 0; i < scenario_.demandCount(); ++i) own.push_back(scenario_.metricDemandAt(i, m.name, seconds));
    }
    for (const Member& m : members_) {
      const auto to = scenario_.spill.find(m.name);
      if (to == scenario_.spill.end()) continue;
      const double capacity = m.up && m.hpa ? static_cast<double>(m.hpa->limits().max) : 0.0;
      std::vector<double>& from = demands[m.name];
      std::vector<double>& into = demands[to->second];
      for (std::size_t i = 0; i < from.size(); ++i) {
        const double excess = std::max(0.0, from[i] - capacity);
        from[i] -= excess;
        into[i] += excess;
      }
    }
    return demands;
  }

  void serve(long long t, double stepSeconds) {
    Timeline& timeline = outcome_.timeline;
    timeline.seconds.push_back(static_cast<double>(t));
    double served = 0, demand = 0;
    const Demands demands = demandsAt(t);
    for (const Member& m : members_) {
      ClusterSample sample;
      sample.demand = binding(demands.at(m.name));
      sample.up = m.up;
      if (m.hpa) {
        sample.replicas = m.hpa->readyReplicas(at(static_cast<double>(t)));
        sample.max = static_cast<int>(m.hpa->limits().max);
      }
      if (m.up) {
        demand += sample.demand;
        served += std::min(sample.demand, static_cast<double>(sample.replicas));
      }
      timeline.clusters[m.name].push_back(sample);
    }
    const int referenceReady = reference_.readyReplicas(at(static_cast<double>(t)));
    const double referenceServed = std::min(demand, static_cast<double>(referenceReady));
    timeline.referenceReplicas.push_back(referenceReady);
    outcome_.servedReplicaSeconds += served * stepSeconds;
    outcome_.referenceReplicaSeconds += referenceServed * stepSeconds;
    outcome_.unmetReplicaSeconds += (demand - served) * stepSeconds;
    outcome_.peakUnmet = std::max(outcome_.peakUnmet, demand - served);
  }

  // The replicas a cluster's demand needs; at least 1, as every HPA keeps min 1.
  static double need(double demand) { return std::max(1.0, std::ceil(demand - 1e-9)); }

  // Σ need over the clusters that are up, per sample.
  std::vector<double> totalNeedOfUpClusters() const {
    std::vector<double> total(outcome_.timeline.seconds.size(), 0.0);
    for (const auto& [name, samples] : outcome_.timeline.clusters)
      for (std::size_t i = 0; i < samples.size(); ++i)
        if (samples[i].up) total[i] += need(samples[i].demand);
    return total;
  }

  // What a perfect split would give a cluster that is up: its own need, up to what the other up
  // clusters' needs leave of the federated max.
  double fairNeed(const ClusterSample& sample, double totalNeed) const {
    const double own = need(sample.demand);
    const double room = std::max(1.0, static_cast<double>(scenario_.federated.max) - (totalNeed - own));
    return std::min(own, room);
  }

  void measureAdaptations() {
    const Timeline& timeline = outcome_.timeline;
    const std::vector<double> totalNeed = totalNeedOfUpClusters();
    for (const auto& [cluster, curve] : scenario_.demand) {
      const auto& points = curve.points();
      const auto& samples = timeline.clusters.at(cluster);
      std::vector<double> rises;
      // A rise is a run of rising segments: a ramp over several points is one jump.
      for (std::size_t p = 1; p < points.size(); ++p) {
        const bool rising = points[p].replicas > points[p - 1].replicas;
        const bool wasRising = p >= 2 && points[p - 1].replicas > points[p - 2].replicas;
        if (rising && !wasRising) rises.push_back(points[p - 1].seconds);
      }
      for (std::size_t r = 0; r < rises.size(); ++r) {
        const double until = r + 1 < rises.size() ? rises[r + 1] : static_cast<double>(scenario_.duration.count());
        if (rises[r] >= until) continue;
        Adaptation adaptation{cluster, rises[r], 0.0};
        bool isShort = false;
        double shortSince = 0;
        for (std::size_t i = 0; i < timeline.seconds.size() && timeline.seconds[i] < until; ++i) {
          if (timeline.seconds[i] < rises[r] || !samples[i].up) continue;
          const bool enough = samples[i].max.value_or(0) >= fairNeed(samples[i], totalNeed[i]);
          if (!isShort && !enough) shortSince = timeline.seconds[i];
          if (isShort && enough)
            adaptation.seconds = std::max(adaptation.seconds.value_or(0), timeline.seconds[i] - shortSince);
          isShort = !enough;
        }
        if (isShort) adaptation.seconds.reset();
        outcome_.adaptations.push_back(adaptation);
      }
    }
  }

  const Scenario& scenario_;
  pt::Policy policy_;
  pt::FederatedSpec spec_;
  std::vector<Member> members_;
  pt::Workspace workspace_;
  SimulatedHpa reference_{scenario_.federated, scenario_.targetUtilization, scenario_.metrics, scenario_.sharedPoolPodStartup(),
                            scenario_.controller};
  Outcome outcome_;
};

}  // namespace

double Outcome::tracking() const {
  if (referenceReplicaSeconds <= 0) return 1.0;  // no demand at all: nothing to track
  return servedReplicaSeconds / referenceReplicaSeconds;
}

Outcome simulate(const Scenario& scenario, partitioner::Policy::Kind policy) {
  return FederationSimulation(scenario, policy).run();
}

}  // namespace fedhpa::simulation
