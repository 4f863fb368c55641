#include "federation/api/hpa_type.h"

#include "federation/api/basic_resource_type.h"
#include "federation/api/hpa_defaults.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/printing.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

Schema crossVersionReference() {
  return Schema::object({{"apiVersion", Schema::string().describe("Group and version of the referent, e.g. apps/v1.")},
                         {"kind", Schema::string().describe("Kind of the referent, e.g. Deployment.")},
                         {"name", Schema::string().describe("Name of the referent, in this object's namespace.")}});
}

Schema metricIdentifier() {
  return Schema::object({{"name", Schema::string().describe("Name of the metric.")},
                         {"selector", labelSelectorSchema().describe(
                                          "Narrows the metric to the series with these labels; all series when unset.")}});
}

Schema metricValue() {
  return Schema::object(
      {{"type", Schema::string().describe("Which of the fields below is meant: Utilization, Value or AverageValue.")},
       {"value", Schema::intOrString().describe("The metric's total value, a quantity (e.g. 2k, 300Mi).")},
       {"averageValue", Schema::intOrString().describe("The metric's value divided by the number of pods, a quantity.")},
       {"averageUtilization",
        Schema::integer().describe("Mean over the pods of usage as a percentage of the containers' resource requests.")}});
}

// MetricSpec (valueField "target") and MetricStatus (valueField "current") share their shape.
Schema metricEntry(const std::string& valueField) {
  const bool target = valueField == "target";
  const Schema value =
      metricValue().describe(target ? "The value to hold the metric at." : "The value last observed for the metric.");
  return Schema::object(
      {{"type", Schema::string().describe("Which source the metric comes from: Resource, ContainerResource, Pods, Object or "
                                          "External; the field of that name holds it.")},
       {"resource", Schema::object({{"name", Schema::string().describe("The resource, cpu or memory.")}, {valueField, value}})
                        .describe("A resource (cpu, memory) of the target's pods, as reported by the metrics API.")},
       {"containerResource",
        Schema::object({{"name", Schema::string().describe("The resource, cpu or memory.")},
                        {"container", Schema::string().describe("The container of each pod whose usage counts.")},
                        {valueField, value}})
            .describe("A resource of one named container in each of the target's pods.")},
       {"pods", Schema::object({{"metric", metricIdentifier().describe("The per-pod custom metric.")}, {valueField, value}})
                    .describe("A custom metric each pod of the target reports, averaged over the pods.")},
       {"object", Schema::object({{"describedObject", crossVersionReference().describe("The object the metric describes.")},
                                  {"metric", metricIdentifier().describe("The custom metric of that object.")},
                                  {valueField, value}})
                      .describe("A custom metric of one other object in the namespace (e.g. an Ingress's requests per second).")},
       {"external", Schema::object({{"metric", metricIdentifier().describe("The external metric.")}, {valueField, value}})
                        .describe("A metric from outside the cluster (e.g. a queue's length).")}});
}

Schema scalingRules(const std::string& direction) {
  const Schema policy = Schema::object(
      {{"type", Schema::string().describe("Pods (a number of pods) or Percent (a percentage of the current replicas).")},
       {"value", Schema::integer().describe("How many pods, or what percentage, may change within periodSeconds.")},
       {"periodSeconds", Schema::integer().describe("The length of the window the policy counts changes over (1 to 1800 s).")}});
  const std::string scaling = "scaling " + direction;
  return Schema::object(
      {{"stabilizationWindowSeconds", Schema::integer().describe("Seconds of past recommendations to consider before " + scaling +
                                                                 " (the most conservative one wins), to avoid flapping.")},
       {"selectPolicy", Schema::string().describe("Max or Min: which policy's limit applies when several do; Disabled forbids " +
                                                  scaling + ".")},
       {"tolerance", Schema::intOrString().describe(
                         "The relative distance from the target, as a quantity (0.1 is 10 %), within which no " + scaling +
                         " happens.")},
       {"policies", Schema::arrayOf(policy).describe("Limits on how fast replicas may change while " + scaling + ".")}});
}

