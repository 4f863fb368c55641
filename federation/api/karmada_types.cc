// autoscaling.karmada.io/v1alpha1 FederatedHPA and CronFederatedHPA: Karmada's API, served so that
// Karmada users' manifests apply unchanged. A FederatedHPA's spec and status are an
// autoscaling/v2 HPA's, so its strategy is the HPA type's (defaults, validation, field checks)
// under Karmada's names; the controller-manager federates it through a federated HPA it owns.
#include "federation/api/karmada_types.h"

#include <set>

#include "federation/api/basic_resource_type.h"
#include "federation/api/cron_schedule.h"
#include "federation/api/hpa_type.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"
#include "federation/api/time_zone.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

constexpr const char* kKarmadaGroup = "autoscaling.karmada.io";
constexpr const char* kKarmadaVersion = "v1alpha1";

TableColumn referenceKindColumn() {
  return {"Reference-Kind", "string", "", "The kind of the object scaleTargetRef points to.", 0};
}
TableColumn referenceNameColumn() {
  return {"Reference-Name", "string", "", "The name of the object scaleTargetRef points to.", 0};
}

class FederatedHpaType : public ResourceType {
 public:
  FederatedHpaType()
      : hpa_(horizontalPodAutoscalerType()),
        names_{kKarmadaGroup, {kKarmadaVersion}, kKarmadaVersion, "FederatedHPA", "federatedhpas", "federatedhpa", true,
               {"fhpa"}, {"karmada-io"}, allVerbs(), {{"status", kKarmadaGroup, kKarmadaVersion, "FederatedHPA"}}} {}

  const ResourceNames& names() const override { return names_; }

  json toInternal(const json& served, const std::string&) const override { return withKarmadaKind(served); }
  json fromInternal(const json& internal, const std::string&) const override { return withKarmadaKind(internal); }

  // The HPA's autoscaling/v2 schema decides, except that fields directly under spec that it does
  // not know are kept, as a CRD with x-kubernetes-preserve-unknown-fields keeps them: they are
  // Karmada's (a newer Karmada's) and the controller reports them on the object instead.
  std::vector<std::string> unknownFields(const json& served, const std::string&) const override {
    std::vector<std::string> out;
    for (auto& path : hpa_->unknownFields(served, "v2"))
      if (!isPreservedSpecField(path)) out.push_back(std::move(path));
    return out;
  }
  void dropUnknownFields(json& served, const std::string&) const override {
    json preserved = json::object();
    if (served.contains("spec") && served["spec"].is_object())
      for (const auto& field : karmadaOnlySpecFields(served)) preserved[field] = served["spec"][field];
    hpa_->dropUnknownFields(served, "v2");
    for (const auto& [field, value] : preserved.items()) served["spec"][field] = value;
  }
  std::vector<std::string> typeErrors(const json& served, const std::string&) const override {
    return hpa_->typeErrors(served, "v2");
  }
  void applyDefaults(json& internal) const override { hpa_->applyDefaults(internal); }
  std::vector<StatusCause> validate(const json& internal, const json* old) const override { return hpa_->validate(internal, old); }

  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            referenceKindColumn(),
            referenceNameColumn(),
            {"MinPods", "integer", "", "minReplicas is the lower limit for the number of replicas.", 0},
            {"MaxPods", "integer", "", "maxReplicas is the upper limit for the number of replicas.", 0},
            {"Replicas", "integer", "", "currentReplicas is the current number of replicas of the target.", 0},
            ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/spec/scaleTargetRef/kind"),
                        stringAt(internal, "/spec/scaleTargetRef/name"),
                        integerAt(internal, "/spec/minReplicas"_json_pointer).value_or(1),
                        integerAt(internal, "/spec/maxReplicas"_json_pointer).value_or(0),
                        integerAt(internal, "/status/currentReplicas"_json_pointer).value_or(0), ageOf(internal, now)});
  }
  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return hpa_->listMergeKeys(); }
  bool acceptsStrategicMergePatch() const override { return hpa_->acceptsStrategicMergePatch(); }
  const Schema* storageSchema() const override { return hpa_->storageSchema(); }
  json openApiSchema(const std::string&) const override {
    json schema = hpa_->openApiSchema("v2");
    schema["properties"]["spec"]["x-kubernetes-preserve-unknown-fields"] = true;
    schema["x-kubernetes-group-version-kind"] = json::array({{{"group", kKarmadaGroup}, {"version", kKarmadaVersion}, {"kind", "FederatedHPA"}}});
    return schema;
  }

 private:
  json withKarmadaKind(json object) const {
    object["apiVersion"] = names_.apiVersion(kKarmadaVersion);
    object["kind"] = names_.kind;
    return object;
  }
  static bool isPreservedSpecField(const std::string& path) {
    return path.rfind("spec.", 0) == 0 && path.find_first_of(".[", 5) == std::string::npos;
  }

  std::shared_ptr<const ResourceType> hpa_;
  ResourceNames names_;
};

Schema crossVersionReference() {
  return Schema::object({{"apiVersion", Schema::string()}, {"kind", Schema::string()}, {"name", Schema::string()}});
}

