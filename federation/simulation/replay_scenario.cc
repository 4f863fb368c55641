#include "federation/simulation/replay_scenario.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <set>

#include "federation/api/time.h"

namespace fedhpa::simulation {
namespace {

using nlohmann::json;

// Every step of every cluster is kept for the report and the plot; past this a replay would take
// gigabytes. 200,000 steps are 11 days at the default stepSeconds of 5.
constexpr long long kMaxSteps = 200'000;

double positiveFigure(std::string_view text, const std::string& flag) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value <= 0)
    throw InputError(flag + ": " + std::string(text) + " is not a positive number");
  return value;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string labelNames(const std::map<std::string, std::string>& labels) {
  std::vector<std::string> names;
  for (const auto& [name, unused] : labels) names.push_back(name);
  return names.empty() ? "none" : joined(names);
}

const std::string& requiredLabel(const RecordedSeries& series, const std::string& label, const char* flag) {
  const auto it = series.labels.find(label);
  if (it == series.labels.end())
    throw InputError(series.position + ".metric: no \"" + label + "\" label (its labels: " + labelNames(series.labels) +
                     "); " + flag + " names the label to read");
  return it->second;
}

const partitioner::MetricReading* metricNamed(const Scenario& federation, const std::string& name) {
  const auto it = std::find_if(federation.metrics.begin(), federation.metrics.end(),
                               [&](const partitioner::MetricReading& m) { return m.name == name; });
  return it == federation.metrics.end() ? nullptr : &*it;
}

double perReplicaFor(const DemandPerReplica& perReplica, const std::optional<std::string>& metric) {
  if (metric)
    if (const auto it = perReplica.byMetric.find(*metric); it != perReplica.byMetric.end()) return it->second;
  return *perReplica.anyMetric;  // checkReplayOptions made sure there is one
}

// The series as demand in replicas, seconds from the recording's start; zero outside its samples.
DemandCurve curveOf(const RecordedSeries& series, const Recording& recording, double perReplica) {
  const double step = recording.stepSeconds.value_or(recording.spanSeconds());
  const double span = recording.spanSeconds();
  std::vector<DemandCurve::Point> points;
  const double first = series.samples.front().unixSeconds - recording.startUnixSeconds;
  const double last = series.samples.back().unixSeconds - recording.startUnixSeconds;
  if (first > 0) points.push_back({std::max(0.0, first - step), 0});
  for (const RecordedSample& sample : series.samples)
    points.push_back({sample.unixSeconds - recording.startUnixSeconds, sample.value / perReplica});
  if (last < span) points.push_back({std::min(span, last + step), 0});
  return DemandCurve(std::move(points));
}

}  // namespace

DemandPerReplica parsePerReplica(const std::vector<std::string>& flags) {
  DemandPerReplica result;
  for (const std::string& flag : flags) {
    const std::size_t equals = flag.find('=');
    if (equals == std::string::npos) {
      if (result.anyMetric) throw InputError("--per-replica: given twice without a metric name (" + flag + ")");
      result.anyMetric = positiveFigure(flag, "--per-replica");
      continue;
    }
    const std::string metric = flag.substr(0, equals);
    if (metric.empty()) throw InputError("--per-replica: " + flag + " lacks the metric's name before =");
    if (result.byMetric.count(metric)) throw InputError("--per-replica " + metric + ": given twice");
    result.byMetric[metric] = positiveFigure(std::string_view(flag).substr(equals + 1), "--per-replica " + metric);
  }
  return result;
}

Scenario parseReplayFederation(const json& document) {
  if (document.is_object())
    for (const char* field : {"demand", "metricDemand", "durationSeconds"})
      if (member(document, field))
        throw InputError(std::string(field) + ": the recording gives the load and its span; leave it out of a replay's federation file");
  return parseScenario(document);
}