// A map's keys have no place of their own in OpenAPI, so the annotations fedhpa reads and writes on
// a federated HPA are described on metadata.annotations.
Schema withFederationAnnotations(Schema hpa, const std::string& viaV1) {
  hpa.properties.at("metadata").properties.at("annotations").description =
      "Free-form key/value data. On a federated HPA fedhpa reads federation.kubernetes.io/hpa-preferences (JSON, "
      "{\"clusters\": {\"<cluster>\": {\"weight\", \"minReplicas\", \"maxReplicas\", \"tier\"}}}: weights shape the "
      "first spread, minReplicas is a floor and maxReplicas a cap on that cluster's share, lower tiers fill first) and "
      "federation.alpha.kubernetes.io/cluster-selector (kubefed v1's JSON list of {key, operator, values} over Cluster "
      "labels: only matching clusters get a share). It writes federation.kubernetes.io/hpa-cluster-status: each "
      "member's min, max, current and desired replicas and CPU utilization." + viaV1;
  return hpa;
}

Schema v2Schema() {
  const Schema spec = Schema::object(
      {{"scaleTargetRef", crossVersionReference().describe(
                              "The workload to scale (a Deployment); each member cluster's HPA scales that cluster's copy.")},
       {"minReplicas", Schema::integer().describe("Fewest replicas, summed over the member clusters (default 1); fedhpa "
                                                  "splits it into each member HPA's minReplicas.")},
       {"maxReplicas", Schema::integer().describe("Most replicas, summed over the member clusters; fedhpa splits it into "
                                                  "each member HPA's maxReplicas and moves shares to where load is.")},
       {"metrics", Schema::arrayOf(metricEntry("target"))
                       .describe("What to scale on; each member HPA gets the same list. Default: CPU at 80 % utilization.")},
       {"behavior", Schema::object({{"scaleUp", scalingRules("up").describe("How replicas may grow.")},
                                    {"scaleDown", scalingRules("down").describe("How replicas may shrink.")}})
                        .describe("Speed limits for scaling up and down, copied to every member HPA.")}});
  const Schema status = Schema::object(
      {{"observedGeneration", Schema::int64().describe("The metadata.generation this status was computed for.")},
       {"lastScaleTime", Schema::any().describe("When a member HPA last changed its replica count.")},
       {"currentReplicas", Schema::integer().describe("Replicas the targets have now, summed over the member clusters.")},
       {"desiredReplicas", Schema::integer().describe("Replicas the member HPAs want, summed over the member clusters.")},
       {"currentMetrics",
        Schema::arrayOf(metricEntry("current"))
            .describe("The metrics' latest values. In the federation: CPU utilization, averaged over the members "
                      "weighted by their replicas.")},
       {"conditions",
        conditionsSchema().describe("AbleToScale, ScalingActive and ScalingLimited, merged over the member clusters (the message "
                                    "names the members a False or limited condition comes from).")}});
  return withFederationAnnotations(
             topLevel({{"spec", spec.describe("The desired autoscaling, for the whole federation.")},
                       {"status", status.describe("What the member HPAs report, added up by fedhpa. Read-only.")}}),
             "")
      .describe(
          "Scales a workload between limits by its metrics. Created in the federation, it is a federated HPA: "
          "fedhpa gives each member cluster a local HPA with a share of minReplicas and maxReplicas and keeps "
          "moving the shares to where the load is.");
}

Schema v1Schema() {
  const Schema spec = Schema::object(
      {{"scaleTargetRef", crossVersionReference().describe(
                              "The workload to scale (a Deployment); each member cluster's HPA scales that cluster's copy.")},
       {"minReplicas", Schema::integer().describe("Fewest replicas, summed over the member clusters (default 1).")},
       {"maxReplicas", Schema::integer().describe("Most replicas, summed over the member clusters; fedhpa splits it.")},
       {"targetCPUUtilizationPercentage",
        Schema::integer().describe("The CPU utilization (percent of requests) to hold the pods at; 80 when unset.")}});
  const Schema status = Schema::object(
      {{"observedGeneration", Schema::int64().describe("The metadata.generation this status was computed for.")},
       {"lastScaleTime", Schema::any().describe("When a member HPA last changed its replica count.")},
       {"currentReplicas", Schema::integer().describe("Replicas the targets have now, summed over the member clusters.")},
       {"desiredReplicas", Schema::integer().describe("Replicas the member HPAs want, summed over the member clusters.")},
       {"currentCPUUtilizationPercentage", Schema::integer().describe("The pods' latest mean CPU utilization, in percent.")}});
  return withFederationAnnotations(
             topLevel({{"spec", spec.describe("The desired autoscaling, for the whole federation.")},
                       {"status", status.describe("What the member HPAs report, added up by fedhpa. Read-only.")}}),
             " The autoscaling.alpha.kubernetes.io/metrics, current-metrics, conditions and behavior annotations carry "
             "what only autoscaling/v2 has fields for.")
      .describe(
          "The CPU-only view of a HorizontalPodAutoscaler (the same object as autoscaling/v2). Created in the "
          "federation, fedhpa spreads it over the member clusters as local HPAs.");
}

