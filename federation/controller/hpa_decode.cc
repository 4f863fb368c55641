#include "federation/controller/hpa_decode.h"

#include <cctype>
#include <limits>
#include <utility>
#include <vector>

#include "federation/api/hpa_type.h"
#include "federation/api/quantity.h"
#include "federation/api/time.h"

namespace fedhpa::controller {
namespace {

using api::parseQuantity;
using api::parseRfc3339;
using api::kV1ConditionsAnnotation;

using nlohmann::json;
using partitioner::Replicas;

constexpr Replicas kInt32Max = std::numeric_limits<std::int32_t>::max();

const json& requireObject(const json& value, const std::string& path) {
  if (!value.is_object()) throw DecodeError(path, "must be an object");
  return value;
}

// An optional integer member within [least, kInt32Max] (the API's int32 fields).
std::optional<Replicas> optionalInt(const json& object, const char* key, const std::string& path,
                                    Replicas least) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  const std::string field = path + "." + key;
  if (!it->is_number_integer()) throw DecodeError(field, "must be an integer");
  const auto value = it->get<long long>();
  if (value < least) throw DecodeError(field, "must be at least " + std::to_string(least));
  if (value > kInt32Max) throw DecodeError(field, "must fit in int32");
  return static_cast<Replicas>(value);
}

std::optional<std::string> optionalString(const json& object, const char* key,
                                          const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw DecodeError(path + "." + key, "must be a string");
  return it->get<std::string>();
}

const json* optionalMember(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

bool isV2(const json& hpa, const std::string& path) {
  const auto apiVersion = optionalString(hpa, "apiVersion", path);
  if (const auto kind = optionalString(hpa, "kind", path); kind && *kind != "HorizontalPodAutoscaler") {
    throw DecodeError(path + ".kind", "must be HorizontalPodAutoscaler, not " + *kind);
  }
  if (!apiVersion) {
    const json* spec = optionalMember(hpa, "spec");
    return spec && spec->contains("metrics");
  }
  if (*apiVersion == "autoscaling/v1") return false;
  if (*apiVersion == "autoscaling/v2" || *apiVersion == "autoscaling/v2beta2") return true;
  throw DecodeError(path + ".apiVersion",
                    "must be autoscaling/v1 or autoscaling/v2, not " + *apiVersion);
}

// The CPU resource metric of a v2 metric list (spec.metrics or status.currentMetrics).
std::optional<Replicas> cpuUtilization(const json* metrics, const char* holder,
                                       const std::string& path) {
  if (!metrics) return std::nullopt;
  if (!metrics->is_array()) throw DecodeError(path, "must be a list");
  for (std::size_t i = 0; i < metrics->size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    const json& metric = requireObject((*metrics)[i], item);
    if (optionalString(metric, "type", item) != "Resource") continue;
    const json* resource = optionalMember(metric, "resource");
    if (!resource) continue;
    const std::string resourcePath = item + ".resource";
    requireObject(*resource, resourcePath);
    if (optionalString(*resource, "name", resourcePath) != "cpu") continue;
    const json* value = optionalMember(*resource, holder);
    if (!value) continue;
    const std::string valuePath = resourcePath + "." + holder;
    requireObject(*value, valuePath);
    if (auto utilization = optionalInt(*value, "averageUtilization", valuePath, 0)) {
      return utilization;
    }
  }
  return std::nullopt;
}

using Source = partitioner::MetricReading::Source;
using Target = partitioner::MetricReading::Target;

// One v2 metric (a MetricSpec or a MetricStatus) by what it measures: its source, the member of
// the metric that holds the source's fields ("resource", "pods", ...), and the identity a spec
// entry and its status entry share (resource name, container, metric name, described object).
struct MetricIdentity {
  Source source;
  const json* body = nullptr;
  std::string bodyPath;
  std::string name;      // for reasons
  std::string identity;  // for matching status to spec
};

std::optional<MetricIdentity> identify(const json& metric, const std::string& path) {
  requireObject(metric, path);
  const auto type = optionalString(metric, "type", path);
  static constexpr std::pair<const char*, Source> kTypes[] = {
      {"Resource", Source::Resource}, {"ContainerResource", Source::ContainerResource},
      {"Pods", Source::Pods}, {"Object", Source::Object}, {"External", Source::External}};
  for (const auto& [typeName, source] : kTypes) {
    if (type != typeName) continue;
    std::string member = typeName;
    member[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(member[0])));
    MetricIdentity id{source, optionalMember(metric, member.c_str()), path + "." + member, {}, {}};
    if (!id.body) throw DecodeError(id.bodyPath, "required for type " + *type);
    requireObject(*id.body, id.bodyPath);
    if (source == Source::Resource || source == Source::ContainerResource) {
      id.name = optionalString(*id.body, "name", id.bodyPath).value_or("");
      if (source == Source::ContainerResource) {
        id.name += " in container " + optionalString(*id.body, "container", id.bodyPath).value_or("");
      }
    } else {
      const json* inner = optionalMember(*id.body, "metric");
      if (inner) id.name = optionalString(requireObject(*inner, id.bodyPath + ".metric"), "name", id.bodyPath + ".metric").value_or("");
    }
    id.identity = std::string(typeName) + "/" + id.name;
    if (source == Source::Object) {
      if (const json* described = optionalMember(*id.body, "describedObject")) {
        const std::string describedPath = id.bodyPath + ".describedObject";
        requireObject(*described, describedPath);
        id.identity += "/" + optionalString(*described, "kind", describedPath).value_or("") + "/" +
                       optionalString(*described, "name", describedPath).value_or("");
      }
    }
    return id;
  }
  return std::nullopt;  // a type this version does not know: the HPA cannot use it either
}

// A quantity member ("300Mi", or a plain JSON number).
std::optional<double> optionalQuantity(const json& object, const char* key, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  const std::string field = path + "." + key;
  if (it->is_number()) return it->get<double>();
  if (!it->is_string()) throw DecodeError(field, "must be a quantity");
  const auto value = parseQuantity(it->get_ref<const std::string&>());
  if (!value) throw DecodeError(field, "must be a quantity, not \"" + it->get<std::string>() + "\"");
  return value;
}

// The value of a MetricTarget or MetricValueStatus that goes with a target type.
std::optional<double> valueFor(Target target, const json& holder, const std::string& path) {
  switch (target) {
    case Target::Utilization: {
      const auto percent = optionalInt(holder, "averageUtilization", path, 0);
      return percent ? std::optional<double>(static_cast<double>(*percent)) : std::nullopt;
    }
    case Target::AverageValue: return optionalQuantity(holder, "averageValue", path);
    case Target::Value: return optionalQuantity(holder, "value", path);
  }
  return std::nullopt;
}

// spec.metrics, each with its reading from status.currentMetrics (matched by what it measures).
std::vector<partitioner::MetricReading> metricReadings(const json* specMetrics,
                                                       const json* currentMetrics,
                                                       const std::string& specPath,
                                                       const std::string& statusPath) {
  std::vector<partitioner::MetricReading> readings;
  if (!specMetrics) return readings;
  if (!specMetrics->is_array()) throw DecodeError(specPath, "must be a list");
  if (currentMetrics && !currentMetrics->is_array()) throw DecodeError(statusPath, "must be a list");
  std::vector<MetricIdentity> current;
  if (currentMetrics) {
    for (std::size_t i = 0; i < currentMetrics->size(); ++i) {
      if (auto id = identify((*currentMetrics)[i], statusPath + "[" + std::to_string(i) + "]")) {
        current.push_back(std::move(*id));
      }
    }
  }
  for (std::size_t i = 0; i < specMetrics->size(); ++i) {
    auto id = identify((*specMetrics)[i], specPath + "[" + std::to_string(i) + "]");
    if (!id) continue;
    const json* target = optionalMember(*id->body, "target");
    const std::string targetPath = id->bodyPath + ".target";
    if (!target) throw DecodeError(targetPath, "required");
    requireObject(*target, targetPath);
    const auto targetType = optionalString(*target, "type", targetPath);
    partitioner::MetricReading reading;
    reading.source = id->source;
    if (targetType == "Utilization") {
      reading.target = Target::Utilization;
    } else if (targetType == "AverageValue") {
      reading.target = Target::AverageValue;
    } else if (targetType == "Value") {
      reading.target = Target::Value;
    } else {
      throw DecodeError(targetPath + ".type", "must be Utilization, AverageValue or Value");
    }
    const auto targetValue = valueFor(reading.target, *target, targetPath);
    if (!targetValue) throw DecodeError(targetPath, "has no value for type " + *targetType);
    reading.targetValue = *targetValue;
    reading.name = std::move(id->name);
    for (const MetricIdentity& status : current) {
      if (status.identity != id->identity) continue;
      if (const json* value = optionalMember(*status.body, "current")) {
        requireObject(*value, status.bodyPath + ".current");
        reading.current = valueFor(reading.target, *value, status.bodyPath + ".current");
      }
      break;
    }
    readings.push_back(std::move(reading));
  }
  return readings;
}

// The ScalingLimited condition: true when True with reason TooManyReplicas.
std::optional<bool> limitedByMaxReplicas(const json& conditions, const std::string& path) {
  if (!conditions.is_array()) throw DecodeError(path, "must be a list");
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    const json& condition = requireObject(conditions[i], item);
    if (optionalString(condition, "type", item) != "ScalingLimited") continue;
    return optionalString(condition, "status", item) == "True" &&
           optionalString(condition, "reason", item) == "TooManyReplicas";
  }
  return std::nullopt;
}