Schema cronFederatedHpaSchema() {
  const Schema rule = Schema::object({{"name", Schema::string()},
                                      {"schedule", Schema::string()},
                                      {"targetReplicas", Schema::integer()},
                                      {"targetMinReplicas", Schema::integer()},
                                      {"targetMaxReplicas", Schema::integer()},
                                      {"suspend", Schema::boolean()},
                                      {"timeZone", Schema::string()},
                                      {"successfulHistoryLimit", Schema::integer()},
                                      {"failedHistoryLimit", Schema::integer()}});
  const Schema successful = Schema::object({{"scheduleTime", Schema::string()},
                                            {"executionTime", Schema::string()},
                                            {"appliedReplicas", Schema::integer()},
                                            {"appliedMaxReplicas", Schema::integer()},
                                            {"appliedMinReplicas", Schema::integer()}});
  const Schema failed = Schema::object({{"scheduleTime", Schema::string()}, {"executionTime", Schema::string()}, {"message", Schema::string()}});
  const Schema history = Schema::object({{"ruleName", Schema::string()},
                                         {"nextExecutionTime", Schema::string()},
                                         {"successfulExecutions", Schema::arrayOf(successful)},
                                         {"failedExecutions", Schema::arrayOf(failed)}});
  return topLevel({{"spec", Schema::object({{"scaleTargetRef", crossVersionReference()}, {"rules", Schema::arrayOf(rule)}})},
                   {"status", Schema::object({{"executionHistories", Schema::arrayOf(history)}})}});
}

class CronFederatedHpaType : public BasicResourceType {
 public:
  CronFederatedHpaType()
      : BasicResourceType(ResourceNames{kKarmadaGroup, {kKarmadaVersion}, kKarmadaVersion, "CronFederatedHPA", "cronfederatedhpas",
                                        "cronfederatedhpa", true, {"cronfhpa"}, {"karmada-io"}, allVerbs(),
                                        {{"status", kKarmadaGroup, kKarmadaVersion, "CronFederatedHPA"}}},
                          {{kKarmadaVersion, cronFederatedHpaSchema()}}, NameRule::DnsSubdomain) {}

  // Karmada's kubebuilder defaults: suspend false, both history limits 3.
  void applyDefaults(json& internal) const override {
    if (!internal["spec"].is_object()) internal["spec"] = json::object();
    json& rules = internal["spec"]["rules"];
    if (!rules.is_array()) return;
    for (auto& rule : rules) {
      if (!rule.is_object()) continue;
      if (!rule.contains("suspend")) rule["suspend"] = false;
      if (!rule.contains("successfulHistoryLimit")) rule["successfulHistoryLimit"] = 3;
      if (!rule.contains("failedHistoryLimit")) rule["failedHistoryLimit"] = 3;
    }
  }

  // What Karmada's CRD schema and webhook reject: a rule without a (unique, 1..32 character) name,
  // an unparsable schedule, an unknown time zone, history limits out of range, negative targets.
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json spec = internal.value("spec", json::object());
    const json ref = spec.value("scaleTargetRef", json::object());
    if (ref.value("kind", "").empty()) causes.push_back(fieldRequired("spec.scaleTargetRef.kind"));
    if (ref.value("name", "").empty()) causes.push_back(fieldRequired("spec.scaleTargetRef.name"));
    const json rules = spec.value("rules", json::array());
    if (!spec.contains("rules")) causes.push_back(fieldRequired("spec.rules"));
    std::set<std::string> seen;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string path = "spec.rules[" + std::to_string(i) + "]";
      const json& rule = rules[i];
      const std::string name = rule.value("name", "");
      if (name.empty()) causes.push_back(fieldRequired(path + ".name"));
      else if (name.size() > 32) causes.push_back(fieldInvalid(path + ".name", name, "must be no more than 32 characters"));
      else if (!seen.insert(name).second) causes.push_back({"FieldValueDuplicate", "Duplicate value: \"" + name + "\"", path + ".name"});
      std::string error;
      if (!rule.contains("schedule")) causes.push_back(fieldRequired(path + ".schedule"));
      else if (!CronSchedule::parse(rule.value("schedule", ""), &error))
        causes.push_back(fieldInvalid(path + ".schedule", rule["schedule"], error));
      if (rule.contains("timeZone") && !TimeZone::load(rule.value("timeZone", ""), &error))
        causes.push_back(fieldInvalid(path + ".timeZone", rule["timeZone"], error));
      for (const char* field : {"targetReplicas", "targetMinReplicas", "targetMaxReplicas"})
        if (const auto value = integerAt(rule, json::json_pointer(std::string("/") + field)); value && *value < 0)
          causes.push_back(fieldInvalid(path + "." + field, *value, "must be greater than or equal to 0"));
      if (const auto limit = integerAt(rule, "/successfulHistoryLimit"_json_pointer); limit && (*limit < 1 || *limit > 32))
        causes.push_back(fieldInvalid(path + ".successfulHistoryLimit", *limit, "must be between 1 and 32"));
      if (const auto limit = integerAt(rule, "/failedHistoryLimit"_json_pointer); limit && (*limit < 0 || *limit > 32))
        causes.push_back(fieldInvalid(path + ".failedHistoryLimit", *limit, "must be between 0 and 32"));
    }
    return causes;
  }

  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), referenceKindColumn(), referenceNameColumn(), ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/spec/scaleTargetRef/kind"),
                        stringAt(internal, "/spec/scaleTargetRef/name"), ageOf(internal, now)});
  }
};

}  // namespace

std::vector<std::string> karmadaOnlySpecFields(const json& federatedHpa) {
  static const std::set<std::string> kKnown = {"scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior"};
  std::vector<std::string> out;
  const json spec = federatedHpa.value("spec", json::object());
  if (!spec.is_object()) return out;
  for (const auto& [field, value] : spec.items())
    if (!kKnown.count(field)) out.push_back(field);
  return out;
}

std::shared_ptr<const ResourceType> federatedHpaType() { return std::make_shared<FederatedHpaType>(); }
std::shared_ptr<const ResourceType> cronFederatedHpaType() { return std::make_shared<CronFederatedHpaType>(); }

}  // namespace fedhpa::api
