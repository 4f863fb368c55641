// federation/v1beta1 Cluster: kubefed v1's type, so its manifests apply unchanged.
#include <cstdint>
#include <cstdio>

#include "federation/api/basic_resource_type.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"

namespace fedhpa::api {

using nlohmann::json;

namespace {

Schema clusterSchema() {
  const Schema address = Schema::object(
      {{"clientCIDR", Schema::string().describe("Clients in this network use serverAddress (0.0.0.0/0 for everyone).")},
       {"serverAddress",
        Schema::string().describe("The member's API server URL; it overrides the server in the member's kubeconfig.")}});
  return topLevel(
             {{"spec",
               Schema::object(
                   {{"serverAddressByClientCIDRs",
                     Schema::arrayOf(address).describe(
                         "Where the member's API server is (at least one); fedhpa dials the first.")},
                    {"secretRef",
                     Schema::object(
                         {{"name", Schema::string().describe(
                                       "Name of the Secret in namespace federation-system; the Cluster's own name when unset.")}})
                         .describe("The Secret whose key kubeconfig holds the credentials "
                                   "fedhpa uses against the member.")}})
                   .describe("How fedhpa reaches the member cluster.")},
              {"status",
               Schema::object(
                   {{"conditions", conditionsSchema().describe("Ready: whether the member's API server answered fedhpa's last "
                                                               "health probe.")},
                    {"probeRoundTripMilliseconds",
                     Schema::int64().describe("How long the member's API server took to answer fedhpa's last health "
                                              "probe, in milliseconds (rounded); unset when the probe got no answer.")},
                    {"circuitBreakerState",
                     Schema::string().describe(
                         "The controller-manager's circuit breaker on calls to the member: Closed (calls go out), "
                         "Open (calls fail at once after consecutive failures to get through, until a pause has "
                         "passed) or HalfOpen (the pause has passed; the next call is the trial). Written with each "
                         "health probe.")},
                    {"placedHPAs",
                     Schema::integer().describe("How many federated HPAs have a local HPA in the member, as the "
                                                "controller-manager's caches show them; written with each health "
                                                "probe, unset until the caches have synced.")},
                    {"zones", Schema::arrayOf(Schema::string()).describe("Zones the member's nodes are in.")},
                    {"region", Schema::string().describe("Region the member is in.")}})
                   .describe("What fedhpa's controller last found out about the member. Read-only.")}})
      .describe(
          "A member cluster of the federation (kubefed v1's type): fedhpa spreads federated HPAs and "
          "Deployments over the healthy ones; its labels are what cluster-selector annotations match.");
}

class ClusterType : public BasicResourceType {
 public:
  ClusterType()
      : BasicResourceType(ResourceNames{"federation", {"v1beta1"}, "v1beta1", "Cluster", "clusters", "cluster", false, {}, {},
                                        allVerbs(), {{"status", "federation", "v1beta1", "Cluster"}}},
                          {{"v1beta1", clusterSchema()}}, NameRule::DnsSubdomain) {}

  std::vector<StatusCause> validate(const json& internal, const json* old) const override {
    auto causes = BasicResourceType::validate(internal, old);
    const json addresses = internal.value("spec", json::object()).value("serverAddressByClientCIDRs", json::array());
    if (addresses.empty()) causes.push_back(fieldRequired("spec.serverAddressByClientCIDRs"));
    for (std::size_t i = 0; i < addresses.size(); ++i)
      if (addresses[i].value("serverAddress", "").empty())
        causes.push_back(fieldRequired("spec.serverAddressByClientCIDRs[" + std::to_string(i) + "].serverAddress"));
    const json status = internal.value("status", json::object());
    for (const char* field : {"probeRoundTripMilliseconds", "placedHPAs"})
      if (const json value = status.value(field, json()); value.is_number_integer() && value.get<std::int64_t>() < 0)
        causes.push_back(fieldInvalid(std::string("status.") + field, value, "must be greater than or equal to 0"));
    if (const json state = status.value("circuitBreakerState", json()); state.is_string() && state != "Closed" && state != "Open" && state != "HalfOpen")
      causes.push_back(fieldNotSupported("status.circuitBreakerState", state, {"Closed", "HalfOpen", "Open"}));
    return causes;
  }

  // Wide columns: what the health prober last wrote, with the controller-manager's own view of the
  // member (placed HPAs, circuit breaker) that it writes along.
  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            {"Server", "string", "", "The address of the member cluster's API server.", 0},
            {"Ready", "string", "", "Whether the cluster answered its last health probe.", 0},
            ageColumn(),
            {"Last Probe", "string", "", "Time since the Ready condition's lastProbeTime: fedhpa's last health probe.", 1},
            {"Ready Since", "string", "", "Time since the Ready condition's lastTransitionTime.", 1},
            {"HPAs", "string", "", "status.placedHPAs: federated HPAs with a local HPA in the cluster.", 1},
            {"Probe RTT", "string", "", "status.probeRoundTripMilliseconds: the last health probe's round trip.", 1},
            {"Circuit", "string", "", "status.circuitBreakerState: Closed, Open or HalfOpen.", 1},
            {"Region", "string", "", "status.region", 1},
            {"Zones", "string", "", "status.zones", 1},
            {"Message", "string", "", "The Ready condition's message: what the last probe got.", 1}};
  }

  json tableCells(const json& internal, Clock::time_point now) const override {
    const json status = internal.value("status", json::object());
    json ready = json::object();
    for (const auto& condition : status.value("conditions", json::array()))
      if (condition.is_object() && condition.value("type", "") == "Ready") ready = condition;
    // A time since the condition's timestamp, as ageOf prints creationTimestamp's.
    auto since = [&](const char* field) {
      if (!ready.contains(field)) return std::string("<unknown>");
      return ageOf(json{{"metadata", {{"creationTimestamp", ready[field]}}}}, now);
    };
    // Milliseconds below a second (a loopback answer rounds to 0: "<1ms"), tenths of a second above.
    std::string roundTrip = "<none>";
    if (const json milliseconds = status.value("probeRoundTripMilliseconds", json()); milliseconds.is_number_integer()) {
      const auto value = milliseconds.get<std::int64_t>();
      if (value < 1) {
        roundTrip = "<1ms";
      } else if (value < 1000) {
        roundTrip = std::to_string(value) + "ms";
      } else {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1fs", static_cast<double>(value) / 1000);
        roundTrip = seconds;
      }
    }
    json placed = status.value("placedHPAs", json());
    if (!placed.is_number_integer()) placed = "<unknown>";
    std::string zones;
    for (const auto& zone : status.value("zones", json::array()))
      if (zone.is_string()) zones += (zones.empty() ? "" : ",") + zone.get<std::string>();
    return json::array({stringAt(internal, "/metadata/name"),
                        stringAt(internal, "/spec/serverAddressByClientCIDRs/0/serverAddress"),
                        stringAt(ready, "/status", "Unknown"), ageOf(internal, now), since("lastProbeTime"),
                        since("lastTransitionTime"), placed, roundTrip, stringAt(status, "/circuitBreakerState", "<unknown>"),
                        stringAt(status, "/region", "<none>"),
                        zones.empty() ? "<none>" : zones, stringAt(ready, "/message", "<none>")});
  }

  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return {{"status.conditions", "type"}}; }
};

}  // namespace

std::shared_ptr<const ResourceType> clusterType() { return std::make_shared<ClusterType>(); }

}  // namespace fedhpa::api
