// Recorded traffic for `fedhpa simulate --from-prometheus`: the answer of Prometheus'
// /api/v1/query_range (a range vector, "matrix") read into series of samples, as Prometheus
// documents it: {"status": "success", "data": {"resultType": "matrix", "result": [{"metric":
// {labels}, "values": [[<unix seconds>, "<value>"], ...]}, ...]}}. Values are strings because
// Prometheus writes NaN and ±Inf as "NaN", "+Inf" and "-Inf".
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "federation/simulation/json_fields.h"

namespace fedhpa::simulation {

struct RecordedSample {
  double unixSeconds = 0;
  double value = 0;  // finite; "NaN" samples are dropped and counted in the series' nanValues
};

struct RecordedSeries {
  std::map<std::string, std::string> labels;  // the answer's "metric" object
  std::vector<RecordedSample> samples;        // times strictly increasing, at least one
  std::size_t nanValues = 0;
  std::string position;  // where it sits in the answer ("data.result[2]"), for messages
};

struct Recording {
  std::vector<RecordedSeries> series;  // in the answer's order; at least one
  double startUnixSeconds = 0;         // the earliest sample of any series
  double endUnixSeconds = 0;           // the latest
  // The query's step as the timestamps show it: the shortest interval between two times of one
  // series (NaN samples' included). None when no series has two.
  std::optional<double> stepSeconds;
  std::vector<std::string> warnings;  // the answer's "warnings", as Prometheus gave them

  double spanSeconds() const { return endUnixSeconds - startUnixSeconds; }
  // Samples a series lacks between its own first and last sample at the step (evaluations where
  // its query gave nothing, and NaN values), over all series.
  std::size_t missingPoints() const;
};

// Parses the answer's text. InputError naming the position for: text that is not JSON (line and
// column), "status": "error" (with Prometheus' errorType and error), a resultType other than
// matrix, no series, labels that are not strings, histogram samples, timestamps that are not
// numbers or do not increase, values that are not numbers in a string, infinite or negative values.
Recording parsePrometheusRange(std::string_view text);

}  // namespace fedhpa::simulation
