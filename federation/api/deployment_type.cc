// apps/v1 Deployment: federated like kubefed v1's, the target of `kubectl autoscale`.
#include "federation/api/basic_resource_type.h"
#include "federation/api/machinery/selectors.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

Schema container() {
  const Schema keyValue = Schema::object(
      {{"name", Schema::string().describe("The variable's name.")},
       {"value", Schema::string().describe("The variable's value; $(OTHER) refers to an earlier variable.")},
       {"valueFrom",
        Schema::any().describe("Where to read the value from instead (a field, resource, ConfigMap or Secret key).")}});
  const Schema port =
      Schema::object({{"name", Schema::string().describe("A name for the port, unique in the pod, that Services can refer to.")},
                      {"containerPort", Schema::integer().describe("The port number the container listens on.")},
                      {"hostPort", Schema::integer().describe("The node's port to expose it on, if any.")},
                      {"hostIP", Schema::string().describe("The node address to bind the host port to.")},
                      {"protocol", Schema::string().describe("TCP (default), UDP or SCTP.")}});
  return Schema::object(
      {{"name", Schema::string().describe("The container's name, unique within the pod.")},
       {"image", Schema::string().describe("The container image to run.")},
       {"command", Schema::arrayOf(Schema::string()).describe("Replaces the image's entrypoint.")},
       {"args", Schema::arrayOf(Schema::string()).describe("Arguments to the entrypoint; replace the image's default ones.")},
       {"workingDir", Schema::string().describe("The directory the command starts in.")},
       {"ports", Schema::arrayOf(port).describe("Ports the container exposes (informational, except for host ports).")},
       {"env", Schema::arrayOf(keyValue).keyedBy({"name"}).describe("Environment variables to set.")},
       {"envFrom",
        Schema::arrayOf(Schema::any()).describe("ConfigMaps and Secrets whose keys all become environment variables.")},
       {"resources",
        Schema::any().describe("CPU and memory requests and limits; utilization metrics are relative to the requests.")},
       {"volumeMounts", Schema::arrayOf(Schema::any()).describe("Where the pod's volumes appear in this container.")},
       {"livenessProbe", Schema::any().describe("A check whose failure restarts the container.")},
       {"readinessProbe", Schema::any().describe("A check whose failure takes the pod out of Service endpoints.")},
       {"startupProbe", Schema::any().describe("A check the other probes wait for while the container starts.")},
       {"lifecycle", Schema::any().describe("Hooks run after the container starts and before it stops.")},
       {"terminationMessagePath", Schema::string().describe("The file whose content becomes the termination message.")},
       {"terminationMessagePolicy",
        Schema::string().describe("File, or FallbackToLogsOnError to use the log tail when the file is empty.")},
       {"imagePullPolicy", Schema::string().describe("Always, Never or IfNotPresent.")},
       {"securityContext", Schema::any().describe("Security settings for this container (user, capabilities, privilege).")},
       {"stdin", Schema::boolean().describe("Whether to keep a stdin buffer open for the container.")},
       {"tty", Schema::boolean().describe("Whether the container gets a TTY (needs stdin).")}});
}

