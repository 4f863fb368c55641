// policy.karmada.io/v1alpha1 PropagationPolicy (namespaced) and ClusterPropagationPolicy (cluster
// scoped): Karmada's placement API, served as its CRDs serve it (JSON only, Karmada's short names,
// printer columns and defaults) so that Karmada's manifests apply unchanged. The fields fedhpa acts
// on are typed; Karmada's other fields are known to the schema (so that they are not pruned as
// unknown) and refused by validation with a 422 naming them: a policy fedhpa would only partly
// honour is never accepted silently (docs/karmada.md lists them).
#include <algorithm>
#include <set>

#include "federation/api/basic_resource_type.h"
#include "federation/api/karmada_types.h"
#include "federation/api/machinery/selectors.h"
#include "federation/api/printing.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

constexpr const char* kPolicyGroup = "policy.karmada.io";
constexpr const char* kPolicyVersion = "v1alpha1";

Schema clusterAffinitySchema() {
  return Schema::object(
      {{"clusterNames", Schema::arrayOf(Schema::string()).describe("Member clusters selected by name (Cluster objects).")},
       {"exclude", Schema::arrayOf(Schema::string()).describe("Member clusters never selected, whatever else matches.")},
       {"labelSelector", labelSelectorSchema().describe("Selects member clusters by their Cluster object's labels.")},
       {"fieldSelector", Schema::any().describe("Karmada's provider/region/zone selector: not supported by fedhpa (refused).")}});
}

Schema propagationSpecSchema() {
  const Schema resourceSelector = Schema::object(
      {{"apiVersion", Schema::string().describe("Group and version of the objects selected, e.g. apps/v1. Required.")},
       {"kind", Schema::string().describe("Kind of the objects selected, e.g. Deployment. Required.")},
       {"namespace", Schema::string().describe("Namespace of the objects; a PropagationPolicy selects only in its own.")},
       {"name", Schema::string().describe("Name of the object; when set, labelSelector is ignored.")},
       {"labelSelector", labelSelectorSchema().describe("Selects the objects by their labels, when name is not set.")}});
  const Schema staticWeight = Schema::object(
      {{"targetCluster", clusterAffinitySchema().describe("The member clusters this weight applies to.")},
       {"weight", Schema::int64().describe("The weight (at least 1); a cluster several entries match takes the largest.")}});
  const Schema replicaScheduling = Schema::object(
      {{"replicaSchedulingType",
        Schema::string().describe("Duplicated (every member runs all of a Deployment's replicas) or Divided (default); "
                                  "a federated HPA's limits are always divided.")},
       {"replicaDivisionPreference",
        Schema::string().describe("Weighted: a Deployment's replicas and a federated HPA's max are split by "
                                  "staticWeightList; Aggregated: the max by load, replicas evenly.")},
       {"weightPreference",
        Schema::object({{"staticWeightList", Schema::arrayOf(staticWeight).describe("Weights per member cluster.")},
                        {"dynamicWeight", Schema::any().describe("Karmada's dynamic weights: not supported by fedhpa (refused).")}})
            .describe("How Weighted division weighs the member clusters.")}});
  const auto refused = [](const std::string& what) {
    return Schema::any().describe(what + ": not supported by fedhpa (refused).");
  };
  const Schema placement = Schema::object(
      {{"clusterAffinity", clusterAffinitySchema().describe("Which member clusters the selected objects go to.")},
       {"replicaScheduling", replicaScheduling.describe("How a Deployment's replicas and a federated HPA's limits are split over those "
                                                    "clusters (absent: Deployments are duplicated).")},
       {"clusterAffinities", refused("Karmada's ordered cluster groups")},
       {"clusterTolerations", refused("Tolerations of Cluster taints")},
       {"spreadConstraints", refused("Karmada's spread constraints")},
       {"workloadAffinity", refused("Karmada's workload affinity")}});
  return Schema::object(
      {{"resourceSelectors", Schema::arrayOf(resourceSelector).describe("The objects the policy places (at least one).")},
       {"placement", placement.describe("Where the selected objects go.")},
       {"priority", Schema::integer().describe("Higher wins when several policies match one object (default 0).")},
       {"propagateDeps",
        Schema::boolean().describe("Accepted: fedhpa always places the ConfigMaps and Services a Deployment uses with it.")},
       {"conflictResolution",
        Schema::string().describe("Abort (default): an object fedhpa did not create on a member is left alone. Overwrite is "
                                  "not supported.")},
       {"preemption", Schema::string().describe("Never (default); Always is not supported.")},
       {"schedulerName", Schema::string().describe("default-scheduler (default); fedhpa has no other.")},
       {"association", refused("Karmada's deprecated association")},
       {"dependentOverrides", refused("OverridePolicy dependencies")},
       {"failover", refused("Karmada's failover")},
       {"activationPreference", refused("Lazy activation")},
       {"suspension", refused("Suspension")},
       {"preserveResourcesOnDeletion",
        Schema::boolean().describe("false (default); true, keeping members' copies when the object is deleted, is not "
                                   "supported (refused): delete with --cascade=orphan instead.")}});
}

