#include "clusters/sim/deployment_status.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "federation/api/time.h"

namespace fedhpa::sim {

using nlohmann::json;

namespace {

constexpr const char* kAvailable = "Available";
constexpr const char* kProgressing = "Progressing";
constexpr const char* kNewReplicaSetAvailable = "NewReplicaSetAvailable";
constexpr const char* kReplicaSetUpdated = "ReplicaSetUpdated";
constexpr const char* kProgressDeadlineExceeded = "ProgressDeadlineExceeded";

long long integerOr(const json& object, const char* key, long long fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

// An intstr (25 or "25%") scaled to `total` as kube's GetScaledValueFromIntOrPercent does;
// nullopt when it is neither.
std::optional<long long> scaled(const json& value, long long total, bool roundUp) {
  if (value.is_number_integer()) return value.get<long long>();
  if (!value.is_string()) return std::nullopt;
  const std::string text = value.get<std::string>();
  if (text.size() < 2 || text.back() != '%') return std::nullopt;
  const std::string digits = text.substr(0, text.size() - 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 9)
    return std::nullopt;
  const long long percent = std::stoll(digits);
  return roundUp ? (percent * total + 99) / 100 : percent * total / 100;
}

const json* conditionOf(const json& conditions, const char* type) {
  for (const json& condition : conditions)
    if (condition.value("type", "") == type) return &condition;
  return nullptr;
}

void removeCondition(json& conditions, const char* type) {
  json kept = json::array();
  for (json& condition : conditions)
    if (condition.value("type", "") != type) kept.push_back(std::move(condition));
  conditions = std::move(kept);
}

json newCondition(const char* type, bool status, const char* reason, const std::string& message, const std::string& now) {
  return {{"type", type},
          {"status", status ? "True" : "False"},
          {"lastUpdateTime", now},
          {"lastTransitionTime", now},
          {"reason", reason},
          {"message", message}};
}

// kube's SetDeploymentCondition: the same status and reason leave the condition alone; the same
// status keeps its lastTransitionTime; the condition then goes last.
void setCondition(json& conditions, json condition) {
  const std::string type = condition["type"];
  if (const json* current = conditionOf(conditions, type.c_str())) {
    if (current->value("status", "") == condition["status"] && current->value("reason", "") == condition["reason"]) return;
    if (current->value("status", "") == condition["status"])
      condition["lastTransitionTime"] = current->value("lastTransitionTime", condition["lastTransitionTime"].get<std::string>());
  }
  removeCondition(conditions, type.c_str());
  conditions.push_back(std::move(condition));
}

}  // namespace

int maxUnavailable(const json& deployment) {
  const json spec = deployment.value("spec", json::object());
  const long long replicas = integerOr(spec, "replicas", 1);
  const json strategy = spec.value("strategy", json::object());
  if (strategy.value("type", "RollingUpdate") != "RollingUpdate" || replicas <= 0) return 0;
  const json rolling = strategy.value("rollingUpdate", json::object());
  const json fallback = "25%";  // the API's default for both
  const long long surge =
      scaled(rolling.value("maxSurge", fallback), replicas, true).value_or(*scaled(fallback, replicas, true));
  long long unavailable =
      scaled(rolling.value("maxUnavailable", fallback), replicas, false).value_or(*scaled(fallback, replicas, false));
  if (surge == 0 && unavailable == 0) unavailable = 1;
  return static_cast<int>(std::clamp<long long>(unavailable, 0, replicas));
}

json deploymentStatus(const json& deployment, const DeploymentPods& pods, std::chrono::system_clock::time_point now) {
  const json spec = deployment.value("spec", json::object());
  const json previous = deployment.value("status", json::object());
  const std::string name = deployment.value("metadata", json::object()).value("name", "");
  const long long generation = integerOr(deployment.value("metadata", json::object()), "generation", 1);
  const long long replicas = std::max(0LL, integerOr(spec, "replicas", 1));
  const std::string stamp = api::formatRfc3339(now);

  // Every pod is of the current template, so updatedReplicas = replicas.
  json status = {{"observedGeneration", generation}};
  const long long unavailable = std::max(0LL, replicas - pods.available);
  for (const auto& [key, count] : {std::pair{"replicas", static_cast<long long>(pods.pods)},
                                   {"updatedReplicas", static_cast<long long>(pods.pods)},
                                   {"readyReplicas", static_cast<long long>(pods.ready)},
                                   {"availableReplicas", static_cast<long long>(pods.available)},
                                   {"unavailableReplicas", unavailable}})
    if (count != 0) status[key] = count;  // omitempty

  json conditions = previous.contains("conditions") && previous["conditions"].is_array() ? previous["conditions"] : json::array();
  if (pods.available >= replicas - maxUnavailable(deployment))
    setCondition(conditions, newCondition(kAvailable, true, "MinimumReplicasAvailable", "Deployment has minimum availability.", stamp));
  else
    setCondition(conditions,
                 newCondition(kAvailable, false, "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", stamp));

  // Progressing, as kube's syncRolloutStatus: only with a progress deadline; once the rollout is
  // complete (NewReplicaSetAvailable) it stays so, whatever the availability does after.
  const long long deadline = integerOr(spec, "progressDeadlineSeconds", std::numeric_limits<std::int32_t>::max());
  const json* current = conditionOf(conditions, kProgressing);
  if (deadline == std::numeric_limits<std::int32_t>::max()) {
    removeCondition(conditions, kProgressing);
  } else if (!current || current->value("reason", "") != kNewReplicaSetAvailable) {
    const bool complete = pods.pods == replicas && pods.available == replicas;
    const bool progressed = pods.pods > integerOr(previous, "updatedReplicas", 0) ||
                            pods.ready > integerOr(previous, "readyReplicas", 0) ||
                            pods.available > integerOr(previous, "availableReplicas", 0);
    if (complete) {
      setCondition(conditions, newCondition(kProgressing, true, kNewReplicaSetAvailable,
                                            "Deployment \"" + name + "\" has successfully progressed.", stamp));
    } else if (progressed) {
      // Progress moves lastUpdateTime even when the reason stays.
      json condition = newCondition(kProgressing, true, kReplicaSetUpdated, "Deployment \"" + name + "\" is progressing.", stamp);
      if (current && current->value("status", "") == "True")
        condition["lastTransitionTime"] = current->value("lastTransitionTime", stamp);
      removeCondition(conditions, kProgressing);
      conditions.push_back(std::move(condition));
    } else if (current && current->value("reason", "") != kProgressDeadlineExceeded) {
      const auto lastUpdate = api::parseRfc3339(current->value("lastUpdateTime", ""));
      if (lastUpdate && *lastUpdate + std::chrono::seconds(deadline) < now)
        setCondition(conditions, newCondition(kProgressing, false, kProgressDeadlineExceeded,
                                              "Deployment \"" + name + "\" has timed out progressing.", stamp));
    }
  }
  status["conditions"] = std::move(conditions);
  return status;
}

}  // namespace fedhpa::sim
