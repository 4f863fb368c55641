#include "federation/controller/object_propagation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "federation/api/machinery/patch.h"
#include "federation/controller/cluster_selector.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/object_fields.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::ClientError;

const clusters::Resource kConfigMaps{"", "v1", "configmaps", true};
const clusters::Resource kServices{"", "v1", "services", true};

std::vector<clusters::Resource> propagatedObjects() { return {kConfigMaps, kServices}; }

namespace {

// The federation's own namespace holds its state (member credentials in Secrets): nothing there
// is propagated.
constexpr const char* kFederationNamespace = "federation-system";

bool synced(const Member& member, const clusters::Resource& resource) {
  const clusters::Lister* copies = copiesOf(member, resource);
  return copies && copies->hasSynced();
}

// Everything but what the API server owns: the object's content, as written and compared.
json contentOf(const json& object) {
  json content = object;
  for (const char* key : {"apiVersion", "kind", "metadata", "status"}) content.erase(key);
  return content;
}

// The merge patch that makes the member's copy `desired` where fedhpa owns it (the content and the
// labels), conditional on the resourceVersion the copy was read at; nullopt when nothing differs.
// What the patch does not name stays the member's: annotations other controllers set, status,
// and what the cache never held.
std::optional<json> copyPatch(const json& local, const json& desired) {
  const json content = api::machinery::createMergePatch(contentOf(local), contentOf(desired));
  const json labels = api::machinery::createMergePatch(local["metadata"].value("labels", json::object()),
                                                       desired["metadata"].value("labels", json::object()));
  if (content.empty() && labels.empty()) return std::nullopt;
  json patch = labels.empty() ? conditionalPatch(local) : conditionalPatch(local, {{"labels", labels}});
  patch.update(content);
  return patch;
}

json podTemplateSpec(const json& deployment) {
  const json spec = deployment.value("spec", json::object());
  return spec.value("template", json::object()).value("spec", json::object());
}

}  // namespace

std::optional<std::set<std::string>> healthySelected(const json& object, const std::vector<Member>& members,
                                                     const std::optional<Placement>& policy, const std::string& what) {
  std::set<std::string> placed;
  const std::string selector = annotationOf(object, kClusterSelectorAnnotation);
  try {
    for (const auto& member : members)
      if (member.health == MemberHealth::Healthy && clusterSelected(selector, member.labels) &&
          (!policy || policy->placesOn(member.name, member.labels)))
        placed.insert(member.name);
  } catch (const SelectorError& error) {
    FEDHPA_LOG(warning) << what << " " << clusters::objectKey(object) << ": " << error.what();
    return std::nullopt;
  }
  return placed;
}

std::optional<json> managedCopy(const Member& member, const clusters::Resource& resource, const std::string& ns,
                                const std::string& name) {
  const clusters::Lister* copies = copiesOf(member, resource);
  auto local = copies ? copies->get(ns, name) : std::nullopt;
  if (local && !managedByUs(*local)) local.reset();
  return local;
}

void throwFirstMemberFailure(const std::vector<MemberCall>& calls, const std::vector<MemberCallOutcome>& outcomes,
                             ControllerMetrics& metrics) {
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].ok() || outcomes[i].error->kind() == ClientError::Kind::NotFound) continue;
    metrics.countMemberError(calls[i].member);
    throw *outcomes[i].error;
  }
}

const clusters::Lister* copiesOf(const Member& member, const clusters::Resource& resource) {
  if (resource.resource == kDeployments.resource) return member.deployments.get();
  if (resource.resource == kHpas.resource) return member.hpas.get();
  const auto it = member.copies.find(resource.resource);
  return it == member.copies.end() ? nullptr : it->second.get();
}

std::optional<Placement> deploymentPolicy(const json& deployment, const PolicyCaches* policies) {
  const auto governing = policies ? policies->placementFor(refOf(deployment, "apps/v1", "Deployment")) : std::nullopt;
  return effectivePlacement(governing, deployment);
}

std::optional<std::set<std::string>> deploymentPlacement(const json& deployment, const std::vector<Member>& members,
                                                         const std::optional<Placement>& policy) {
  std::set<std::string> placed;
  const std::string targetList = annotationOf(deployment, kHpaTargetClusterListAnnotation);
  if (!targetList.empty()) {
    const json parsed = json::parse(targetList, nullptr, false);
    for (const auto& cluster : parsed.is_object() ? parsed.value("Names", json::array()) : json::array())
      if (cluster.is_string()) placed.insert(cluster.get<std::string>());
    return placed;
  }
  auto selected = healthySelected(deployment, members, policy, "deployment");
  if (!selected || !policy || !policy->staticWeights) return selected;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> weighed;
  for (const auto& member : members)
    if (selected->count(member.name)) weighed.emplace_back(member.name, member.labels);
  for (const auto& [cluster, weight] : policy->weightsOf(weighed))
    if (weight == 0) selected->erase(cluster);
  return selected;
}

