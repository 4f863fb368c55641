// Prometheus metrics of the API server, named as kube-apiserver names them:
// apiserver_request_total{verb,resource,code} and apiserver_request_duration_seconds{verb,resource}.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace fedhpa::apiserver {

class RequestMetrics {
 public:
  // Labels come from a closed set, never from the request as sent: verb is a REST verb or a known
  // method ("other" else); resource is a served resource ("horizontalpodautoscalers",
  // "deployments/scale"), a served non-resource path ("/version"), or "" for everything else.
  void observe(const std::string& verb, const std::string& resource, int code, double seconds);
  // Prometheus text exposition format; openWatches is reported as a gauge.
  std::string render(std::size_t openWatches) const;

 private:
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,   0.25,   0.5,   1,    2.5,   5};
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> buckets{};
    std::uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> counts_;
  std::map<std::pair<std::string, std::string>, Histogram> durations_;
};

}  // namespace fedhpa::apiserver