const json* annotations(const json& hpa) {
  const json* metadata = optionalMember(hpa, "metadata");
  if (!metadata || !metadata->is_object()) return nullptr;
  const json* found = optionalMember(*metadata, "annotations");
  return found && found->is_object() ? found : nullptr;
}

partitioner::Limits decodeLimits(const json& spec, const std::string& path, Replicas leastMin) {
  const auto max = optionalInt(spec, "maxReplicas", path, 1);
  if (!max) throw DecodeError(path + ".maxReplicas", "required");
  const Replicas min = optionalInt(spec, "minReplicas", path, leastMin).value_or(1);
  if (min > *max) {
    throw DecodeError(path + ".minReplicas", "must be less than or equal to maxReplicas (" +
                                                 std::to_string(min) + " > " +
                                                 std::to_string(*max) + ")");
  }
  return {min, *max};
}

const json& requireSpec(const json& hpa, const std::string& path) {
  const json* spec = optionalMember(requireObject(hpa, path), "spec");
  if (!spec) throw DecodeError(path + ".spec", "required");
  return requireObject(*spec, path + ".spec");
}

}  // namespace

FederatedHpa decodeFederatedHpa(const json& hpa, const std::string& path) {
  const json& spec = requireSpec(hpa, path);
  const bool v2 = isV2(hpa, path);
  FederatedHpa result;
  result.spec.limits = decodeLimits(spec, path + ".spec", 1);
  result.spec.targetCPUUtilizationPercent =
      v2 ? cpuUtilization(optionalMember(spec, "metrics"), "target", path + ".spec.metrics")
         : optionalInt(spec, "targetCPUUtilizationPercentage", path + ".spec", 1);
  if (const json* notes = annotations(hpa)) {
    if (const auto text = optionalString(*notes, kPreferencesAnnotation, path + ".metadata.annotations")) {
      result.preferences = decodePreferences(
          *text, path + ".metadata.annotations[" + kPreferencesAnnotation + "]");
    }
  }
  return result;
}