std::optional<std::set<std::string>> deploymentPlacement(const json& deployment, const std::vector<Member>& members,
                                                         const PolicyCaches* policies) {
  return deploymentPlacement(deployment, members, deploymentPolicy(deployment, policies));
}

bool usesConfigMap(const json& deployment, const std::string& name) {
  const json pod = podTemplateSpec(deployment);
  const auto named = [&](const json& reference) { return reference.is_object() && reference.value("name", "") == name; };
  for (const auto& volume : pod.value("volumes", json::array())) {
    if (!volume.is_object()) continue;
    if (named(volume.value("configMap", json()))) return true;
    for (const auto& source : volume.value("projected", json::object()).value("sources", json::array()))
      if (source.is_object() && named(source.value("configMap", json()))) return true;
  }
  for (const char* list : {"containers", "initContainers"})
    for (const auto& container : pod.value(list, json::array())) {
      if (!container.is_object()) continue;
      for (const auto& from : container.value("envFrom", json::array()))
        if (from.is_object() && named(from.value("configMapRef", json()))) return true;
      for (const auto& env : container.value("env", json::array()))
        if (env.is_object() && named(env.value("valueFrom", json::object()).value("configMapKeyRef", json()))) return true;
    }
  return false;
}

bool selectsPodsOf(const json& service, const json& deployment) {
  const json selector = service.value("spec", json::object()).value("selector", json::object());
  if (!selector.is_object() || selector.empty()) return false;
  const json labels =
      deployment.value("spec", json::object()).value("template", json::object()).value("metadata", json::object()).value("labels", json::object());
  for (const auto& [key, value] : selector.items())
    if (!labels.is_object() || labels.value(key, json()) != value) return false;
  return true;
}

// As for HPAs: every reachable copy deleted (or orphaned), and the finalizer kept while a member
// that may hold one cannot be reached.
void finalizeCopies(ReconcilerContext& context, const clusters::Resource& resource, const json& federated,
                    const std::vector<Member>& members) {
  if (!hasFinalizer(federated, kFederationFinalizer)) return;
  const bool orphan = hasFinalizer(federated, "orphan");
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  std::vector<MemberCall> calls;
  std::string waitingFor;
  for (const auto& member : members) {
    const bool isSynced = synced(member, resource);
    const auto local = managedCopy(member, resource, ns, name);
    if (member.health != MemberHealth::Healthy || !isSynced) {
      if (local || !isSynced) waitingFor += (waitingFor.empty() ? "" : ", ") + member.name;
      continue;
    }
    if (!local) continue;
    auto client = member.client;
    if (orphan) {
      const json released = releasedPatch(*local);  // conditional on the resourceVersion it was read at
      calls.push_back({member.name, [=] { return client->mergePatch(resource, ns, name, released); }});
    } else {
      const std::string version = metaField(*local, "resourceVersion");
      calls.push_back({member.name, [=] { return client->remove(resource, ns, name, "", version); }});
    }
  }
  throwFirstMemberFailure(calls, context.calls.callAll(calls), context.metrics);
  for (std::size_t i = 0; i < calls.size(); ++i) context.metrics.countMemberWrite(orphan ? "orphan" : "delete");
  if (!waitingFor.empty()) {
    context.events.record(federated, "Warning", "WaitingForMembers",
                          "deletion waits until these members can be reached: " + waitingFor);
    throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "deletion of " + ns + "/" + name + " waits for " + waitingFor);
  }
  context.federation.mergePatch(resource, ns, name, withoutFederationFinalizer(federated));
}

ObjectPropagator::ObjectPropagator(ReconcilerContext context, clusters::Resource resource, const clusters::Lister& federated,
                                   const clusters::Informer& deployments)
    : context_(context), resource_(std::move(resource)), federated_(federated), deployments_(deployments) {}

std::optional<std::set<std::string>> ObjectPropagator::placement(const json& federated,
                                                                 const std::vector<Member>& members) const {
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  const bool isConfigMap = resource_.resource == kConfigMaps.resource;
  if (const auto policy = effectivePlacement(governing(federated), federated))
    return healthySelected(federated, members, policy, resource_.resource);
  bool used = false;
  std::set<std::string> placed;
  for (const auto& deployment : deployments_.listNamespace(ns)) {
    if (!metaField(deployment, "deletionTimestamp").empty()) continue;
    const bool uses = isConfigMap ? usesConfigMap(deployment, name) : selectsPodsOf(federated, deployment);
    if (!uses) continue;
    used = true;
    // A Deployment whose selector does not parse is placed nowhere; its objects follow it.
    if (const auto where = deploymentPlacement(deployment, members, context_.policies)) placed.insert(where->begin(), where->end());
  }
  if (used) return placed;
  return healthySelected(federated, members, std::nullopt, resource_.resource);
}