// Not Karmada's: Karmada reports placement in ResourceBindings, which fedhpa does not serve, so
// the controller-manager writes it here (docs/karmada.md#what-each-policy-placed).
Schema propagationStatusSchema() {
  const Schema placement = Schema::object(
      {{"apiVersion", Schema::string().describe("Group and version of the object governed.")},
       {"kind", Schema::string().describe("Kind of the object governed.")},
       {"namespace", Schema::string().describe("Namespace of the object governed.")},
       {"name", Schema::string().describe("Name of the object governed.")},
       {"clusters", Schema::arrayOf(Schema::string()).describe("The Ready member clusters it is placed on.")}});
  return Schema::object(
             {{"observedGeneration", Schema::int64().describe("The generation of the policy this status was computed for.")},
              {"placedCount", Schema::int64().describe("How many federated objects the policy governs (placements lists at "
                                                       "most 100 of them).")},
              {"placements", Schema::arrayOf(placement).describe("The objects the policy governs, sorted by kind, namespace "
                                                                 "and name, and where each is placed.")}})
      .describe("What the policy placed where, written by fedhpa's controller-manager. Read-only.");
}

// The wide column: "Deployment/nginx: member1,member2; Service/nginx-service: member1,member2",
// at most a few entries then "+N more" (the status lists the rest).
std::string placedSummary(const json& internal) {
  constexpr std::size_t kShown = 5;
  const json status = internal.value("status", json::object());
  if (!status.is_object()) return "";
  const json placements = status.value("placements", json::array());
  if (!placements.is_array()) return "";
  const bool clusterScoped = stringAt(internal, "/metadata/namespace").empty();
  std::string out;
  std::size_t shown = 0;
  for (const auto& entry : placements) {
    if (shown == kShown) break;
    if (!entry.is_object()) continue;
    std::string clusters;
    for (const auto& cluster : entry.value("clusters", json::array()))
      if (cluster.is_string()) clusters += (clusters.empty() ? "" : ",") + cluster.get<std::string>();
    const std::string ns = clusterScoped ? entry.value("namespace", "") + "/" : "";
    out += (out.empty() ? "" : "; ") + entry.value("kind", "") + "/" + ns + entry.value("name", "") + ": " +
           (clusters.empty() ? "<none>" : clusters);
    ++shown;
  }
  const auto count = integerAt(internal, "/status/placedCount"_json_pointer);
  const auto total = count ? static_cast<std::size_t>(std::max<long long>(*count, 0)) : placements.size();
  if (total > shown) out += (out.empty() ? "+" : "; +") + std::to_string(total - shown) + " more";
  return out;
}

// Karmada fields the schema knows but fedhpa does not act on, by JSON pointer and path.
struct RefusedField {
  const char* pointer;
  const char* path;
};
constexpr RefusedField kRefusedFields[] = {
    {"/spec/placement/clusterAffinities", "spec.placement.clusterAffinities"},
    {"/spec/placement/clusterTolerations", "spec.placement.clusterTolerations"},
    {"/spec/placement/spreadConstraints", "spec.placement.spreadConstraints"},
    {"/spec/placement/workloadAffinity", "spec.placement.workloadAffinity"},
    {"/spec/placement/replicaScheduling/weightPreference/dynamicWeight",
     "spec.placement.replicaScheduling.weightPreference.dynamicWeight"},
    {"/spec/association", "spec.association"},
    {"/spec/dependentOverrides", "spec.dependentOverrides"},
    {"/spec/failover", "spec.failover"},
    {"/spec/activationPreference", "spec.activationPreference"},
    {"/spec/suspension", "spec.suspension"},
};

