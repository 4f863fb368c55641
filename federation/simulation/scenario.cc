#include "federation/simulation/scenario.h"

#include <algorithm>
#include <optional>
#include <set>

#include "federation/controller/hpa_decode.h"

namespace fedhpa::simulation {
namespace {

using nlohmann::json;

long long integer(const json& object, const char* key, const std::string& path, long long fallback, long long least) {
  const json* value = member(object, key);
  const std::string field = path.empty() ? key : path + "." + key;
  if (!value) return fallback;
  if (!value->is_number_integer()) throw ScenarioError(field + ": must be an integer");
  const long long result = value->get<long long>();
  if (result < least) throw ScenarioError(field + ": must be at least " + std::to_string(least));
  return result;
}

std::chrono::seconds seconds(const json& object, const char* key, long long fallback, long long least) {
  return std::chrono::seconds{integer(object, key, "", fallback, least)};
}

void requireKnown(const std::set<std::string>& clusters, const std::string& name, const std::string& field) {
  if (!clusters.count(name)) throw ScenarioError(field + ": unknown cluster " + name + " (not in \"clusters\")");
}

DemandCurve parseCurve(const json& value, const std::string& field) {
  if (!value.is_array() || value.empty()) throw ScenarioError(field + ": must be a non-empty list of [seconds, replicas]");
  std::vector<DemandCurve::Point> points;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    const json& pair = value[i];
    if (!pair.is_array() || pair.size() != 2) throw ScenarioError(item + ": must be [seconds, replicas]");
    const DemandCurve::Point point{nonNegativeNumber(pair[0], item + "[0]"), nonNegativeNumber(pair[1], item + "[1]")};
    if (!points.empty() && point.seconds <= points.back().seconds)
      throw ScenarioError(item + ": times must increase (" + std::to_string(point.seconds) + " after " +
                          std::to_string(points.back().seconds) + ")");
    points.push_back(point);
  }
  return DemandCurve(std::move(points));
}

}  // namespace

DemandCurve::DemandCurve(std::vector<Point> points) : points_(std::move(points)) {}

double DemandCurve::at(double seconds) const {
  if (points_.empty()) return 0;
  if (seconds <= points_.front().seconds) return points_.front().replicas;
  if (seconds >= points_.back().seconds) return points_.back().replicas;
  const auto next = std::upper_bound(points_.begin(), points_.end(), seconds,
                                     [](double t, const Point& p) { return t < p.seconds; });
  const Point& a = *(next - 1);
  const Point& b = *next;
  return a.replicas + (b.replicas - a.replicas) * (seconds - a.seconds) / (b.seconds - a.seconds);
}

double Scenario::demandAt(const std::string& cluster, double seconds) const {
  const auto it = demand.find(cluster);
  return it == demand.end() ? 0 : it->second.at(seconds);
}

double Scenario::metricDemandAt(std::size_t metric, const std::string& cluster, double seconds) const {
  if (metric < metrics.size()) {
    if (const auto byMetric = metricDemand.find(metrics[metric].name); byMetric != metricDemand.end()) {
      if (const auto curve = byMetric->second.find(cluster); curve != byMetric->second.end()) return curve->second.at(seconds);
    }
  }
  return demandAt(cluster, seconds);
}

bool Scenario::isDown(const std::string& cluster, double seconds) const {
  return std::any_of(outages.begin(), outages.end(),
                     [&](const Outage& o) { return o.cluster == cluster && o.covers(seconds); });
}

std::chrono::seconds Scenario::podStartupFor(const std::string& cluster) const {
  const auto it = podStartup.find(cluster);
  return it == podStartup.end() ? std::chrono::seconds(0) : it->second;
}

std::chrono::seconds Scenario::sharedPoolPodStartup() const {
  std::optional<std::chrono::seconds> shortest;
  for (const std::string& cluster : clusters) {
    const auto delay = podStartupFor(cluster);
    if (!shortest || delay < *shortest) shortest = delay;
  }
  return shortest.value_or(std::chrono::seconds(0));
}

