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

// The HPA's autoscaling/v2 fields, described as fedhpa uses them on a FederatedHPA: mirrored onto
// the federated HPA of the same name that it owns.
Schema federatedHpaSchema() {
  Schema schema = horizontalPodAutoscalerV2Schema().describe(
      "Karmada's FederatedHPA, served by fedhpa as a second front door: it owns a federated autoscaling/v2 HPA of its "
      "name, mirrors its spec onto it and that HPA's status back, and fedhpa spreads the HPA over the member clusters.");
  schema.properties.at("metadata").properties.at("annotations").description =
      "Free-form key/value data. fedhpa's placement annotations (federation.kubernetes.io/hpa-preferences, "
      "federation.alpha.kubernetes.io/cluster-selector) are read from the owned HPA, not from here.";
  Schema& spec = schema.properties.at("spec");
  spec.description =
      "The desired autoscaling. These five fields are mirrored onto the owned HPA (an edit there is put back); other "
      "fields directly under spec are kept but not federated, and condition KarmadaFieldsIgnored names them.";
  spec.properties.at("scaleTargetRef").description =
      "The workload to scale (a Deployment). If another federated HPA already scales it, nothing is federated and "
      "condition Federated=False (TargetConflict) says so.";
  spec.properties.at("minReplicas").description =
      "Fewest replicas over all member clusters (default 1), copied to the owned HPA, whose share fedhpa splits.";
  spec.properties.at("maxReplicas").description =
      "Most replicas over all member clusters, copied to the owned HPA; fedhpa splits it among the members by load.";
  spec.properties.at("metrics").description =
      "What to scale on, copied to the owned HPA and from it to every member. Default: CPU at 80 % utilization.";
  spec.properties.at("behavior").description = "Scaling speed limits, copied to the owned HPA and every member HPA.";
  Schema& status = schema.properties.at("status");
  status.description = "The owned HPA's status, copied here, plus fedhpa's own conditions. Read-only.";
  status.properties.at("conditions").description =
      "The owned HPA's conditions, then Federated (True: HPAOwned; False: NameConflict or TargetConflict) and, when "
      "spec holds fields fedhpa has no use for, KarmadaFieldsIgnored.";
  return schema;
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
            ageColumn(),
            clusterSharesColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/spec/scaleTargetRef/kind"),
                        stringAt(internal, "/spec/scaleTargetRef/name"),
                        integerAt(internal, "/spec/minReplicas"_json_pointer).value_or(1),
                        integerAt(internal, "/spec/maxReplicas"_json_pointer).value_or(0),
                        integerAt(internal, "/status/currentReplicas"_json_pointer).value_or(0), ageOf(internal, now),
                        clusterShares(internal)});
  }
  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return hpa_->listMergeKeys(); }
  bool acceptsStrategicMergePatch() const override { return hpa_->acceptsStrategicMergePatch(); }
  const Schema* storageSchema() const override { return hpa_->storageSchema(); }
  json openApiSchema(const std::string&) const override {
    json schema = toOpenApi(federatedHpaSchema());
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
  return Schema::object(
      {{"apiVersion", Schema::string().describe("Group and version of the target, e.g. autoscaling.karmada.io/v1alpha1.")},
       {"kind", Schema::string().describe("FederatedHPA, HorizontalPodAutoscaler or Deployment.")},
       {"name", Schema::string().describe("Name of the target, in this object's namespace.")}});
}

Schema cronFederatedHpaSchema() {
  const Schema rule = Schema::object(
      {{"name", Schema::string().describe(
                    "Names the rule (unique within the object, up to 32 characters); its history is kept under it.")},
       {"schedule", Schema::string().describe("When to fire: a standard 5-field cron expression (minute hour day-of-month month "
                                              "day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly.")},
       {"targetReplicas", Schema::integer().describe("Replicas to set on a federated Deployment target when the rule fires.")},
       {"targetMinReplicas",
        Schema::integer().describe("minReplicas to set on a FederatedHPA or federated HPA target when the rule fires; the "
                                   "members' shares are then re-partitioned.")},
       {"targetMaxReplicas",
        Schema::integer().describe("maxReplicas to set on a FederatedHPA or federated HPA target when the rule fires; the "
                                   "members' shares are then re-partitioned.")},
       {"suspend", Schema::boolean().describe("While true the rule does not fire (default false).")},
       {"timeZone", Schema::string().describe("IANA time zone the schedule is read in (e.g. Europe/Berlin), from the system "
                                              "tz database; UTC when unset.")},
       {"successfulHistoryLimit",
        Schema::integer().describe("How many successful executions of the rule status keeps (1 to 32, default 3).")},
       {"failedHistoryLimit",
        Schema::integer().describe("How many failed executions of the rule status keeps (0 to 32, default 3).")}});
  const Schema successful =
      Schema::object({{"scheduleTime", Schema::string().describe("The schedule time this execution was for.")},
                      {"executionTime", Schema::string().describe("When fedhpa actually wrote the target.")},
                      {"appliedReplicas", Schema::integer().describe("The replicas set on a Deployment target.")},
                      {"appliedMaxReplicas", Schema::integer().describe("The maxReplicas set on an HPA target.")},
                      {"appliedMinReplicas", Schema::integer().describe("The minReplicas set on an HPA target.")}});
  const Schema failed = Schema::object({{"scheduleTime", Schema::string().describe("The schedule time this execution was for.")},
                                        {"executionTime", Schema::string().describe("When fedhpa tried to write the target.")},
                                        {"message", Schema::string().describe("Why the target could not be changed.")}});
  const Schema history = Schema::object(
      {{"ruleName", Schema::string().describe("The rule these executions belong to.")},
       {"nextExecutionTime", Schema::string().describe("When the rule fires next; absent while it is suspended.")},
       {"successfulExecutions", Schema::arrayOf(successful).describe("The latest successful executions, oldest first.")},
       {"failedExecutions", Schema::arrayOf(failed).describe("The latest failed executions, oldest first.")}});
  return topLevel(
             {{"spec", Schema::object({{"scaleTargetRef", crossVersionReference().describe(
                                                              "What the rules change: a FederatedHPA, a federated autoscaling/v2 "
                                                              "HPA or a federated apps/v1 Deployment.")},
                                       {"rules", Schema::arrayOf(rule).describe("The schedules and the values each sets.")}})
                           .describe("The target and the scheduled changes to make to it.")},
              {"status", Schema::object({{"executionHistories", Schema::arrayOf(history).describe(
                                                                    "Per rule, its next execution and its recent ones; "
                                                                    "also what keeps a restarted controller from firing a "
                                                                    "schedule time twice.")}})
                             .describe("What the rules did, written by fedhpa's controller. Read-only.")}})
      .describe(
          "Karmada's CronFederatedHPA: fedhpa's controller-manager changes a target's limits (or a Deployment's "
          "replicas) at scheduled times, e.g. raising min before a daily peak; the change then re-partitions "
          "like any edit.");
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
