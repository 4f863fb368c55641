// core v1 Namespace, Secret, Event and ServiceAccount, and coordination.k8s.io/v1 Lease.
#include "federation/api/basic_resource_type.h"
#include "federation/common/ascii.h"
#include "federation/api/karmada_types.h"
#include "federation/api/machinery/base64.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

Schema namespaceSchema() {
  const Schema spec = Schema::object(
      {{"finalizers",
        Schema::arrayOf(Schema::string()).describe("Cleanups that must finish before a deleted namespace is gone.")}});
  const Schema status = Schema::object({{"phase", Schema::string().describe("Active, or Terminating once deleted.")},
                                        {"conditions", conditionsSchema().describe("Why a deletion is not finished yet.")}});
  return topLevel({{"spec", spec.describe("What must happen when the namespace is deleted.")},
                   {"status", status.describe("The namespace's lifecycle. Read-only.")}})
      .describe("A named scope for objects; names are unique per kind within one.");
}

Schema secretSchema() {
  return topLevel(
             {{"type", Schema::string().describe("What the secret holds, e.g. Opaque (the default).")},
              {"immutable", Schema::boolean().describe("When true, data cannot change any more.")},
              {"data", Schema::mapOf(Schema::string()).describe("The secret's entries, base64-encoded.")},
              {"stringData",
               Schema::mapOf(Schema::string()).describe("Entries as plain text, merged into data on write; never read back.")}})
      .describe(
          "Small confidential data. fedhpa keeps each member cluster's kubeconfig in one, named by a Cluster's spec.secretRef.");
}

class NamespaceType : public BasicResourceType {
 public:
  NamespaceType()
      : BasicResourceType(ResourceNames{"", {"v1"}, "v1", "Namespace", "namespaces", "namespace", false, {"ns"}, {},
                                        {"create", "delete", "get", "list", "patch", "update", "watch"},
                                        {{"status", "", "v1", "Namespace"}}},
                          {{"v1", namespaceSchema()}},
                          NameRule::DnsLabel) {}
  void applyDefaults(json& internal) const override {
    if (!internal.contains("status") || !internal["status"].is_object()) internal["status"] = json::object();
    if (!internal["status"].contains("phase"))
      internal["status"]["phase"] = internal["metadata"].contains("deletionTimestamp") ? "Terminating" : "Active";
  }
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Status", "string", "", "The status of the namespace", 0}, ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/status/phase"), ageOf(internal, now)});
  }
};

class SecretType : public BasicResourceType {
 public:
  SecretType()
      : BasicResourceType(ResourceNames{"", {"v1"}, "v1", "Secret", "secrets", "secret", true, {}, {}, allVerbs(), {}},
                          {{"v1", secretSchema()}},
                          NameRule::DnsSubdomain) {}
  void applyDefaults(json& internal) const override {
    if (!internal.contains("type")) internal["type"] = "Opaque";
    // stringData is write-only: it lands in data, base64-encoded, as kube-apiserver does.
    if (internal.contains("stringData") && internal["stringData"].is_object()) {
      for (const auto& [key, value] : internal["stringData"].items())
        if (value.is_string()) internal["data"][key] = machinery::encodeBase64(value.get<std::string>());
      internal.erase("stringData");
    }
  }
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json data = internal.value("data", json::object());
    for (const auto& [key, value] : data.items())
      if (!value.is_string() || !machinery::isBase64(value.get<std::string>()))
        causes.push_back(fieldInvalid("data[" + key + "]", "<secret contents redacted>", "must be base64-encoded"));
    return causes;
  }
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Type", "string", "", "The type of the secret", 0},
            {"Data", "string", "", "The number of entries in the secret", 0}, ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/type"),
                        internal.value("data", json::object()).size(), ageOf(internal, now)});
  }
};

