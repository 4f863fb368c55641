// core v1 ConfigMap and Service: what an application's file holds next to its Deployment, federated
// with it (docs/apiserver.md#configmaps-and-services). Schema, defaults, validation and Table
// columns are kube-apiserver's for the fields kept; the federation allocates no cluster IPs.
#include <algorithm>
#include <regex>
#include <set>

#include "federation/api/basic_resource_type.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxConfigMapBytes = 1024 * 1024;  // kube's MaxSecretSize, which ConfigMaps share

Schema configMapSchema() {
  return topLevel({{"data", Schema::mapOf(Schema::string()).describe("The configuration's entries, as text.")},
                   {"binaryData",
                    Schema::mapOf(Schema::string()).describe("Entries that are not UTF-8 text, base64-encoded; a key "
                                                             "may not be in both data and binaryData.")},
                   {"immutable", Schema::boolean().describe("When true, data and binaryData cannot change any more.")}})
      .describe(
          "Configuration for pods to read as files or environment variables. The federation places a copy on every "
          "member that runs a Deployment using it, or on every Ready member when none does.");
}

// kube's IsConfigMapKey: [-._a-zA-Z0-9]+, at most 253 characters, not "." or "..".
bool isConfigMapKey(const std::string& key) {
  static const std::regex pattern("[-._a-zA-Z0-9]+");
  return !key.empty() && key.size() <= 253 && key != "." && key != ".." && std::regex_match(key, pattern);
}

