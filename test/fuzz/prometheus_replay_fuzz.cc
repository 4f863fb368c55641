// A Prometheus query_range answer as `fedhpa simulate --from-prometheus` reads it (the operator's
// file, or whatever their Prometheus or a proxy in front of it sent), then turned into the load of
// a fixed three-cluster federation, once by cluster label and once by cluster and metric label.
// Anything but InputError is a finding, and so is a recording or scenario that breaks the rules
// the parser promises (samples present, times increasing, demand finite and never negative).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "federation/simulation/prometheus_replay.h"
#include "federation/simulation/replay_scenario.h"
#include "federation/simulation/report.h"
#include "test/fuzz/fuzz_checks.h"

using namespace fedhpa;
using simulation::InputError;

namespace {

const simulation::Scenario& federation() {
  static const simulation::Scenario scenario = simulation::parseReplayFederation(nlohmann::json::parse(R"(
      {"federated": {"minReplicas": 3, "maxReplicas": 30, "metrics": [
         {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
         {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "50"}}}]},
       "clusters": ["eu", "us", "ap"]})"));
  return scenario;
}

void checkRecording(const simulation::Recording& recording) {
  if (recording.series.empty()) fuzz::finding("a recording without series");
  for (const simulation::RecordedSeries& series : recording.series) {
    if (series.samples.empty()) fuzz::finding(series.position + ": a series without samples");
    for (std::size_t i = 0; i < series.samples.size(); ++i) {
      const simulation::RecordedSample& sample = series.samples[i];
      if (!std::isfinite(sample.value) || sample.value < 0) fuzz::finding(series.position + ": a value that is no demand");
      if (i > 0 && sample.unixSeconds <= series.samples[i - 1].unixSeconds) fuzz::finding(series.position + ": times go back");
      if (sample.unixSeconds < recording.startUnixSeconds || sample.unixSeconds > recording.endUnixSeconds)
        fuzz::finding(series.position + ": a sample outside the recording's span");
    }
  }
  if (recording.stepSeconds && !(*recording.stepSeconds > 0)) fuzz::finding("a step that is not positive");
  recording.missingPoints();
}

void replayAndCheck(const simulation::Recording& recording, const simulation::ReplayOptions& options) {
  try {
    const simulation::Replay replay = simulation::replay(federation(), recording, options);
    if (replay.scenario.duration.count() < 1) fuzz::finding("a replay without duration");
    const double end = static_cast<double>(replay.scenario.duration.count());
    for (const std::string& cluster : replay.scenario.clusters)
      for (std::size_t metric = 0; metric < replay.scenario.demandCount(); ++metric)
        for (const double seconds : {0.0, end / 3, end / 2, end})
          if (const double demand = replay.scenario.metricDemandAt(metric, cluster, seconds); !std::isfinite(demand) || demand < 0)
            fuzz::finding(cluster + ": demand " + std::to_string(demand));
    fuzz::requireSerialisable(simulation::replaySummaryJson(replay.summary), "replaySummaryJson");
  } catch (const InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  simulation::Recording recording;
  try {
    recording = simulation::parsePrometheusRange(fuzz::asText(data, size));
  } catch (const InputError&) {
    return 0;
  }
  checkRecording(recording);
  replayAndCheck(recording, {"cluster", std::nullopt, {1.0, {}}});
  replayAndCheck(recording, {"cluster", "metric", {std::nullopt, {{"cpu", 0.5}, {"rps", 50}}}});
  return 0;
}
