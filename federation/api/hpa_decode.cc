#include "federation/api/hpa_decode.h"

#include <limits>

#include "federation/api/time.h"

namespace fedhpa::api {
namespace {

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

partitioner::LocalHpa decodeLocalHpa(const json& hpa, const std::string& path) {
  const json& spec = requireSpec(hpa, path);
  const bool v2 = isV2(hpa, path);
  partitioner::LocalHpa local;
  local.limits = decodeLimits(spec, path + ".spec", 0);

  const json* status = optionalMember(hpa, "status");
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
    if (preferences.minReplicas && preferences.maxReplicas &&
        *preferences.minReplicas > *preferences.maxReplicas) {
      throw DecodeError(item + ".minReplicas", "must be less than or equal to maxReplicas");
    }
    result.emplace(name, preferences);
  }
  return result;
}

}  // namespace fedhpa::api