bool isCpuUtilization(const json& metric, const char* valueField) {
  return metric.value("type", "") == "Resource" && metric.contains("resource") &&
         metric["resource"].value("name", "") == "cpu" && metric["resource"].contains(valueField) &&
         metric["resource"][valueField].contains("averageUtilization");
}

// Moves an annotation holding JSON out of metadata (nullopt when absent or not JSON).
std::optional<json> takeAnnotation(json& object, const char* name) {
  if (!object.contains("metadata") || !object["metadata"].contains("annotations")) return std::nullopt;
  json& annotations = object["metadata"]["annotations"];
  if (!annotations.is_object() || !annotations.contains(name)) return std::nullopt;
  json value;
  try {
    // As kube-apiserver's conversion, an annotation that does not decode is ignored.
    value = machinery::parseUntrustedJson(annotations[name].is_string() ? annotations[name].get<std::string>() : "");
  } catch (const machinery::JsonInputError&) {
    value = json(json::value_t::discarded);
  }
  annotations.erase(name);
  if (annotations.empty()) object["metadata"].erase("annotations");
  if (value.is_discarded()) return std::nullopt;
  return value;
}

void putAnnotation(json& object, const char* name, const json& value) {
  object["metadata"]["annotations"][name] = machinery::dumpSafe(value);
}

