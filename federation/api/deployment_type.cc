// apps/v1 Deployment: federated like kubefed v1's, the target of `kubectl autoscale`.
#include "federation/api/basic_resource_type.h"
#include "federation/api/machinery/selectors.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

Schema container() {
  const Schema keyValue = Schema::object({{"name", Schema::string()}, {"value", Schema::string()}, {"valueFrom", Schema::any()}});
  return Schema::object({{"name", Schema::string()},
                         {"image", Schema::string()},
                         {"command", Schema::arrayOf(Schema::string())},
                         {"args", Schema::arrayOf(Schema::string())},
                         {"workingDir", Schema::string()},
                         {"ports", Schema::arrayOf(Schema::object({{"name", Schema::string()},
                                                                   {"containerPort", Schema::integer()},
                                                                   {"hostPort", Schema::integer()},
                                                                   {"hostIP", Schema::string()},
                                                                   {"protocol", Schema::string()}}))},
                         {"env", Schema::arrayOf(keyValue).keyedBy({"name"})},
                         {"envFrom", Schema::arrayOf(Schema::any())},
                         {"resources", Schema::any()},
                         {"volumeMounts", Schema::arrayOf(Schema::any())},
                         {"livenessProbe", Schema::any()},
                         {"readinessProbe", Schema::any()},
                         {"startupProbe", Schema::any()},
                         {"lifecycle", Schema::any()},
                         {"terminationMessagePath", Schema::string()},
                         {"terminationMessagePolicy", Schema::string()},
                         {"imagePullPolicy", Schema::string()},
                         {"securityContext", Schema::any()},
                         {"stdin", Schema::boolean()},
                         {"tty", Schema::boolean()}});
}

Schema deploymentSchema() {
  const Schema podSpec = Schema::object({{"containers", Schema::arrayOf(container()).keyedBy({"name"})},
                                         {"initContainers", Schema::arrayOf(container()).keyedBy({"name"})},
                                         {"volumes", Schema::arrayOf(Schema::any())},
                                         {"restartPolicy", Schema::string()},
                                         {"terminationGracePeriodSeconds", Schema::int64()},
                                         {"dnsPolicy", Schema::string()},
                                         {"nodeSelector", Schema::mapOf(Schema::string())},
                                         {"serviceAccountName", Schema::string()},
                                         {"securityContext", Schema::any()},
                                         {"schedulerName", Schema::string()},
                                         {"affinity", Schema::any()},
                                         {"tolerations", Schema::arrayOf(Schema::any())},
                                         {"imagePullSecrets", Schema::arrayOf(Schema::any())}});
  const Schema podMeta = Schema::object({{"labels", Schema::mapOf(Schema::string())},
                                         {"annotations", Schema::mapOf(Schema::string())},
                                         {"name", Schema::string()},
                                         {"creationTimestamp", Schema::any()}});
  return topLevel(
      {{"spec", Schema::object({{"replicas", Schema::integer()},
                                {"selector", labelSelectorSchema()},
                                {"template", Schema::object({{"metadata", podMeta}, {"spec", podSpec}})},
                                {"strategy", Schema::any()},
                                {"minReadySeconds", Schema::integer()},
                                {"revisionHistoryLimit", Schema::integer()},
                                {"paused", Schema::boolean()},
                                {"progressDeadlineSeconds", Schema::integer()}})},
       {"status", Schema::object({{"observedGeneration", Schema::int64()},
                                  {"replicas", Schema::integer()},
                                  {"updatedReplicas", Schema::integer()},
                                  {"readyReplicas", Schema::integer()},
                                  {"availableReplicas", Schema::integer()},
                                  {"unavailableReplicas", Schema::integer()},
                                  {"collisionCount", Schema::integer()},
                                  {"conditions", conditionsSchema()}})}});
}

std::string joined(const json& containers, const char* field) {
  std::string out;
  for (const auto& c : containers) out += (out.empty() ? "" : ",") + c.value(field, std::string());
  return out;
}

class DeploymentType : public BasicResourceType {
 public:
  DeploymentType()
      : BasicResourceType(ResourceNames{"apps", {"v1"}, "v1", "Deployment", "deployments", "deployment", true, {"deploy"},
                                        {"all"}, allVerbs(),
                                        {{"scale", "autoscaling", "v1", "Scale"}, {"status", "apps", "v1", "Deployment"}}},
                          {{"v1", deploymentSchema()}}, NameRule::DnsSubdomain) {}

