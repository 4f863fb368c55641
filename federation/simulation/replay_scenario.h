// `fedhpa simulate --from-prometheus`: a recording (prometheus_replay.h) turned into the load of a
// scenario. The federation file is a scenario without load; each series of the recording becomes
// one member's demand (or one metric's demand at one member), its values divided by what one
// replica serves, its times counted from the recording's first sample.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "federation/simulation/prometheus_replay.h"
#include "federation/simulation/scenario.h"

namespace fedhpa::simulation {

// How much of a series' value one replica serves (requests per second per replica, say).
struct DemandPerReplica {
  std::optional<double> anyMetric;          // --per-replica N
  std::map<std::string, double> byMetric;  // --per-replica NAME=N
};

// Reads the --per-replica flags ("50", "http_requests_per_second=50"); InputError naming the flag.
DemandPerReplica parsePerReplica(const std::vector<std::string>& flags);

struct ReplayOptions {
  std::string clusterLabel = "cluster";    // the label whose value names the member
  std::optional<std::string> metricLabel;  // the label whose value names a federated.metrics entry
  DemandPerReplica perReplica;
};

// A series that covers only part of the recording: zero demand outside [fromSeconds, toSeconds].
struct PartialSeries {
  std::string name;  // its cluster, and metric when there is a metric label ("eu-west", "eu-west/rps")
  double fromSeconds = 0;
  double toSeconds = 0;
};

// What the recording held, for the report.
struct ReplaySummary {
  std::size_t series = 0;
  std::string start;  // RFC 3339, the first sample
  double spanSeconds = 0;
  std::optional<double> stepSeconds;
  std::size_t missingPoints = 0;  // bridged linearly, NaN values included
  std::size_t nanValues = 0;
  std::vector<std::string> clustersWithoutSeries;  // they get no demand
  std::vector<PartialSeries> partialSeries;
  std::vector<std::string> warnings;                 // Prometheus' own
};

struct Replay {
  Scenario scenario;
  ReplaySummary summary;
};

// The federation file of a replay: a scenario (scenario.h) without "demand", "metricDemand" or
// "durationSeconds", which the recording gives. InputError naming the field otherwise.
Scenario parseReplayFederation(const nlohmann::json& document);

// InputError naming the flag when the options do not fit the federation: --metric-label without
// federated.metrics, a --per-replica figure missing, zero or for a metric the list does not have.
void checkReplayOptions(const Scenario& federation, const ReplayOptions& options);

// The scenario to simulate: the federation with the recording's load and its span as duration.
// A series is zero before its first sample and after its last (ramping over one step) and bridged
// linearly across gaps. InputError naming the series for: a missing cluster or metric label, a
// cluster or metric the federation does not have, two series for one cluster (and metric), a
// recording without two sample times or one too long to simulate; and checkReplayOptions' errors.
Replay replay(Scenario federation, const Recording& recording, const ReplayOptions& options);

}  // namespace fedhpa::simulation