std::string quantityText(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// "cpu: 45%/50%": one metric as kubectl's Targets column shows it.
std::string formatMetric(const json& spec, const json* status) {
  const std::string type = spec.value("type", "");
  const auto currentOf = [&](const char* source) -> json {
    if (!status || !status->contains(source) || !(*status)[source].contains("current")) return nullptr;
    return (*status)[source]["current"];
  };
  if (type == "Resource" || type == "ContainerResource") {
    const char* source = type == "Resource" ? "resource" : "containerResource";
    const json& metric = spec.value(source, json::object());
    const json target = metric.value("target", json::object());
    const json current = currentOf(source);
    const std::string name = metric.value("name", "<unknown>");
    if (target.contains("averageUtilization")) {
      const std::string now = current.is_object() && current.contains("averageUtilization")
                                  ? current["averageUtilization"].dump() + "%"
                                  : "<unknown>";
      return name + ": " + now + "/" + target["averageUtilization"].dump() + "%";
    }
    const std::string now = current.is_object() && current.contains("averageValue") ? quantityText(current["averageValue"]) : "<unknown>";
    return name + ": " + now + "/" + quantityText(target.value("averageValue", json("<unknown>")));
  }
  const char* source = type == "Pods" ? "pods" : type == "Object" ? "object" : "external";
  const json& metric = spec.value(source, json::object());
  const json target = metric.value("target", json::object());
  const json current = currentOf(source);
  const char* field = target.contains("averageValue") ? "averageValue" : "value";
  const std::string now = current.is_object() && current.contains(field) ? quantityText(current[field]) : "<unknown>";
  const std::string wanted = target.contains(field) ? quantityText(target[field]) : "<unknown>";
  return now + "/" + wanted + (std::string(field) == "averageValue" && type != "Pods" ? " (avg)" : "");
}

// Where v2 keeps a metric list and where v1 shows its CPU utilisation entry instead.
struct MetricListMapping {
  const char* listField;    // v2: spec.metrics / status.currentMetrics
  const char* valueField;   // "target" / "current"
  const char* v1Field;      // spec.targetCPUUtilizationPercentage / status.currentCPUUtilizationPercentage
  const char* annotation;   // where v1 carries the other entries
  bool withTargetType;      // a target says "type": "Utilization", a current value does not
};

constexpr MetricListMapping kSpecMetrics{"metrics", "target", "targetCPUUtilizationPercentage", kV1MetricsAnnotation, true};
constexpr MetricListMapping kStatusMetrics{"currentMetrics", "current", "currentCPUUtilizationPercentage",
                                           kV1CurrentMetricsAnnotation, false};

// v2 -> v1: the first CPU utilisation entry becomes the v1 field, the others go to the annotation.
void splitCpuUtilization(json& served, json& section, const MetricListMapping& mapping) {
  if (!section.contains(mapping.listField)) return;
  json others = json::array();
  bool cpuTaken = false;
  for (const auto& metric : section[mapping.listField]) {
    if (!cpuTaken && isCpuUtilization(metric, mapping.valueField)) {
      section[mapping.v1Field] = metric["resource"][mapping.valueField]["averageUtilization"];
      cpuTaken = true;
    } else {
      others.push_back(metric);
    }
  }
  section.erase(mapping.listField);
  if (!others.empty()) putAnnotation(served, mapping.annotation, others);
}

// v1 -> v2: the inverse of splitCpuUtilization.
void joinCpuUtilization(json& internal, json& section, const MetricListMapping& mapping) {
  json metrics = takeAnnotation(internal, mapping.annotation).value_or(json::array());
  if (!metrics.is_array()) metrics = json::array();
  if (section.contains(mapping.v1Field)) {
    json value = {{"averageUtilization", section[mapping.v1Field]}};
    if (mapping.withTargetType) value["type"] = "Utilization";
    metrics.insert(metrics.begin(),
                   json{{"type", "Resource"}, {"resource", {{"name", "cpu"}, {mapping.valueField, value}}}});
    section.erase(mapping.v1Field);
  }
  if (!metrics.empty()) section[mapping.listField] = metrics;
}

class HorizontalPodAutoscalerType : public BasicResourceType {
 public:
  explicit HorizontalPodAutoscalerType(bool withClusterShares)
      : BasicResourceType(
            ResourceNames{"autoscaling", {"v2", "v1"}, "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers",
                          "horizontalpodautoscaler", true, {"hpa"}, {"all"}, allVerbs(),
                          {{"status", "autoscaling", "", "HorizontalPodAutoscaler"}}},
            {{"v2", v2Schema()}, {"v1", v1Schema()}}, NameRule::DnsSubdomain),
        withClusterShares_(withClusterShares) {}

  json toInternal(const json& served, const std::string& version) const override {
    json internal = BasicResourceType::toInternal(served, version);
    if (version != "v1") return internal;
    if (!internal["spec"].is_object()) internal["spec"] = json::object();
    joinCpuUtilization(internal, internal["spec"], kSpecMetrics);
    if (auto behavior = takeAnnotation(internal, kV1BehaviorAnnotation)) internal["spec"]["behavior"] = *behavior;
    auto conditions = takeAnnotation(internal, kV1ConditionsAnnotation);
    if (internal.contains("status") && internal["status"].is_object()) {
      joinCpuUtilization(internal, internal["status"], kStatusMetrics);
      if (conditions && conditions->is_array()) internal["status"]["conditions"] = *conditions;
    } else {
      takeAnnotation(internal, kV1CurrentMetricsAnnotation);
    }
    return internal;
  }

  json fromInternal(const json& internal, const std::string& version) const override {
    json served = BasicResourceType::fromInternal(internal, version);
    if (version != "v1") return served;
    json& spec = served["spec"];
    if (spec.is_object()) {
      splitCpuUtilization(served, spec, kSpecMetrics);
      if (spec.contains("behavior")) {
        putAnnotation(served, kV1BehaviorAnnotation, spec["behavior"]);
        spec.erase("behavior");
      }
    }
    if (served.contains("status") && served["status"].is_object()) {
      json& status = served["status"];
      splitCpuUtilization(served, status, kStatusMetrics);
      if (status.contains("conditions")) {
        putAnnotation(served, kV1ConditionsAnnotation, status["conditions"]);
        status.erase("conditions");
      }
    }
    return served;
  }

  void applyDefaults(json& internal) const override {
    if (!internal["spec"].is_object()) internal["spec"] = json::object();
    applyHpaV2Defaults(internal["spec"]);
  }

  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json& spec = internal.value("spec", json::object());
    const json ref = spec.value("scaleTargetRef", json::object());
    if (ref.value("kind", "").empty()) causes.push_back(fieldRequired("spec.scaleTargetRef.kind"));
    if (ref.value("name", "").empty()) causes.push_back(fieldRequired("spec.scaleTargetRef.name"));
    const auto minReplicas = integerAt(internal, "/spec/minReplicas"_json_pointer);
    const auto maxReplicas = integerAt(internal, "/spec/maxReplicas"_json_pointer);
    if (minReplicas && *minReplicas < 1)
      causes.push_back(fieldInvalid("spec.minReplicas", *minReplicas, "must be greater than or equal to 1"));
    if (!maxReplicas || *maxReplicas < 1)
      causes.push_back(fieldInvalid("spec.maxReplicas", maxReplicas.value_or(0), "must be greater than or equal to 1"));
    else if (minReplicas && *maxReplicas < *minReplicas)
      causes.push_back(fieldInvalid("spec.maxReplicas", *maxReplicas, "must be greater than or equal to `minReplicas`"));
    const json metrics = spec.value("metrics", json::array());
    for (std::size_t i = 0; i < metrics.size(); ++i) validateMetric(metrics[i], "spec.metrics[" + std::to_string(i) + "]", causes);
    if (spec.contains("behavior") && spec["behavior"].is_object())
      for (const char* direction : {"scaleUp", "scaleDown"})
        if (spec["behavior"].contains(direction))
          validateScalingRules(spec["behavior"][direction], std::string("spec.behavior.") + direction, causes);
    return causes;
  }

  std::vector<TableColumn> tableColumns() const override {
    std::vector<TableColumn> columns = {
        nameColumn(),
        {"Reference", "string", "", "scaleTargetRef points to the target resource to scale", 0},
        {"Targets", "string", "", "metrics contains the specifications for which to use to calculate the desired replica count", 0},
        {"MinPods", "string", "", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down", 0},
        {"MaxPods", "integer", "", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up", 0},
        {"Replicas", "integer", "", "currentReplicas is current number of replicas of pods managed by this autoscaler", 0},
        ageColumn()};
    if (withClusterShares_) columns.push_back(clusterSharesColumn());
    return columns;
  }

  json tableCells(const json& internal, Clock::time_point now) const override {
    const json spec = internal.value("spec", json::object());
    const json status = internal.value("status", json::object());
    const json ref = spec.value("scaleTargetRef", json::object());
    const json metrics = spec.value("metrics", json::array());
    const json current = status.value("currentMetrics", json::array());
    std::string targets;
    const std::size_t shown = std::min<std::size_t>(metrics.size(), 2);
    for (std::size_t i = 0; i < shown; ++i) {
      if (!targets.empty()) targets += ", ";
      targets += formatMetric(metrics[i], i < current.size() ? &current[i] : nullptr);
    }
    if (metrics.size() > 2) targets += " + " + std::to_string(metrics.size() - 2) + " more...";
    if (metrics.empty()) targets = "<none>";
    const auto minReplicas = integerAt(internal, "/spec/minReplicas"_json_pointer);
    json cells = json::array({stringAt(internal, "/metadata/name"), ref.value("kind", "") + "/" + ref.value("name", ""), targets,
                              minReplicas ? std::to_string(*minReplicas) : "<unset>",
                              integerAt(internal, "/spec/maxReplicas"_json_pointer).value_or(0),
                              integerAt(internal, "/status/currentReplicas"_json_pointer).value_or(0), ageOf(internal, now)});
    if (withClusterShares_) cells.push_back(clusterShares(internal));
    return cells;
  }

 private:
  bool withClusterShares_;

  // kube-apiserver's validateScalingRules and validateScalingPolicy.
  static void validateScalingRules(const json& rules, const std::string& path, std::vector<StatusCause>& causes) {
    if (!rules.is_object()) return;
    if (const auto window = integerAt(rules, "/stabilizationWindowSeconds"_json_pointer)) {
      if (*window < 0)
        causes.push_back(fieldInvalid(path + ".stabilizationWindowSeconds", *window, "must be greater than or equal to zero"));
      if (*window > 3600)
        causes.push_back(fieldInvalid(path + ".stabilizationWindowSeconds", *window, "must be less than or equal to 3600"));
    }
    if (rules.contains("selectPolicy") && rules["selectPolicy"].is_string()) {
      const std::string select = rules["selectPolicy"].get<std::string>();
      if (select != "Max" && select != "Min" && select != "Disabled")
        causes.push_back(fieldNotSupported(path + ".selectPolicy", select, {"Disabled", "Max", "Min"}));
    }
    // Absent policies are defaulted; an empty list stays empty, and is an error (as in kube, nil vs []).
    if (!rules.contains("policies") || !rules["policies"].is_array()) return;
    const json& policies = rules["policies"];
    if (policies.empty()) causes.push_back({"FieldValueRequired", "Required value: must specify at least one Policy", path + ".policies"});
    for (std::size_t i = 0; i < policies.size(); ++i) {
      const std::string at = path + ".policies[" + std::to_string(i) + "]";
      const json& policy = policies[i];
      const std::string type = policy.is_object() && policy.contains("type") && policy["type"].is_string() ? policy["type"].get<std::string>() : "";
      if (type != "Pods" && type != "Percent") causes.push_back(fieldNotSupported(at + ".type", type, {"Percent", "Pods"}));
      const long long value = integerAt(policy, "/value"_json_pointer).value_or(0);
      if (value <= 0) causes.push_back(fieldInvalid(at + ".value", value, "must be greater than zero"));
      const long long period = integerAt(policy, "/periodSeconds"_json_pointer).value_or(0);
      if (period <= 0) causes.push_back(fieldInvalid(at + ".periodSeconds", period, "must be greater than zero"));
      if (period > 1800) causes.push_back(fieldInvalid(at + ".periodSeconds", period, "must be less than or equal to 1800"));
    }
  }

  static void validateMetric(const json& metric, const std::string& path, std::vector<StatusCause>& causes) {
    static const std::vector<std::string> kTypes = {"ContainerResource", "External", "Object", "Pods", "Resource"};
    const std::string type = metric.value("type", "");
    if (type.empty()) {
      causes.push_back(fieldRequired(path + ".type"));
      return;
    }
    if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
      causes.push_back(fieldNotSupported(path + ".type", type, kTypes));
      return;
    }
    if (type != "Resource") return;
    const json resource = metric.value("resource", json::object());
    if (resource.value("name", "").empty()) causes.push_back(fieldRequired(path + ".resource.name"));
    const json target = resource.value("target", json::object());
    const std::string targetType = target.value("type", "");
    if (targetType == "Utilization") {
      const auto utilization = integerAt(target, "/averageUtilization"_json_pointer);
      if (!utilization) causes.push_back(fieldRequired(path + ".resource.target.averageUtilization"));
      else if (*utilization < 1)
        causes.push_back(fieldInvalid(path + ".resource.target.averageUtilization", *utilization, "must be greater than 0"));
    } else if (targetType != "AverageValue" && targetType != "Value") {
      causes.push_back(targetType.empty() ? fieldRequired(path + ".resource.target.type")
                                          : fieldNotSupported(path + ".resource.target.type", targetType,
                                                              {"AverageValue", "Utilization", "Value"}));
    }
  }
};

}  // namespace