void checkReplayOptions(const Scenario& federation, const ReplayOptions& options) {
  if (options.clusterLabel.empty()) throw InputError("--cluster-label: must name a label");
  const auto& perReplica = options.perReplica;
  if (!options.metricLabel) {
    if (!perReplica.byMetric.empty())
      throw InputError("--per-replica " + perReplica.byMetric.begin()->first + ": a figure per metric needs --metric-label");
    if (!perReplica.anyMetric) throw InputError("--per-replica: required, how much of a series' value one replica serves");
    return;
  }
  if (options.metricLabel->empty()) throw InputError("--metric-label: must name a label");
  if (federation.metrics.empty())
    throw InputError("--metric-label: the federation file's federated.metrics lists no metric to give series to");
  for (const auto& [metric, unused] : perReplica.byMetric)
    if (!metricNamed(federation, metric))
      throw InputError("--per-replica " + metric + ": federated.metrics has no metric of that name");
  if (perReplica.anyMetric) return;
  for (const partitioner::MetricReading& metric : federation.metrics)
    if (!perReplica.byMetric.count(metric.name))
      throw InputError("--per-replica: no figure for metric " + metric.name + " (give --per-replica " + metric.name +
                       "=N, or --per-replica N for every metric)");
}

Replay replay(Scenario federation, const Recording& recording, const ReplayOptions& options) {
  checkReplayOptions(federation, options);
  if (!recording.stepSeconds || recording.spanSeconds() <= 0)
    throw InputError("data.result: every sample is at one time; a replay needs a range (start < end)");
  const auto duration = static_cast<long long>(std::ceil(recording.spanSeconds()));
  if (duration / federation.step.count() > kMaxSteps)
    throw InputError("data.result: " + std::to_string(duration) + " s is more than " + std::to_string(kMaxSteps) +
                     " simulation steps of stepSeconds " + std::to_string(federation.step.count()) +
                     "; replay a shorter range or raise stepSeconds");
  federation.duration = std::chrono::seconds{duration};

  const std::set<std::string> clusters(federation.clusters.begin(), federation.clusters.end());
  std::map<std::pair<std::string, std::string>, std::string> seen;  // (cluster, metric) -> the series' position
  std::set<std::string> withSeries;
  ReplaySummary summary;
  for (const RecordedSeries& series : recording.series) {
    const std::string& cluster = requiredLabel(series, options.clusterLabel, "--cluster-label");
    if (!clusters.count(cluster))
      throw InputError(series.position + ".metric." + options.clusterLabel + ": \"" + cluster +
                       "\" is not a cluster of the federation file (its clusters: " + joined(federation.clusters) + ")");
    std::optional<std::string> metric;
    if (options.metricLabel) {
      metric = requiredLabel(series, *options.metricLabel, "--metric-label");
      if (!metricNamed(federation, *metric))
        throw InputError(series.position + ".metric." + *options.metricLabel + ": \"" + *metric +
                         "\" is not a metric of federated.metrics");
    }
    const auto [previous, fresh] = seen.emplace(std::pair{cluster, metric.value_or("")}, series.position);
    if (!fresh)
      throw InputError(series.position + ": a second series for " + cluster + (metric ? " and " + *metric : "") +
                       " (the first is " + previous->second + "); aggregate the query by the label, e.g. sum by (" +
                       options.clusterLabel + ")");
    withSeries.insert(cluster);
    const DemandCurve curve = curveOf(series, recording, perReplicaFor(options.perReplica, metric));
    if (metric) federation.metricDemand[*metric][cluster] = curve;
    else federation.demand[cluster] = curve;
    summary.nanValues += series.nanValues;
    const double from = series.samples.front().unixSeconds - recording.startUnixSeconds;
    const double to = series.samples.back().unixSeconds - recording.startUnixSeconds;
    if (from > 0 || to < recording.spanSeconds()) summary.partialSeries.push_back({cluster + (metric ? "/" + *metric : ""), from, to});
  }

  summary.series = recording.series.size();
  summary.start = api::formatRfc3339(std::chrono::system_clock::time_point{
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(recording.startUnixSeconds))});
  summary.spanSeconds = recording.spanSeconds();
  summary.stepSeconds = recording.stepSeconds;
  summary.missingPoints = recording.missingPoints();
  for (const std::string& cluster : federation.clusters)
    if (!withSeries.count(cluster)) summary.clustersWithoutSeries.push_back(cluster);
  summary.warnings = recording.warnings;
  return {std::move(federation), std::move(summary)};
}

}  // namespace fedhpa::simulation