Schema serviceAccountSchema() {
  const Schema reference = Schema::object({{"name", Schema::string().describe("Name of the referent.")}});
  return topLevel({{"secrets", Schema::arrayOf(Schema::any()).describe("Secrets of legacy token credentials (none are made).")},
                   {"imagePullSecrets", Schema::arrayOf(reference).describe("Secrets for pulling the images of its pods.")},
                   {"automountServiceAccountToken",
                    Schema::boolean().describe("Whether its pods get a token mounted by default.")}})
      .describe("An identity for processes: its tokens come from the token subresource (a TokenRequest).");
}

// Served by the member-sim only: its token subresource is answered by the member-sim's issuer.
class ServiceAccountType : public BasicResourceType {
 public:
  ServiceAccountType()
      : BasicResourceType(ResourceNames{"", {"v1"}, "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", true, {"sa"},
                                        {}, allVerbs(), {{"token", "authentication.k8s.io", "v1", "TokenRequest", {"create"}}}},
                          {{"v1", serviceAccountSchema()}},
                          NameRule::DnsSubdomain) {}
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Secrets", "string", "", "The number of legacy token secrets", 0}, ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), internal.value("secrets", json::array()).size(),
                        ageOf(internal, now)});
  }
};

Schema objectReference() {
  return Schema::object({{"kind", Schema::string().describe("Kind of the object.")},
                         {"namespace", Schema::string().describe("Namespace of the object.")},
                         {"name", Schema::string().describe("Name of the object.")},
                         {"uid", Schema::string().describe("UID of the object.")},
                         {"apiVersion", Schema::string().describe("Group and version of the object.")},
                         {"resourceVersion", Schema::string().describe("The object's resourceVersion when the event happened.")},
                         {"fieldPath", Schema::string().describe("A part of the object the event is about, if not the whole.")}});
}

Schema eventSchema() {
  return topLevel({{"involvedObject", objectReference().describe("The object the event is about.")},
                   {"reason", Schema::string().describe("One CamelCase word for what happened, e.g. Rebalanced.")},
                   {"message", Schema::string().describe("What happened, for people.")},
                   {"source", Schema::object({{"component", Schema::string().describe("The reporting component.")},
                                              {"host", Schema::string().describe("The host it runs on.")}})
                                  .describe("Who reported the event.")},
                   {"firstTimestamp", Schema::any().describe("When the event first happened.")},
                   {"lastTimestamp", Schema::any().describe("When it last happened.")},
                   {"count", Schema::integer().describe("How many times it happened.")},
                   {"type", Schema::string().describe("Normal or Warning.")},
                   {"eventTime", Schema::any().describe("When the event happened, with microseconds.")},
                   {"series", Schema::any().describe("Count and last time of a repeating event.")},
                   {"action", Schema::string().describe("What was done, or failed, about the object.")},
                   {"related", objectReference().describe("A second object involved, if any.")},
                   {"reportingComponent",
                    Schema::string().describe("The controller that reported it, e.g. fedhpa-controller-manager.")},
                   {"reportingInstance", Schema::string().describe("The instance of that controller.")}})
      .describe(
          "A report that something happened to an object (fedhpa records its placement "
          "decisions as Events on the federated HPA); shown by kubectl describe.");
}