  void applyDefaults(json& internal) const override {
    json& spec = internal["spec"];
    if (!spec.is_object()) spec = json::object();
    if (!spec.contains("replicas")) spec["replicas"] = 1;
    if (!spec.contains("strategy"))
      spec["strategy"] = {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}};
    if (!spec.contains("revisionHistoryLimit")) spec["revisionHistoryLimit"] = 10;
    if (!spec.contains("progressDeadlineSeconds")) spec["progressDeadlineSeconds"] = 600;
    json& podSpec = spec["template"]["spec"];
    if (!podSpec.is_object()) podSpec = json::object();
    if (!podSpec.contains("restartPolicy")) podSpec["restartPolicy"] = "Always";
    if (!podSpec.contains("terminationGracePeriodSeconds")) podSpec["terminationGracePeriodSeconds"] = 30;
    if (!podSpec.contains("dnsPolicy")) podSpec["dnsPolicy"] = "ClusterFirst";
    if (podSpec.contains("containers") && podSpec["containers"].is_array())
      for (auto& c : podSpec["containers"]) {
        if (!c.is_object()) continue;
        if (!c.contains("imagePullPolicy"))
          c["imagePullPolicy"] = c.value("image", "").find(":latest") != std::string::npos ||
                                         c.value("image", "").find(':') == std::string::npos
                                     ? "Always"
                                     : "IfNotPresent";
        if (!c.contains("terminationMessagePath")) c["terminationMessagePath"] = "/dev/termination-log";
        if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
      }
  }

  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json spec = internal.value("spec", json::object());
    const auto replicas = integerAt(internal, "/spec/replicas"_json_pointer);
    if (replicas && *replicas < 0)
      causes.push_back(fieldInvalid("spec.replicas", *replicas, "must be greater than or equal to 0"));
    const json selector = spec.value("selector", json());
    if (!selector.is_object() || selector.empty()) {
      causes.push_back(fieldRequired("spec.selector"));
    } else {
      try {
        const auto parsed = machinery::LabelSelector::fromJson(selector);
        std::map<std::string, std::string> labels;
        const json templateLabels = spec.value("template", json::object()).value("metadata", json::object()).value("labels", json::object());
        for (const auto& [key, value] : templateLabels.items())
          if (value.is_string()) labels[key] = value.get<std::string>();
        if (!parsed.matches(labels))
          causes.push_back(fieldInvalid("spec.template.metadata.labels", templateLabels,
                                        "`selector` does not match template `labels`"));
      } catch (const machinery::SelectorError& error) {
        causes.push_back(fieldInvalid("spec.selector", selector, error.what()));
      }
    }
    const json containers = spec.value("template", json::object()).value("spec", json::object()).value("containers", json::array());
    if (containers.empty()) causes.push_back(fieldRequired("spec.template.spec.containers"));
    for (std::size_t i = 0; i < containers.size(); ++i) {
      const std::string path = "spec.template.spec.containers[" + std::to_string(i) + "]";
      if (containers[i].value("name", "").empty()) causes.push_back(fieldRequired(path + ".name"));
      if (containers[i].value("image", "").empty()) causes.push_back(fieldRequired(path + ".image"));
    }
    return causes;
  }

  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            {"Ready", "string", "", "Number of the pod with ready state", 0},
            {"Up-to-date", "string", "", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0},
            {"Available", "string", "", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0},
            ageColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1}};
  }

  json tableCells(const json& internal, Clock::time_point now) const override {
    const json containers =
        internal.value("spec", json::object()).value("template", json::object()).value("spec", json::object()).value("containers", json::array());
    std::string selector;
    const json matchLabels = internal.value("spec", json::object()).value("selector", json::object()).value("matchLabels", json::object());
    for (const auto& [key, value] : matchLabels.items())
      selector += (selector.empty() ? "" : ",") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    const auto status = [&](const char* field) { return integerAt(internal, json::json_pointer(std::string("/status/") + field)).value_or(0); };
    return json::array({stringAt(internal, "/metadata/name"),
                        std::to_string(status("readyReplicas")) + "/" + std::to_string(integerAt(internal, "/spec/replicas"_json_pointer).value_or(0)),
                        status("updatedReplicas"), status("availableReplicas"), ageOf(internal, now),
                        joined(containers, "name"), joined(containers, "image"), selector.empty() ? "<none>" : selector});
  }

  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override {
    return {{"spec.template.spec.containers", "name"},      {"spec.template.spec.initContainers", "name"},
            {"spec.template.spec.containers.env", "name"},  {"spec.template.spec.containers.ports", "containerPort"},
            {"spec.template.spec.containers.volumeMounts", "mountPath"},
            {"spec.template.spec.volumes", "name"},         {"status.conditions", "type"},
            {"metadata.ownerReferences", "uid"}};
  }
};

}  // namespace

std::shared_ptr<const ResourceType> deploymentType() { return std::make_shared<DeploymentType>(); }

}  // namespace fedhpa::api