Scenario parseScenario(const json& document) {
  if (!document.is_object()) throw ScenarioError("(top level): must be an object");
  static const std::set<std::string> kKnownFields = {
      "description", "federated", "clusters", "durationSeconds", "stepSeconds", "hpaSyncSeconds", "reconcileSeconds",
      "horizontalPodAutoscalerSyncPeriodSeconds",
      "scaleForbiddenWindowSeconds", "clusterUnhealthyGraceSeconds", "preferences", "demand", "metricDemand",
      "spill", "outages", "podStartupSeconds", "horizontalPodAutoscalerTolerance",
      "horizontalPodAutoscalerDownscaleStabilizationSeconds", "horizontalPodAutoscalerCpuInitializationPeriodSeconds",
      "horizontalPodAutoscalerInitialReadinessDelaySeconds"};
  for (const auto& [key, unused] : document.items())
    if (!kKnownFields.count(key)) throw ScenarioError(key + ": unknown field");
  Scenario scenario;

  const json* federated = member(document, "federated");
  if (!federated || !federated->is_object()) throw ScenarioError("federated: required, an object");
  if (!member(*federated, "maxReplicas")) throw ScenarioError("federated.maxReplicas: required");
  scenario.federated.max = integer(*federated, "maxReplicas", "federated", 1, 1);
  scenario.federated.min = integer(*federated, "minReplicas", "federated", 1, 1);
  if (scenario.federated.min > scenario.federated.max)
    throw ScenarioError("federated.minReplicas: " + std::to_string(scenario.federated.min) +
                        " is more than maxReplicas " + std::to_string(scenario.federated.max));
  scenario.targetUtilization =
      static_cast<int>(integer(*federated, "targetCPUUtilizationPercentage", "federated", 80, 1));
  if (const json* metrics = member(*federated, "metrics")) {
    try {
      scenario.metrics = controller::decodeMetricTargets(*metrics, "federated.metrics");
    } catch (const controller::DecodeError& e) {
      throw ScenarioError(e.what());
    }
    if (scenario.metrics.empty()) throw ScenarioError("federated.metrics: no metric of a known type");
  }

  const json* clusters = member(document, "clusters");
  if (!clusters || !clusters->is_array()) throw ScenarioError("clusters: required, a list of names");
  if (clusters->empty()) throw ScenarioError("clusters: at least one cluster is needed");
  std::set<std::string> names;
  for (std::size_t i = 0; i < clusters->size(); ++i) {
    const json& name = (*clusters)[i];
    const std::string field = "clusters[" + std::to_string(i) + "]";
    if (!name.is_string() || name.get<std::string>().empty()) throw ScenarioError(field + ": must be a name");
    if (!names.insert(name.get<std::string>()).second) throw ScenarioError(field + ": " + name.get<std::string>() + " appears twice");
    scenario.clusters.push_back(name.get<std::string>());
  }

  scenario.duration = seconds(document, "durationSeconds", 3600, 1);
  scenario.step = seconds(document, "stepSeconds", 5, 1);
  // The sync period under kube's flag name; hpaSyncSeconds is its older name, still read.
  const char* syncKey = "horizontalPodAutoscalerSyncPeriodSeconds";
  if (member(document, "hpaSyncSeconds")) {
    if (member(document, syncKey))
      throw ScenarioError(std::string("hpaSyncSeconds: the old name of ") + syncKey + "; give one of them");
    syncKey = "hpaSyncSeconds";
  }
  scenario.hpaSync = seconds(document, syncKey, 15, 1);
  scenario.reconcile = seconds(document, "reconcileSeconds", 15, 1);
  scenario.scaleForbiddenWindow = seconds(document, "scaleForbiddenWindowSeconds", 120, 0);
  scenario.unhealthyGrace = seconds(document, "clusterUnhealthyGraceSeconds", 40, 0);
  // kube-controller-manager's HPA flags, under their names.
  if (const json* tolerance = member(document, "horizontalPodAutoscalerTolerance")) {
    if (!tolerance->is_number() || tolerance->get<double>() < 0)
      throw ScenarioError("horizontalPodAutoscalerTolerance: must be a number, at least 0");
    scenario.controller.tolerance = tolerance->get<double>();
  }
  scenario.controller.downscaleStabilization = seconds(document, "horizontalPodAutoscalerDownscaleStabilizationSeconds", 300, 0);
  scenario.controller.cpuInitializationPeriod = seconds(document, "horizontalPodAutoscalerCpuInitializationPeriodSeconds", 300, 0);
  scenario.controller.initialReadinessDelay = seconds(document, "horizontalPodAutoscalerInitialReadinessDelaySeconds", 30, 0);
  for (const auto& [key, period] : {std::pair{syncKey, scenario.hpaSync}, {"reconcileSeconds", scenario.reconcile}})
    if (period.count() % scenario.step.count() != 0)
      throw ScenarioError(std::string(key) + ": must be a multiple of stepSeconds (" + std::to_string(scenario.step.count()) + ")");

  if (const json* preferences = member(document, "preferences")) {
    try {
      scenario.preferences = controller::decodePreferences(preferences->dump(), "preferences");
    } catch (const controller::DecodeError& e) {
      throw ScenarioError(e.what());
    }
    for (const auto& [name, unused] : scenario.preferences) requireKnown(names, name, "preferences.clusters." + name);
  }

  // podStartupSeconds: one figure for every cluster, or an object of cluster: seconds.
  if (const json* startup = member(document, "podStartupSeconds")) {
    if (startup->is_number_integer()) {
      const long long value = startup->get<long long>();
      if (value < 0) throw ScenarioError("podStartupSeconds: must be at least 0");
      for (const std::string& name : scenario.clusters) scenario.podStartup[name] = std::chrono::seconds(value);
    } else if (startup->is_object()) {
      for (const auto& [name, value] : startup->items()) {
        requireKnown(names, name, "podStartupSeconds." + name);
        if (!value.is_number_integer() || value.get<long long>() < 0)
          throw ScenarioError("podStartupSeconds." + name + ": must be an integer, at least 0");
        scenario.podStartup[name] = std::chrono::seconds(value.get<long long>());
      }
    } else {
      throw ScenarioError("podStartupSeconds: must be an integer or an object of cluster: seconds");
    }
  }

  if (const json* demand = member(document, "demand")) {
    if (!demand->is_object()) throw ScenarioError("demand: must be an object of cluster: [[seconds, replicas], ...]");
    for (const auto& [name, curve] : demand->items()) {
      requireKnown(names, name, "demand." + name);
      scenario.demand[name] = parseCurve(curve, "demand." + name);
    }
  }

  if (const json* metricDemand = member(document, "metricDemand")) {
    if (!metricDemand->is_object()) throw ScenarioError("metricDemand: must be an object of metric: {cluster: curve}");
    for (const auto& [metric, byCluster] : metricDemand->items()) {
      const std::string field = "metricDemand." + metric;
      const std::string& metricName = metric;  // clang 14 lets no lambda capture a structured binding
      if (std::none_of(scenario.metrics.begin(), scenario.metrics.end(), [&](const auto& m) { return m.name == metricName; }))
        throw ScenarioError(field + ": federated.metrics has no metric of that name");
      if (!byCluster.is_object()) throw ScenarioError(field + ": must be an object of cluster: [[seconds, replicas], ...]");
      for (const auto& [name, curve] : byCluster.items()) {
        requireKnown(names, name, field + "." + name);
        scenario.metricDemand[metric][name] = parseCurve(curve, field + "." + name);
      }
    }
  }

  if (const json* spill = member(document, "spill")) {
    if (!spill->is_object()) throw ScenarioError("spill: must be an object of cluster: cluster");
    for (const auto& [from, to] : spill->items()) {
      const std::string field = "spill." + from;
      requireKnown(names, from, field);
      if (!to.is_string()) throw ScenarioError(field + ": must be a cluster name");
      requireKnown(names, to.get<std::string>(), field);
      if (to.get<std::string>() == from) throw ScenarioError(field + ": a cluster cannot spill into itself");
      scenario.spill[from] = to.get<std::string>();
    }
    for (const auto& [from, to] : scenario.spill)
      if (scenario.spill.count(to)) throw ScenarioError("spill." + to + ": " + from + " spills into it, so it cannot spill on");
  }

  if (const json* outages = member(document, "outages")) {
    if (!outages->is_array()) throw ScenarioError("outages: must be a list of {cluster, from, to}");
    for (std::size_t i = 0; i < outages->size(); ++i) {
      const std::string field = "outages[" + std::to_string(i) + "]";
      const json& item = (*outages)[i];
      if (!item.is_object() || !item.contains("cluster") || !item["cluster"].is_string())
        throw ScenarioError(field + ": must be {\"cluster\": name, \"from\": s, \"to\": s}");
      Outage outage{item["cluster"].get<std::string>(), nonNegativeNumber(item.value("from", json()), field + ".from"),
                    nonNegativeNumber(item.value("to", json()), field + ".to")};
      requireKnown(names, outage.cluster, field + ".cluster");
      if (outage.to <= outage.from) throw ScenarioError(field + ".to: must be after from");
      scenario.outages.push_back(outage);
    }
  }
  return scenario;
}

}  // namespace fedhpa::simulation