StatusCause notSupported(const std::string& path) {
  return {"FieldValueForbidden", "Forbidden: not supported by fedhpa (see docs/karmada.md)", path};
}

void validateLabelSelector(const json& selector, const std::string& path, std::vector<StatusCause>& causes) {
  if (selector.is_null()) return;
  try {
    (void)machinery::LabelSelector::fromJson(selector);
  } catch (const std::exception& error) {
    causes.push_back(fieldInvalid(path, selector, error.what()));
  }
}

void validateClusterAffinity(const json& affinity, const std::string& path, std::vector<StatusCause>& causes) {
  if (!affinity.is_object()) return;
  validateLabelSelector(affinity.value("labelSelector", json()), path + ".labelSelector", causes);
  if (affinity.contains("fieldSelector") && !affinity["fieldSelector"].is_null())
    causes.push_back(notSupported(path + ".fieldSelector"));
}

class PropagationPolicyType : public BasicResourceType {
 public:
  explicit PropagationPolicyType(bool clusterScoped)
      : BasicResourceType(
            ResourceNames{kPolicyGroup, {kPolicyVersion}, kPolicyVersion,
                          clusterScoped ? "ClusterPropagationPolicy" : "PropagationPolicy",
                          clusterScoped ? "clusterpropagationpolicies" : "propagationpolicies",
                          clusterScoped ? "clusterpropagationpolicy" : "propagationpolicy", !clusterScoped,
                          {clusterScoped ? "cpp" : "pp"}, {"karmada-io"}, allVerbs(),
                          {{"status", kPolicyGroup, kPolicyVersion, clusterScoped ? "ClusterPropagationPolicy" : "PropagationPolicy"}}},
            {{kPolicyVersion, topLevel({{"spec", propagationSpecSchema().describe(
                                                    "Which objects the policy selects and where they go.")},
                                        {"status", propagationStatusSchema()}})
                                  .describe(clusterScoped
                                                ? "Karmada's ClusterPropagationPolicy: places the selected objects of every "
                                                  "namespace on member clusters; a PropagationPolicy that matches wins."
                                                : "Karmada's PropagationPolicy: places the selected objects of its namespace on "
                                                  "member clusters and says how a federated HPA's limits are split there.")}},
            NameRule::DnsSubdomain) {}

  // Karmada's CRD defaults.
  void applyDefaults(json& internal) const override {
    if (!internal["spec"].is_object()) internal["spec"] = json::object();
    json& spec = internal["spec"];
    if (!spec.contains("priority")) spec["priority"] = 0;
    if (!spec.contains("conflictResolution")) spec["conflictResolution"] = "Abort";
    if (!spec.contains("preemption")) spec["preemption"] = "Never";
    if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
    if (spec.contains("placement") && spec["placement"].is_object()) {
      json& placement = spec["placement"];
      if (placement.contains("replicaScheduling") && placement["replicaScheduling"].is_object() &&
          !placement["replicaScheduling"].contains("replicaSchedulingType"))
        placement["replicaScheduling"]["replicaSchedulingType"] = "Divided";
    }
  }

