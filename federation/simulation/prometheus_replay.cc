#include "federation/simulation/prometheus_replay.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "federation/api/machinery/untrusted_json.h"

namespace fedhpa::simulation {
namespace {

using nlohmann::json;

// Beyond this a system_clock time point (nanoseconds, as libstdc++ keeps it) overflows: the year 2262.
constexpr double kLatestUnixSeconds = 9.2e9;
// Prometheus keeps timestamps in milliseconds; samples closer than that are not from Prometheus.
constexpr double kResolutionSeconds = 0.001;

std::string excerpt(std::string_view text) {
  constexpr std::size_t kShown = 40;
  const std::string shown = api::machinery::sanitizeUtf8(text.substr(0, kShown));
  return "\"" + shown + (text.size() > kShown ? "...\"" : "\"");
}

// "line 3, column 14" for a byte offset (nlohmann counts bytes from 1, past the character read).
std::string lineAndColumn(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
  const std::size_t lineStart = text.rfind('\n', end == 0 ? 0 : end - 1);
  const std::size_t column = lineStart == std::string_view::npos || end == 0 ? end + 1 : end - lineStart;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

json parseText(std::string_view text) {
  if (api::machinery::jsonNestingDepth(text, api::machinery::kMaxJsonDepth) > api::machinery::kMaxJsonDepth)
    throw InputError("(top level): nested deeper than " + std::to_string(api::machinery::kMaxJsonDepth) +
                     " levels; not a Prometheus answer");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(lineAndColumn(text, e.byte) + ": not JSON");
  } catch (const json::out_of_range& e) {
    // A number beyond a double's range ("1e999"); nlohmann names the number but not its place.
    const std::string message = e.what();
    const std::size_t from = message.find("parsing '");
    const std::size_t at = from == std::string::npos ? std::string::npos : text.find(message.substr(from + 9, message.size() - from - 10));
    throw InputError((at == std::string::npos ? std::string("(top level)") : lineAndColumn(text, at + 1)) +
                     ": a number beyond a double's range");
  }
}

// A sample value as Prometheus writes it: a decimal or "NaN", "+Inf", "-Inf". nullopt for NaN.
std::optional<double> sampleValue(const json& value, const std::string& field) {
  if (!value.is_string()) throw InputError(field + ": must be a number in a string, as Prometheus writes values");
  const std::string& text = value.get_ref<const std::string&>();
  if (text == "NaN") return std::nullopt;
  if (text == "+Inf" || text == "-Inf" || text == "Inf")
    throw InputError(field + ": " + text + " is not a demand (a division by zero in the query?)");
  double result = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), result);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(result))
    throw InputError(field + ": " + excerpt(text) + " is not a number");
  if (result < 0) throw InputError(field + ": " + text + " is negative; demand cannot be");
  return result;
}

std::map<std::string, std::string> labels(const json& series, const std::string& field) {
  const json* metric = member(series, "metric");
  if (!metric) return {};
  if (!metric->is_object()) throw InputError(field + ".metric: must be an object of label: value");
  std::map<std::string, std::string> result;
  for (const auto& [name, value] : metric->items()) {
    if (!value.is_string()) throw InputError(field + ".metric." + name + ": a label's value must be a string");
    result[name] = value.get<std::string>();
  }
  return result;
}