class EventType : public BasicResourceType {
 public:
  EventType()
      : BasicResourceType(
            ResourceNames{"", {"v1"}, "v1", "Event", "events", "event", true, {"ev"}, {}, allVerbs(), {}},
            {{"v1", eventSchema()}},
            NameRule::DnsSubdomain) {}
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    if (internal.value("involvedObject", json::object()).value("kind", "").empty())
      causes.push_back(fieldRequired("involvedObject.kind"));
    const std::string type = internal.value("type", "Normal");
    if (type != "Normal" && type != "Warning") causes.push_back(fieldNotSupported("type", type, {"Normal", "Warning"}));
    return causes;
  }
  std::vector<TableColumn> tableColumns() const override {
    return {{"Last Seen", "string", "", "Time since the event was last seen", 0},
            {"Type", "string", "", "Type of this event", 0},
            {"Reason", "string", "", "Short, machine understandable string that gives the reason for the transition", 0},
            {"Object", "string", "", "The object that this event is about", 0},
            {"Message", "string", "", "A human-readable description of the status of this operation", 0}};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    json stamped = internal;
    const std::string last = stringAt(internal, "/lastTimestamp", stringAt(internal, "/eventTime"));
    stamped["metadata"]["creationTimestamp"] = last.empty() ? stringAt(internal, "/metadata/creationTimestamp") : last;
    const std::string kind = asciiLowered(stringAt(internal, "/involvedObject/kind"));
    return json::array({ageOf(stamped, now), stringAt(internal, "/type"), stringAt(internal, "/reason"),
                        kind + "/" + stringAt(internal, "/involvedObject/name"), stringAt(internal, "/message")});
  }
};

Schema leaseSchema() {
  return topLevel({{"spec",
                    Schema::object(
                        {{"holderIdentity", Schema::string().describe("Who holds the lease now.")},
                         {"leaseDurationSeconds", Schema::integer().describe("How long others wait after the last renewal "
                                                                             "before they may take the lease.")},
                         {"acquireTime", Schema::any().describe("When the current holder took it.")},
                         {"renewTime", Schema::any().describe("When the holder last renewed it.")},
                         {"leaseTransitions", Schema::integer().describe("How many times the holder changed.")},
                         {"strategy", Schema::string().describe("How a coordinated election picks the holder.")},
                         {"preferredHolder", Schema::string().describe("Who should hold it next, in a coordinated election.")}})
                        .describe("The lease's holder and timing.")}})
      .describe(
          "A lock with an expiry; fedhpa's controller-managers elect their leader "
          "with one.");
}

class LeaseType : public BasicResourceType {
 public:
  LeaseType()
      : BasicResourceType(ResourceNames{"coordination.k8s.io", {"v1"}, "v1", "Lease", "leases", "lease", true, {}, {},
                                        allVerbs(), {}},
                          {{"v1", leaseSchema()}},
                          NameRule::DnsSubdomain) {}
  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const auto duration = integerAt(internal, "/spec/leaseDurationSeconds"_json_pointer);
    if (duration && *duration <= 0)
      causes.push_back(fieldInvalid("spec.leaseDurationSeconds", *duration, "must be greater than 0"));
    return causes;
  }
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Holder", "string", "", "The holder of the lease", 0}, ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    return json::array({stringAt(internal, "/metadata/name"), stringAt(internal, "/spec/holderIdentity"), ageOf(internal, now)});
  }
};

}  // namespace

std::shared_ptr<const ResourceType> namespaceType() { return std::make_shared<NamespaceType>(); }
std::shared_ptr<const ResourceType> secretType() { return std::make_shared<SecretType>(); }
std::shared_ptr<const ResourceType> eventType() { return std::make_shared<EventType>(); }
std::shared_ptr<const ResourceType> leaseType() { return std::make_shared<LeaseType>(); }
std::shared_ptr<const ResourceType> serviceAccountType() { return std::make_shared<ServiceAccountType>(); }

std::vector<std::shared_ptr<const ResourceType>> federationResources() {
  std::vector<std::shared_ptr<const ResourceType>> all = {
      namespaceType(), eventType(),       secretType(),      horizontalPodAutoscalerType(), deploymentType(),
      leaseType(),     clusterType(),     roleType(),        clusterRoleType(),             roleBindingType(),
      clusterRoleBindingType(), federatedHpaType(), cronFederatedHpaType(), customResourceDefinitionType(),
      configMapType(),          serviceType(),          propagationPolicyType(), clusterPropagationPolicyType()};
  for (auto& review : authorizationReviewTypes()) all.push_back(std::move(review));
  return all;
}

}  // namespace fedhpa::api