Schema deploymentSchema() {
  const Schema podSpec = Schema::object(
      {{"containers", Schema::arrayOf(container()).keyedBy({"name"}).describe("The pod's containers (at least one).")},
       {"initContainers",
        Schema::arrayOf(container())
            .keyedBy({"name"})
            .describe("Containers run to completion, one after the other, before the others start.")},
       {"volumes", Schema::arrayOf(Schema::any()).describe("Volumes the containers can mount.")},
       {"restartPolicy", Schema::string().describe("Always, the only value a Deployment's pods accept.")},
       {"terminationGracePeriodSeconds", Schema::int64().describe("Seconds a stopping pod gets between TERM and KILL.")},
       {"dnsPolicy", Schema::string().describe("How the pod's DNS is set up (ClusterFirst by default).")},
       {"nodeSelector", Schema::mapOf(Schema::string()).describe("Labels a node must have to run the pod.")},
       {"serviceAccountName", Schema::string().describe("The service account the pod runs as.")},
       {"securityContext", Schema::any().describe("Security settings for every container of the pod.")},
       {"schedulerName", Schema::string().describe("The scheduler to place the pod.")},
       {"affinity", Schema::any().describe("Rules about which nodes, and next to which pods, the pod may run.")},
       {"tolerations", Schema::arrayOf(Schema::any()).describe("Node taints the pod accepts.")},
       {"imagePullSecrets",
        Schema::arrayOf(Schema::any()).describe("Secrets with registry credentials for pulling the images.")}});
  const Schema podMeta =
      Schema::object({{"labels", Schema::mapOf(Schema::string()).describe("Labels of each pod; must match spec.selector.")},
                      {"annotations", Schema::mapOf(Schema::string()).describe("Annotations of each pod.")},
                      {"name", Schema::string().describe("Ignored: pods get generated names.")},
                      {"creationTimestamp", Schema::any().describe("Ignored; present in some generated manifests.")}});
  Schema schema = topLevel(
      {{"spec",
        Schema::object(
            {{"replicas", Schema::integer().describe(
                              "Pods wanted over all member clusters (default 1). fedhpa splits it evenly among the "
                              "members; when a federated HPA targets the Deployment, the members' HPAs decide instead.")},
             {"selector",
              labelSelectorSchema().describe("Which pods belong to the Deployment; must match the template's labels.")},
             {"template", Schema::object({{"metadata", podMeta.describe("Labels and annotations of each pod.")},
                                          {"spec", podSpec.describe("What each pod runs.")}})
                              .describe("The pods to create; copied unchanged to the member clusters.")},
             {"strategy", Schema::any().describe("How pods are replaced on a change: RollingUpdate (default) or Recreate.")},
             {"minReadySeconds", Schema::integer().describe("Seconds a new pod must be ready before it counts as available.")},
             {"revisionHistoryLimit", Schema::integer().describe("How many old ReplicaSets to keep for rollbacks.")},
             {"paused", Schema::boolean().describe("Stops rollouts of template changes while true.")},
             {"progressDeadlineSeconds",
              Schema::integer().describe("Seconds without progress after which the rollout counts as failed.")}})
            .describe("The desired workload, for the whole federation.")},
       {"status",
        Schema::object(
            {{"observedGeneration", Schema::int64().describe("The metadata.generation this status was computed for.")},
             {"replicas", Schema::integer().describe("Pods (in the federation: summed over the member clusters).")},
             {"updatedReplicas", Schema::integer().describe("Pods running the current template (summed over the members).")},
             {"readyReplicas", Schema::integer().describe("Ready pods (summed over the members).")},
             {"availableReplicas",
              Schema::integer().describe("Pods ready for at least minReadySeconds (summed over the members).")},
             {"unavailableReplicas", Schema::integer().describe("Pods still missing to reach the wanted count.")},
             {"collisionCount", Schema::integer().describe("Counts ReplicaSet name collisions, to make new names unique.")},
             {"conditions", conditionsSchema().describe("Available and Progressing.")}})
            .describe("What the pods do now. In the federation fedhpa fills in the replica counts, added up over the member "
                      "clusters. Read-only.")}});
  schema.properties.at("metadata").properties.at("annotations").description =
      "Free-form key/value data. fedhpa reads federation.alpha.kubernetes.io/cluster-selector (kubefed v1's JSON list "
      "of {key, operator, values} over Cluster labels) and writes federation.kubernetes.io/hpa-target-cluster-list, "
      "the members a federated HPA targeting this Deployment is on: the Deployment goes exactly there.";
  return schema.describe(
      "A replicated, rolling-updated set of pods. Created in the federation, fedhpa copies it to the "
      "member clusters and spreads its replicas (or leaves them to the members' HPAs).");
}

std::string joined(const json& containers, const char* field) {
  std::string out;
  for (const auto& c : containers) {
    if (!out.empty()) out += ',';
    out += c.value(field, std::string());
  }
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