Schema horizontalPodAutoscalerV2Schema() { return v2Schema(); }

TableColumn clusterSharesColumn() {
  return {"Clusters", "string", "",
          "Each member cluster's share, from the federation.kubernetes.io/hpa-cluster-status annotation: "
          "minReplicas-maxReplicas (currentReplicas).",
          1};
}

std::string clusterShares(const json& hpa) {
  const json::json_pointer at = json::json_pointer("/metadata/annotations") / kClusterStatusAnnotation;
  if (!hpa.contains(at) || !hpa.at(at).is_string()) return "<none>";
  // Anyone who may update the HPA may write the annotation: read it as client input.
  json breakdown;
  try {
    breakdown = machinery::parseUntrustedJson(hpa.at(at).get<std::string>());
  } catch (const machinery::JsonInputError&) {
    return "<invalid>";
  }
  if (!breakdown.is_object()) return "<invalid>";
  if (breakdown.empty()) return "<none>";
  auto number = [](const json& share, const char* field) {
    const auto value = share.is_object() ? integerAt(share, json::json_pointer("") / field) : std::nullopt;
    return value ? std::to_string(*value) : std::string("?");
  };
  std::string out;
  for (const auto& [cluster, share] : breakdown.items()) {
    if (!out.empty()) out += ", ";
    out += cluster + " " + number(share, "min") + "-" + number(share, "max") + " (" + number(share, "current") + ")";
  }
  return out;
}

std::shared_ptr<const ResourceType> horizontalPodAutoscalerType(bool withClusterShares) {
  return std::make_shared<HorizontalPodAutoscalerType>(withClusterShares);
}

}  // namespace fedhpa::api