  // Karmada's CRD schema and webhook rules for the fields fedhpa supports; a 422 naming each
  // Karmada field fedhpa does not act on.
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json spec = internal.value("spec", json::object());
    const json selectors = spec.value("resourceSelectors", json::array());
    if (!selectors.is_array() || selectors.empty()) causes.push_back(fieldRequired("spec.resourceSelectors"));
    for (std::size_t i = 0; selectors.is_array() && i < selectors.size(); ++i) {
      const std::string path = "spec.resourceSelectors[" + std::to_string(i) + "]";
      const json& selector = selectors[i];
      if (!selector.is_object()) continue;
      if (selector.value("apiVersion", "").empty()) causes.push_back(fieldRequired(path + ".apiVersion"));
      if (selector.value("kind", "").empty()) causes.push_back(fieldRequired(path + ".kind"));
      validateLabelSelector(selector.value("labelSelector", json()), path + ".labelSelector", causes);
    }
    const json placement = spec.value("placement", json::object());
    validateClusterAffinity(placement.value("clusterAffinity", json()), "spec.placement.clusterAffinity", causes);
    const json scheduling = placement.value("replicaScheduling", json::object());
    if (const json type = scheduling.value("replicaSchedulingType", json()); !type.is_null() && type != "Duplicated" && type != "Divided")
      causes.push_back(fieldNotSupported("spec.placement.replicaScheduling.replicaSchedulingType", type, {"Divided", "Duplicated"}));
    if (const json preference = scheduling.value("replicaDivisionPreference", json());
        !preference.is_null() && preference != "Aggregated" && preference != "Weighted")
      causes.push_back(
          fieldNotSupported("spec.placement.replicaScheduling.replicaDivisionPreference", preference, {"Aggregated", "Weighted"}));
    const json weights = scheduling.value("weightPreference", json::object()).value("staticWeightList", json::array());
    for (std::size_t i = 0; weights.is_array() && i < weights.size(); ++i) {
      const std::string path = "spec.placement.replicaScheduling.weightPreference.staticWeightList[" + std::to_string(i) + "]";
      const json& entry = weights[i];
      if (!entry.is_object()) continue;
      if (!entry.contains("targetCluster")) causes.push_back(fieldRequired(path + ".targetCluster"));
      validateClusterAffinity(entry.value("targetCluster", json()), path + ".targetCluster", causes);
      const auto weight = integerAt(entry, "/weight"_json_pointer);
      if (!entry.contains("weight")) causes.push_back(fieldRequired(path + ".weight"));
      else if (weight && *weight < 1) causes.push_back(fieldInvalid(path + ".weight", *weight, "must be greater than or equal to 1"));
    }
    if (const json resolution = spec.value("conflictResolution", json()); !resolution.is_null() && resolution != "Abort")
      causes.push_back(resolution == "Overwrite" ? notSupported("spec.conflictResolution")
                                                 : fieldNotSupported("spec.conflictResolution", resolution, {"Abort", "Overwrite"}));
    if (const json preemption = spec.value("preemption", json()); !preemption.is_null() && preemption != "Never")
      causes.push_back(preemption == "Always" ? notSupported("spec.preemption")
                                              : fieldNotSupported("spec.preemption", preemption, {"Always", "Never"}));
    if (const json scheduler = spec.value("schedulerName", json()); !scheduler.is_null() && scheduler != "default-scheduler")
      causes.push_back(notSupported("spec.schedulerName"));
    if (spec.value("preserveResourcesOnDeletion", json()) == true) causes.push_back(notSupported("spec.preserveResourcesOnDeletion"));
    for (const auto& field : kRefusedFields)
      if (const json::json_pointer pointer(field.pointer); internal.contains(pointer) && !internal.at(pointer).is_null())
        causes.push_back(notSupported(field.path));
    return causes;
  }

  // Karmada's printer columns.
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            {"Conflict-Resolution", "string", "", "How an object that already exists on a member is handled.", 0},
            {"Priority", "string", "", "Which policy wins when several match an object: the higher.", 0},
            ageColumn(),
            {"Placed", "string", "", "Which objects the policy governs and the Ready member clusters each is on.", 1}};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    const auto priority = integerAt(internal, "/spec/priority"_json_pointer);
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/spec/conflictResolution"),
                        priority ? std::to_string(*priority) : std::string(), ageOf(internal, now),
                        placedSummary(internal)});
  }
};

}  // namespace

std::shared_ptr<const ResourceType> propagationPolicyType() { return std::make_shared<PropagationPolicyType>(false); }
std::shared_ptr<const ResourceType> clusterPropagationPolicyType() { return std::make_shared<PropagationPolicyType>(true); }

}  // namespace fedhpa::api
