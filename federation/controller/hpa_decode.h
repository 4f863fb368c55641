// Reads HorizontalPodAutoscaler objects, exactly as `kubectl get hpa -o json` prints them
// (autoscaling/v1 or autoscaling/v2, status included), into the partitioner's inputs. It lives
// beside the controller, its main reader (`fedhpa simulate` and `partition` read the same way),
// so that the object model and everything serving HTTP link no partitioner.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::controller {

inline constexpr const char* kPreferencesAnnotation = "federation.kubernetes.io/hpa-preferences";

// A field that is missing, of the wrong type or out of range; `field` is its JSON path.
class DecodeError : public std::runtime_error {
 public:
  DecodeError(const std::string& field, const std::string& problem)
      : std::runtime_error(field + ": " + problem), field_(field) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

struct FederatedHpa {
  partitioner::FederatedSpec spec;
  std::map<std::string, partitioner::Preferences> preferences;  // by cluster name
};

// `path` names the object in errors ("federated", "clusters.member1").
FederatedHpa decodeFederatedHpa(const nlohmann::json& hpa, const std::string& path);
partitioner::LocalHpa decodeLocalHpa(const nlohmann::json& hpa, const std::string& path);
// An autoscaling/v2 spec.metrics list (`path` names it in errors), targets only: no readings.
std::vector<partitioner::MetricReading> decodeMetricTargets(const nlohmann::json& metrics,
                                                            const std::string& path);
std::map<std::string, partitioner::Preferences> decodePreferences(const std::string& annotation,
                                                                  const std::string& path);

}  // namespace fedhpa::controller