// `step` becomes the shortest interval between two of the series' times (NaN samples included: their
// times are evaluation times too) when that is shorter.
RecordedSeries parseSeries(const json& series, const std::string& field, std::optional<double>& step) {
  if (!series.is_object()) throw InputError(field + ": must be an object with \"metric\" and \"values\"");
  RecordedSeries result{labels(series, field), {}, 0, field};
  const json* values = member(series, "values");
  if (!values && member(series, "histograms"))
    throw InputError(field + ".histograms: native histogram samples are not a demand; query a rate or a count");
  if (!values || !values->is_array()) throw InputError(field + ".values: required, a list of [<unix seconds>, \"<value>\"]");
  std::optional<double> previous;
  for (std::size_t i = 0; i < values->size(); ++i) {
    const std::string item = field + ".values[" + std::to_string(i) + "]";
    const json& pair = (*values)[i];
    if (!pair.is_array() || pair.size() != 2) throw InputError(item + ": must be [<unix seconds>, \"<value>\"]");
    const double time = nonNegativeNumber(pair[0], item + "[0]");
    if (time > kLatestUnixSeconds) throw InputError(item + "[0]: " + std::to_string(time) + " is past the year 2262");
    if (previous && time - *previous < kResolutionSeconds / 2)
      throw InputError(item + "[0]: times must increase by a millisecond at least (" + std::to_string(time) + " after " +
                       std::to_string(*previous) + ")");
    if (previous && (!step || time - *previous < *step)) step = time - *previous;
    previous = time;
    if (const auto value = sampleValue(pair[1], item + "[1]")) result.samples.push_back({time, *value});
    else ++result.nanValues;
  }
  if (result.samples.empty())
    throw InputError(field + ".values: no sample with a number" +
                     std::string(result.nanValues ? " (every value is NaN)" : ""));
  return result;
}

std::vector<std::string> warnings(const json& answer) {
  std::vector<std::string> result;
  const json* list = member(answer, "warnings");
  if (!list) return result;
  if (!list->is_array()) throw InputError("warnings: must be a list of strings");
  for (std::size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string()) throw InputError("warnings[" + std::to_string(i) + "]: must be a string");
    result.push_back((*list)[i].get<std::string>());
  }
  return result;
}

std::string stringField(const json& object, const char* key) {
  const json* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : "";
}

}  // namespace

std::size_t Recording::missingPoints() const {
  if (!stepSeconds) return 0;
  std::size_t missing = 0;
  for (const RecordedSeries& s : series) {
    const double covered = s.samples.back().unixSeconds - s.samples.front().unixSeconds;
    const auto expected = static_cast<std::size_t>(std::llround(covered / *stepSeconds)) + 1;
    if (expected > s.samples.size()) missing += expected - s.samples.size();
  }
  return missing;
}

Recording parsePrometheusRange(std::string_view text) {
  const json answer = parseText(text);
  if (!answer.is_object()) throw InputError("(top level): must be an object, the answer of /api/v1/query_range");
  const std::string status = stringField(answer, "status");
  if (status == "error") {
    const std::string type = stringField(answer, "errorType");
    throw InputError("status: Prometheus answered with an error: " + (type.empty() ? "" : type + ": ") +
                     stringField(answer, "error"));
  }
  if (status != "success") throw InputError("status: must be \"success\" or \"error\", not " + excerpt(status));
  const json* data = member(answer, "data");
  if (!data || !data->is_object()) throw InputError("data: required, an object with resultType and result");
  const std::string resultType = stringField(*data, "resultType");
  if (resultType != "matrix")
    throw InputError("data.resultType: " + excerpt(resultType) +
                     ", not \"matrix\": replay needs a range query's answer (/api/v1/query_range, not /api/v1/query)");
  const json* result = member(*data, "result");
  if (!result || !result->is_array()) throw InputError("data.result: required, a list of series");
  if (result->empty()) throw InputError("data.result: no series; the query matched nothing in that range");

  Recording recording;
  recording.warnings = warnings(answer);
  for (std::size_t i = 0; i < result->size(); ++i)
    recording.series.push_back(parseSeries((*result)[i], "data.result[" + std::to_string(i) + "]", recording.stepSeconds));
  recording.startUnixSeconds = recording.series.front().samples.front().unixSeconds;
  recording.endUnixSeconds = recording.series.front().samples.back().unixSeconds;
  for (const RecordedSeries& s : recording.series) {
    recording.startUnixSeconds = std::min(recording.startUnixSeconds, s.samples.front().unixSeconds);
    recording.endUnixSeconds = std::max(recording.endUnixSeconds, s.samples.back().unixSeconds);
  }
  return recording;
}

}  // namespace fedhpa::simulation
