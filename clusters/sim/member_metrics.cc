#include "clusters/sim/member_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "clusters/sim/member_simulator.h"
#include "federation/api/quantity.h"

namespace fedhpa::sim {

using nlohmann::json;

namespace {

// The member of a metric that holds its fields: "resource" for type Resource, and so on.
std::string bodyKey(const std::string& type) {
  std::string key = type;
  if (!key.empty()) key[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(key[0])));
  return key;
}

bool knownType(const std::string& type) {
  return type == "Resource" || type == "ContainerResource" || type == "Pods" || type == "Object" ||
         type == "External";
}

MetricSource sourceOf(const std::string& type) {
  if (type == "ContainerResource") return MetricSource::ContainerResource;
  if (type == "Pods") return MetricSource::Pods;
  if (type == "Object") return MetricSource::Object;
  if (type == "External") return MetricSource::External;
  return MetricSource::Resource;
}

// The target's value and the status field that reports it.
struct Target {
  double value = 0;
  const char* field = nullptr;  // averageUtilization, averageValue, value
};
std::optional<Target> targetOf(const json& body) {
  const json target = body.value("target", json::object());
  if (!target.is_object()) return std::nullopt;
  const std::string type = target.value("type", "");
  const auto quantity = [&](const char* key) -> std::optional<double> {
    const auto it = target.find(key);
    if (it == target.end()) return std::nullopt;
    if (it->is_number()) return it->get<double>();
    if (it->is_string()) return api::parseQuantity(it->get<std::string>());
    return std::nullopt;
  };
  std::optional<double> value;
  const char* field = nullptr;
  if (type == "Utilization") {
    value = quantity("averageUtilization");
    field = "averageUtilization";
  } else if (type == "AverageValue") {
    value = quantity("averageValue");
    field = "averageValue";
  } else if (type == "Value") {
    value = quantity("value");
    field = "value";
  }
  if (!value || !(*value > 0)) return std::nullopt;
  return Target{*value, field};
}

// kube's wording in events and conditions.
std::string describe(const std::string& type, const json& body, const std::string& name, const char* field) {
  const bool utilization = std::string(field) == "averageUtilization";
  if (type == "Resource")
    return name + " resource" + (utilization ? " utilization (percentage of request)" : "");
  if (type == "ContainerResource")
    return name + " container resource" + (utilization ? " utilization (percentage of request)" : "");
  if (type == "Pods") return "pods metric " + name;
  if (type == "Object") {
    const json described = body.value("describedObject", json::object());
    return name + " metric on " + described.value("kind", "") + "/" + described.value("name", "");
  }
  return "external metric " + name;
}

// A quantity as the API prints one: whole numbers plainly, the rest in milli-units ("2500m").
std::string quantityText(double value) {
  const long long milli = std::llround(value * 1000);
  char buffer[32];
  if (milli % 1000 == 0) std::snprintf(buffer, sizeof buffer, "%lld", milli / 1000);
  else std::snprintf(buffer, sizeof buffer, "%lldm", milli);
  return buffer;
}

}  // namespace

double demandFor(const json& deployment, const std::string& annotation) {
  const json annotations = deployment.value("metadata", json::object()).value("annotations", json::object());
  auto it = annotations.find(annotation);
  if (it == annotations.end() || !it->is_string()) it = annotations.find(kDemandAnnotation);
  if (it == annotations.end() || !it->is_string()) return 0;  // no annotation: an idle app
  try {
    return std::max(0.0, std::stod(it->get<std::string>()));
  } catch (const std::exception&) {
    return 0;  // an unreadable demand is no load
  }
}

std::string metricName(const json& metricSpec) {
  const std::string type = metricSpec.value("type", "");
  const json body = metricSpec.value(bodyKey(type), json::object());
  if (!body.is_object()) return "";
  if (type == "Resource" || type == "ContainerResource") return body.value("name", "");
  const json metric = body.value("metric", json::object());
  return metric.is_object() ? metric.value("name", "") : "";
}

std::vector<MemberMetric> memberMetrics(const json& specMetrics, const json& deployment, int replicas) {
  std::vector<MemberMetric> out;
  if (!specMetrics.is_array()) return out;
  for (const json& spec : specMetrics) {
    if (!spec.is_object()) continue;
    const std::string type = spec.value("type", "");
    if (!knownType(type)) continue;
    const json body = spec.value(bodyKey(type), json::object());
    if (!body.is_object()) continue;
    const auto target = targetOf(body);
    if (!target) continue;
    const std::string name = metricName(spec);
    const double demand = demandFor(deployment, kMetricDemandPrefix + name);
    MetricInput input{target->value, metricFromDemand(demand, replicas, target->value), describe(type, body, name, target->field)};
    input.source = sourceOf(type);
    const std::string field = target->field;
    input.targetType = field == "averageUtilization" ? TargetType::Utilization
                       : field == "averageValue"     ? TargetType::AverageValue
                                                     : TargetType::Value;
    input.name = name;
    out.push_back({spec, std::move(input)});
  }
  return out;
}

json currentMetricsJson(const std::vector<MemberMetric>& metrics) {
  json out = json::array();
  for (const MemberMetric& metric : metrics) {
    if (!metric.input.current) continue;
    const std::string type = metric.spec.value("type", "");
    json entry = metric.spec;
    json& body = entry[bodyKey(type)];
    const auto target = targetOf(body);
    body.erase("target");
    const double value = *metric.input.current;
    if (std::string(target->field) == "averageUtilization") {
      body["current"] = {{"averageUtilization", static_cast<int>(value)}};
    } else {
      body["current"] = {{target->field, quantityText(value)}};
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace fedhpa::sim