std::vector<partitioner::MetricReading> decodeMetricTargets(const json& metrics, const std::string& path) {
  return metricReadings(&metrics, nullptr, path, path);
}

partitioner::LocalHpa decodeLocalHpa(const json& hpa, const std::string& path) {
  const json& spec = requireSpec(hpa, path);
  const bool v2 = isV2(hpa, path);
  partitioner::LocalHpa local;
  local.limits = decodeLimits(spec, path + ".spec", 0);

  const json* status = optionalMember(hpa, "status");
  if (v2) {
    local.metrics = metricReadings(optionalMember(spec, "metrics"),
                                   status && status->is_object() ? optionalMember(*status, "currentMetrics") : nullptr,
                                   path + ".spec.metrics", path + ".status.currentMetrics");
  }
  if (!status) return local;
  const std::string statusPath = path + ".status";
  requireObject(*status, statusPath);
  local.status.current = optionalInt(*status, "currentReplicas", statusPath, 0).value_or(0);
  local.status.desired = optionalInt(*status, "desiredReplicas", statusPath, 0).value_or(0);
  if (const auto lastScale = optionalString(*status, "lastScaleTime", statusPath)) {
    local.status.lastScaleTime = parseRfc3339(*lastScale);
    if (!local.status.lastScaleTime) {
      throw DecodeError(statusPath + ".lastScaleTime", "must be an RFC 3339 time, not " + *lastScale);
    }
  }
  if (v2) {
    local.status.cpuUtilizationPercent =
        cpuUtilization(optionalMember(*status, "currentMetrics"), "current",
                       statusPath + ".currentMetrics");
    if (const json* conditions = optionalMember(*status, "conditions")) {
      local.status.limitedByMaxReplicas = limitedByMaxReplicas(*conditions, statusPath + ".conditions");
    }
  } else {
    local.status.cpuUtilizationPercent =
        optionalInt(*status, "currentCPUUtilizationPercentage", statusPath, 0);
    if (const json* notes = annotations(hpa)) {
      const std::string field = path + ".metadata.annotations[" + kV1ConditionsAnnotation + "]";
      if (const auto text = optionalString(*notes, kV1ConditionsAnnotation, field)) {
        const json conditions = json::parse(*text, nullptr, false);
        if (conditions.is_discarded()) throw DecodeError(field, "must be a JSON list of conditions");
        local.status.limitedByMaxReplicas = limitedByMaxReplicas(conditions, field);
      }
    }
  }
  return local;
}

std::map<std::string, partitioner::Preferences> decodePreferences(const std::string& annotation,
                                                                  const std::string& path) {
  const json parsed = json::parse(annotation, nullptr, false);
  if (parsed.is_discarded()) throw DecodeError(path, "must be JSON");
  requireObject(parsed, path);
  std::map<std::string, partitioner::Preferences> result;
  const json* clusters = optionalMember(parsed, "clusters");
  if (!clusters) return result;
  requireObject(*clusters, path + ".clusters");
  for (const auto& [name, value] : clusters->items()) {
    const std::string item = path + ".clusters." + name;
    requireObject(value, item);
    partitioner::Preferences preferences;
    preferences.weight = optionalInt(value, "weight", item, 0);
    preferences.minReplicas = optionalInt(value, "minReplicas", item, 0);
    preferences.maxReplicas = optionalInt(value, "maxReplicas", item, 1);
    preferences.tier = optionalInt(value, "tier", item, 0);
    if (preferences.minReplicas && preferences.maxReplicas &&
        *preferences.minReplicas > *preferences.maxReplicas) {
      throw DecodeError(item + ".minReplicas", "must be less than or equal to maxReplicas");
    }
    result.emplace(name, preferences);
  }
  return result;
}

}  // namespace fedhpa::controller
