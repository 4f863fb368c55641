#include "federation/apiserver/metrics.h"

#include <sstream>

#include "federation/common/prometheus_text.h"

namespace fedhpa::apiserver {


void RequestMetrics::observe(const std::string& verb, const std::string& resource, int code, double seconds) {
  std::lock_guard lock(mutex_);
  ++counts_[{verb, resource, code}];
  Histogram& histogram = durations_[{verb, resource}];
  for (std::size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) ++histogram.buckets[i];
  ++histogram.count;
  histogram.sum += seconds;
}

std::string RequestMetrics::render(std::size_t openWatches) const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "# HELP apiserver_request_total Counter of apiserver requests broken out by verb, resource and HTTP response code.\n"
         "# TYPE apiserver_request_total counter\n";
  for (const auto& [key, count] : counts_) {
    const auto& [verb, resource, code] = key;
    out << "apiserver_request_total{verb=\"" << prometheusLabelValue(verb) << "\",resource=\"" << prometheusLabelValue(resource)
        << "\",code=\"" << code
        << "\"} " << count << "\n";
  }
  out << "# HELP apiserver_request_duration_seconds Response latency distribution in seconds by verb and resource.\n"
         "# TYPE apiserver_request_duration_seconds histogram\n";
  for (const auto& [key, histogram] : durations_) {
    const std::string labels = "verb=\"" + prometheusLabelValue(key.first) + "\",resource=\"" + prometheusLabelValue(key.second) + "\"";
    for (std::size_t i = 0; i < kBuckets.size(); ++i)
      out << "apiserver_request_duration_seconds_bucket{" << labels << ",le=\"" << kBuckets[i] << "\"} "
          << histogram.buckets[i] << "\n";
    out << "apiserver_request_duration_seconds_bucket{" << labels << ",le=\"+Inf\"} " << histogram.count << "\n"
        << "apiserver_request_duration_seconds_sum{" << labels << "} " << histogram.sum << "\n"
        << "apiserver_request_duration_seconds_count{" << labels << "} " << histogram.count << "\n";
  }
  out << "# HELP apiserver_longrunning_requests Number of open watch requests.\n"
         "# TYPE apiserver_longrunning_requests gauge\n"
         "apiserver_longrunning_requests{verb=\"WATCH\"} "
      << openWatches << "\n";
  return out.str();
}

}  // namespace fedhpa::apiserver