std::optional<Placement> ObjectPropagator::governing(const json& federated) const {
  if (!context_.policies) return std::nullopt;
  return context_.policies->placementFor(refOf(federated, "v1", resource_.resource == kConfigMaps.resource ? "ConfigMap" : "Service"));
}

json ObjectPropagator::desiredCopy(const json& federated, const std::optional<json>& local) const {
  json copy = contentOf(federated);
  json labels = federated["metadata"].value("labels", json::object());
  labels[kManagedByLabel] = kManagedByValue;
  copy["apiVersion"] = "v1";
  copy["kind"] = federated.value("kind", "");
  copy["metadata"] = {{"name", metaField(federated, "name")}, {"namespace", metaField(federated, "namespace")}, {"labels", labels}};
  if (resource_.resource != kServices.resource || !local) return copy;
  // What a member allocates for its copy stays the member's: its cluster IPs and IP families, the
  // node ports the federated Service leaves open, its health check port; those only while the
  // Service's type still has them (a member refuses a ClusterIP Service with node ports).
  const json localSpec = local->value("spec", json::object());
  json& spec = copy["spec"];
  const std::string type = spec.value("type", "ClusterIP");
  const bool localAddressed = localSpec.value("type", "ClusterIP") != "ExternalName";
  if (type != "ExternalName" && localAddressed)
    for (const char* allocated : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"})
      if (!spec.contains(allocated) && localSpec.contains(allocated)) spec[allocated] = localSpec[allocated];
  const bool nodePorts = type == "NodePort" || (type == "LoadBalancer" && spec.value("allocateLoadBalancerNodePorts", true));
  if (type == "LoadBalancer" && spec.value("externalTrafficPolicy", "") == "Local" && !spec.contains("healthCheckNodePort") &&
      localSpec.contains("healthCheckNodePort"))
    spec["healthCheckNodePort"] = localSpec["healthCheckNodePort"];
  if (nodePorts && spec.contains("ports") && spec["ports"].is_array())
    for (auto& port : spec["ports"]) {
      if (!port.is_object() || port.contains("nodePort")) continue;
      for (const auto& localPort : localSpec.value("ports", json::array()))
        if (localPort.is_object() && localPort.value("port", json()) == port.value("port", json()) &&
            localPort.value("protocol", json("TCP")) == port.value("protocol", json("TCP")) && localPort.contains("nodePort"))
          port["nodePort"] = localPort["nodePort"];
    }
  return copy;
}

void ObjectPropagator::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  if (ns == kFederationNamespace) return;
  auto cached = federated_.get(ns, name);
  if (!cached) return;
  auto members = context_.members.members();
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  if (!metaField(*cached, "deletionTimestamp").empty()) {
    finalizeCopies(context_, resource_, *cached, members);
    return;
  }
  json federated = *cached;
  if (!hasFinalizer(federated, kFederationFinalizer))
    federated = context_.federation.mergePatch(resource_, ns, name, finalizerPatch(federated, kFederationFinalizer, true));
  if (const auto retain = retainPlacementPatch(federated, governing(federated)))
    federated = context_.federation.mergePatch(resource_, ns, name, *retain);
  const auto placed = placement(federated, members);
  if (!placed) return;

  std::vector<MemberCall> calls;
  for (const auto& member : members) {
    // Only members whose cache can be trusted are written; the others are left as they are.
    if (member.health != MemberHealth::Healthy || !synced(member, resource_)) continue;
    const auto local = managedCopy(member, resource_, ns, name);
    auto client = member.client;
    const auto resource = resource_;
    if (!placed->count(member.name)) {
      if (local) {
        const std::string version = metaField(*local, "resourceVersion");
        calls.push_back({member.name, [=] { return client->remove(resource, ns, name, "", version); }});
      }
      continue;
    }
    const json copy = desiredCopy(federated, local);
    if (!local) {
      calls.push_back({member.name, [=] { return client->create(resource, ns, copy); }});
    } else if (const auto changed = copyPatch(*local, copy)) {
      calls.push_back({member.name, [=] { return client->mergePatch(resource, ns, name, *changed); }});
    }
  }
  throwFirstMemberFailure(calls, context_.calls.callAll(calls), context_.metrics);
  for (std::size_t i = 0; i < calls.size(); ++i) context_.metrics.countMemberWrite(resource_.resource);
}

}  // namespace fedhpa::controller