class ConfigMapType : public BasicResourceType {
 public:
  ConfigMapType()
      : BasicResourceType(ResourceNames{"", {"v1"}, "v1", "ConfigMap", "configmaps", "configmap", true, {"cm"}, {},
                                        allVerbs(), {}},
                          {{"v1", configMapSchema()}}, NameRule::DnsSubdomain) {}

  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json data = internal.value("data", json::object());
    const json binary = internal.value("binaryData", json::object());
    std::size_t bytes = 0;
    for (const auto& [key, value] : data.items()) {
      if (!isConfigMapKey(key))
        causes.push_back(fieldInvalid("data", key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
      bytes += key.size() + (value.is_string() ? value.get_ref<const std::string&>().size() : 0);
    }
    for (const auto& [key, value] : binary.items()) {
      if (!isConfigMapKey(key))
        causes.push_back(fieldInvalid("binaryData", key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
      if (data.contains(key)) causes.push_back(fieldInvalid("data", key, "duplicate of key present in binaryData"));
      bytes += key.size() + (value.is_string() ? value.get_ref<const std::string&>().size() * 3 / 4 : 0);
    }
    if (bytes > kMaxConfigMapBytes)
      causes.push_back(fieldInvalid("", "", "must have at most " + std::to_string(kMaxConfigMapBytes) + " bytes"));
    if (old && old->value("immutable", false)) {
      if (old->value("data", json::object()) != data)
        causes.push_back(fieldInvalid("data", nullptr, "field is immutable when `immutable` is set"));
      if (old->value("binaryData", json::object()) != binary)
        causes.push_back(fieldInvalid("binaryData", nullptr, "field is immutable when `immutable` is set"));
      if (!internal.value("immutable", false))
        causes.push_back(fieldInvalid("immutable", internal.value("immutable", json()), "field is immutable when `immutable` is set"));
    }
    return causes;
  }
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(), {"Data", "integer", "", "Number of entries, in data and binaryData", 0}, ageColumn()};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    const std::size_t entries =
        internal.value("data", json::object()).size() + internal.value("binaryData", json::object()).size();
    return json::array({stringAt(internal, "/metadata/name"), entries, ageOf(internal, now)});
  }
};

Schema serviceSchema() {
  const Schema port = Schema::object(
      {{"name", Schema::string().describe("The port's name, required when there are several; unique in the Service.")},
       {"protocol", Schema::string().describe("TCP (default), UDP or SCTP.")},
       {"appProtocol", Schema::string().describe("The application protocol, a hint for implementations (e.g. http).")},
       {"port", Schema::integer().describe("The port the Service serves, 1-65535.")},
       {"targetPort",
        Schema::intOrString().describe("The pods' port, a number or a container port's name (default: port).")},
       {"nodePort", Schema::integer().describe("Each node's port for NodePort and LoadBalancer Services; a member "
                                               "allocates it when left empty.")}});
  const Schema spec = Schema::object(
      {{"type", Schema::string().describe("ClusterIP (default), NodePort, LoadBalancer or ExternalName.")},
       {"selector", Schema::mapOf(Schema::string())
                        .describe("Labels of the pods the Service sends traffic to. The federation places the Service "
                                  "on the members of the Deployments whose pod template has them.")},
       {"ports", Schema::arrayOf(port).keyedBy({"port", "protocol"}).describe("The ports the Service serves.")},
       {"clusterIP", Schema::string().describe("\"None\" for a headless Service. Each member allocates its own "
                                               "address; the federation has none, so it must be empty or None here.")},
       {"clusterIPs", Schema::arrayOf(Schema::string()).describe("clusterIP and its other-family twin; as clusterIP.")},
       {"externalName", Schema::string().describe("The DNS name an ExternalName Service is an alias for.")},
       {"externalIPs", Schema::arrayOf(Schema::string()).describe("Addresses outside the cluster that route to it.")},
       {"sessionAffinity", Schema::string().describe("None (default), or ClientIP to keep a client on one pod.")},
       {"sessionAffinityConfig", Schema::any().describe("How long ClientIP affinity lasts.")},
       {"externalTrafficPolicy", Schema::string().describe("Cluster (default) or Local, for traffic from outside.")},
       {"internalTrafficPolicy", Schema::string().describe("Cluster (default) or Local, for traffic from inside.")},
       {"ipFamilies", Schema::arrayOf(Schema::string()).describe("IPv4 and/or IPv6.")},
       {"ipFamilyPolicy", Schema::string().describe("SingleStack, PreferDualStack or RequireDualStack.")},
       {"loadBalancerIP", Schema::string().describe("The address to ask the load balancer for (deprecated).")},
       {"loadBalancerSourceRanges", Schema::arrayOf(Schema::string()).describe("Client CIDRs a load balancer admits.")},
       {"loadBalancerClass", Schema::string().describe("Which load balancer implementation serves it.")},
       {"allocateLoadBalancerNodePorts",
        Schema::boolean().describe("Whether a LoadBalancer Service gets node ports (default true).")},
       {"healthCheckNodePort", Schema::integer().describe("The node port for health checks with Local traffic.")},
       {"publishNotReadyAddresses", Schema::boolean().describe("Whether pods that are not ready get traffic too.")},
       {"trafficDistribution", Schema::string().describe("A preference for how traffic is spread, e.g. PreferClose.")}});
  const Schema status = Schema::object(
      {{"loadBalancer", Schema::any().describe("The load balancer's ingress points, as a member reports them.")},
       {"conditions", conditionsSchema().describe("The Service's conditions.")}});
  return topLevel({{"spec", spec.describe("What the Service serves and where it sends traffic.")},
                   {"status", status.describe("The Service's state. Read-only.")}})
      .describe(
          "A stable name for a set of pods. The federation places a copy on every member that runs a Deployment whose "
          "pods it selects, or on every Ready member when none does; each member allocates its own cluster IP.");
}

bool isExternalName(const json& spec) { return spec.value("type", "ClusterIP") == "ExternalName"; }

// An IPv4 address in dotted-quad form (the member-sim's clusters are IPv4 single-stack).
bool isIPv4(const std::string& text) {
  static const std::regex kDottedQuad(R"((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})");
  return std::regex_match(text, kDottedQuad);
}

class ServiceType : public BasicResourceType {
 public:
  explicit ServiceType(bool allocatedAddresses)
      : BasicResourceType(ResourceNames{"", {"v1"}, "v1", "Service", "services", "service", true, {"svc"}, {"all"},
                                        allVerbs(), {{"status", "", "v1", "Service"}}},
                          {{"v1", serviceSchema()}}, NameRule::DnsLabel),
        allocatedAddresses_(allocatedAddresses) {}

