#include "federation/api/hpa_defaults.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

constexpr int kDefaultCpuUtilization = 80;

bool absent(const json& object, const char* key) { return !object.contains(key) || object[key].is_null(); }

json policy(const char* type, int value) { return {{"type", type}, {"value", value}, {"periodSeconds", 15}}; }

// Only the fields Kubernetes defaults; a rules object that is not one is left for validation.
void defaultRules(json& rules, const json& policies, const json* stabilizationWindowSeconds) {
  if (rules.is_null()) rules = json::object();
  if (!rules.is_object()) return;
  if (absent(rules, "selectPolicy")) rules["selectPolicy"] = "Max";
  if (absent(rules, "policies")) rules["policies"] = policies;
  if (stabilizationWindowSeconds && absent(rules, "stabilizationWindowSeconds"))
    rules["stabilizationWindowSeconds"] = *stabilizationWindowSeconds;
}

}  // namespace

void applyHpaV2Defaults(json& spec) {
  if (spec.is_null()) spec = json::object();
  if (!spec.is_object()) return;
  if (absent(spec, "minReplicas")) spec["minReplicas"] = 1;
  if (absent(spec, "metrics") || (spec["metrics"].is_array() && spec["metrics"].empty()))
    spec["metrics"] = json::array(
        {{{"type", "Resource"},
          {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", kDefaultCpuUtilization}}}}}}});
  if (absent(spec, "behavior") || !spec["behavior"].is_object()) return;
  json& behavior = spec["behavior"];
  static const json kScaleUpWindow = 0;
  defaultRules(behavior["scaleUp"], json::array({policy("Pods", 4), policy("Percent", 100)}), &kScaleUpWindow);
  defaultRules(behavior["scaleDown"], json::array({policy("Percent", 100)}), nullptr);
}

}  // namespace fedhpa::api