  // kube-apiserver's v1 defaults (SetDefaults_Service) for the fields kept.
  void applyDefaults(json& internal) const override {
    if (!internal.contains("spec") || !internal["spec"].is_object()) internal["spec"] = json::object();
    json& spec = internal["spec"];
    if (!spec.contains("type")) spec["type"] = "ClusterIP";
    if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
    const std::string type = spec["type"].is_string() ? spec["type"].get<std::string>() : "";
    if (type != "ExternalName" && !spec.contains("internalTrafficPolicy")) spec["internalTrafficPolicy"] = "Cluster";
    if ((type == "NodePort" || type == "LoadBalancer") && !spec.contains("externalTrafficPolicy"))
      spec["externalTrafficPolicy"] = "Cluster";
    if (type == "LoadBalancer" && !spec.contains("allocateLoadBalancerNodePorts"))
      spec["allocateLoadBalancerNodePorts"] = true;
    if (spec.contains("ports") && spec["ports"].is_array())
      for (auto& port : spec["ports"]) {
        if (!port.is_object()) continue;
        if (!port.contains("protocol")) port["protocol"] = "TCP";
        if (!port.contains("targetPort") && port.contains("port")) port["targetPort"] = port["port"];
      }
    if (!internal.contains("status")) internal["status"] = {{"loadBalancer", json::object()}};
  }

  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json spec = internal.value("spec", json::object());
    const std::string type = spec.value("type", "ClusterIP");
    static const std::vector<std::string> kTypes = {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"};
    if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end())
      causes.push_back(fieldNotSupported("spec.type", type, kTypes));
    const std::string clusterIP = spec.value("clusterIP", "");
    if (allocatedAddresses_) validateAllocatedIPs(spec, old, causes);
    else validateNoIPs(spec, old, causes);
    if (type == "ExternalName") {
      if (spec.value("externalName", "").empty()) causes.push_back(fieldRequired("spec.externalName"));
    } else if (clusterIP != "None" && spec.value("ports", json::array()).empty()) {
      causes.push_back(fieldRequired("spec.ports"));
    }
    const json ports = spec.value("ports", json::array());
    std::set<std::string> names;
    std::set<std::pair<long long, std::string>> seen;
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const std::string at = "spec.ports[" + std::to_string(i) + "]";
      const json& port = ports[i];
      const std::string name = port.value("name", "");
      if (ports.size() > 1 && name.empty()) causes.push_back(fieldRequired(at + ".name"));
      if (!name.empty() && !isDnsLabel(name))
        causes.push_back(fieldInvalid(at + ".name", name, "must be a valid DNS label (RFC 1123)"));
      if (!name.empty() && !names.insert(name).second) causes.push_back({"FieldValueDuplicate", "Duplicate value: " + quoted(name), at + ".name"});
      const long long number = port.value("port", 0LL);
      if (number < 1 || number > 65535)
        causes.push_back(fieldInvalid(at + ".port", number, "must be between 1 and 65535, inclusive"));
      const std::string protocol = port.value("protocol", "TCP");
      if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
        causes.push_back(fieldNotSupported(at + ".protocol", protocol, {"SCTP", "TCP", "UDP"}));
      if (!seen.insert({number, protocol}).second)
        causes.push_back({"FieldValueDuplicate", "Duplicate value: " + json{{"port", number}, {"protocol", protocol}}.dump(), at});
      if (port.contains("targetPort")) {
        const json& target = port["targetPort"];
        if (target.is_number_integer() && (target.get<long long>() < 1 || target.get<long long>() > 65535))
          causes.push_back(fieldInvalid(at + ".targetPort", target, "must be between 1 and 65535, inclusive"));
        if (target.is_string() && (target.get<std::string>().empty() || target.get<std::string>().size() > 15))
          causes.push_back(fieldInvalid(at + ".targetPort", target, "must be no more than 15 characters"));
      }
      if (port.contains("nodePort") && type != "NodePort" && type != "LoadBalancer")
        causes.push_back({"FieldValueForbidden", "Forbidden: may not be used when `type` is '" + type + "'", at + ".nodePort"});
    }
    const std::string affinity = spec.value("sessionAffinity", "None");
    if (affinity != "None" && affinity != "ClientIP")
      causes.push_back(fieldNotSupported("spec.sessionAffinity", affinity, {"ClientIP", "None"}));
    for (const char* policy : {"externalTrafficPolicy", "internalTrafficPolicy"}) {
      const std::string value = spec.value(policy, "Cluster");
      if (value != "Cluster" && value != "Local")
        causes.push_back(fieldNotSupported(std::string("spec.") + policy, value, {"Cluster", "Local"}));
    }
    return causes;
  }

  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            {"Type", "string", "", "The type of the Service: ClusterIP, NodePort, LoadBalancer or ExternalName", 0},
            {"Cluster-IP", "string", "", "None for a headless Service; <none> in the federation, which allocates none", 0},
            {"External-IP", "string", "", "External addresses: the external name, external IPs or load balancer ingress", 0},
            {"Port(s)", "string", "", "The ports the Service serves", 0},
            ageColumn(),
            {"Selector", "string", "", "The labels of the pods the Service sends traffic to", 1}};
  }
  json tableCells(const json& internal, Clock::time_point now) const override {
    const json spec = internal.value("spec", json::object());
    const std::string clusterIP = spec.value("clusterIP", "");
    return json::array({stringAt(internal, "/metadata/name"), spec.value("type", "ClusterIP"),
                        clusterIP.empty() ? "<none>" : clusterIP, externalIP(internal), ports(spec), ageOf(internal, now),
                        selector(spec)});
  }

  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return {{"spec.ports", "port"}}; }

 private:
  // The federation's: no addresses of its own; clusterIP empty or None, and never changed.
  static void validateNoIPs(const json& spec, const json* old, std::vector<StatusCause>& causes) {
    const std::string clusterIP = spec.value("clusterIP", "");
    if (!clusterIP.empty() && clusterIP != "None")
      causes.push_back(fieldInvalid("spec.clusterIP", clusterIP,
                                    "the federation allocates no cluster IPs: leave it empty (each member allocates "
                                    "its own) or set None for a headless Service"));
    for (const auto& ip : spec.value("clusterIPs", json::array()))
      if (ip.is_string() && ip != "None" && ip != clusterIP)
        causes.push_back(fieldInvalid("spec.clusterIPs", ip, "the federation allocates no cluster IPs"));
    if (old) {
      const std::string oldIP = old->value("spec", json::object()).value("clusterIP", "");
      if (oldIP != clusterIP) causes.push_back(fieldInvalid("spec.clusterIP", clusterIP, "field is immutable"));
    }
  }
  // A member cluster's (kube-apiserver's, IPv4 single-stack): clusterIP an address (or None),
  // clusterIPs[0] the same, and neither changed once set unless the Service is or becomes an
  // ExternalName one. The allocator has filled in what the request left empty by then.
  static void validateAllocatedIPs(const json& spec, const json* old, std::vector<StatusCause>& causes) {
    const std::string clusterIP = spec.value("clusterIP", "");
    if (!clusterIP.empty() && clusterIP != "None" && !isIPv4(clusterIP))
      causes.push_back(fieldInvalid("spec.clusterIPs[0]", clusterIP, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    const json clusterIPs = spec.value("clusterIPs", json::array());
    if (clusterIPs.is_array() && !clusterIPs.empty() && !clusterIP.empty() && clusterIPs[0] != clusterIP)
      causes.push_back(fieldInvalid("spec.clusterIPs[0]", clusterIPs[0], "must match `clusterIP`"));
    if (clusterIPs.is_array() && clusterIPs.size() > 1)
      causes.push_back(fieldInvalid("spec.clusterIPs[1]", clusterIPs[1], "may not be set when `ipFamilyPolicy` is 'SingleStack'"));
    if (!old || isExternalName(spec)) return;
    const json oldSpec = old->value("spec", json::object());
    const std::string oldIP = oldSpec.value("clusterIP", "");
    if (isExternalName(oldSpec) || oldIP.empty() || oldIP == clusterIP) return;
    causes.push_back({"FieldValueInvalid", "Invalid value: []string{" + quoted(clusterIP) + "}: may not change once set",
                      "spec.clusterIPs[0]"});
  }

  bool allocatedAddresses_;
  // kube's printer: ExternalName's name; else external IPs and load balancer ingress; <pending> for a
  // LoadBalancer without ingress yet; <none>.
  static std::string externalIP(const json& internal) {
    const json spec = internal.value("spec", json::object());
    if (isExternalName(spec)) return spec.value("externalName", "");
    std::vector<std::string> addresses;
    for (const auto& ip : spec.value("externalIPs", json::array()))
      if (ip.is_string()) addresses.push_back(ip.get<std::string>());
    const json ingress = internal.value("status", json::object()).value("loadBalancer", json::object()).value("ingress", json::array());
    for (const auto& point : ingress) {
      if (!point.is_object()) continue;
      const std::string address = point.value("ip", point.value("hostname", ""));
      if (!address.empty()) addresses.push_back(address);
    }
    if (addresses.empty()) return spec.value("type", "") == "LoadBalancer" ? "<pending>" : "<none>";
    std::string joined;
    for (const auto& address : addresses) joined += (joined.empty() ? "" : ",") + address;
    return joined;
  }
  // "80/TCP", "80:30080/TCP,443/TCP", "<none>".
  static std::string ports(const json& spec) {
    std::string out;
    for (const auto& port : spec.value("ports", json::array())) {
      if (!port.is_object()) continue;
      std::string one = std::to_string(port.value("port", 0LL));
      if (port.contains("nodePort") && port["nodePort"].is_number_integer()) one += ":" + std::to_string(port["nodePort"].get<long long>());
      one += "/" + port.value("protocol", std::string("TCP"));
      out += (out.empty() ? "" : ",") + one;
    }
    return out.empty() ? "<none>" : out;
  }
  static std::string selector(const json& spec) {
    std::string out;
    const json labels = spec.value("selector", json::object());
    for (const auto& [key, value] : labels.items())
      if (value.is_string()) out += (out.empty() ? "" : ",") + key + "=" + value.get<std::string>();
    return out.empty() ? "<none>" : out;
  }
};

}  // namespace

std::shared_ptr<const ResourceType> configMapType() { return std::make_shared<ConfigMapType>(); }
std::shared_ptr<const ResourceType> serviceType(bool allocatedAddresses) {
  return std::make_shared<ServiceType>(allocatedAddresses);
}

}  // namespace fedhpa::api
