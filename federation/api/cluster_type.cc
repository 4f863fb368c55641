// federation/v1beta1 Cluster: kubefed v1's type, so its manifests apply unchanged.
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
    return causes;
  }

  std::vector<TableColumn> tableColumns() const override {
    return {nameColumn(),
            {"Server", "string", "", "The address of the member cluster's API server.", 0},
            {"Ready", "string", "", "Whether the cluster answered its last health probe.", 0},
            ageColumn()};
  }

  json tableCells(const json& internal, Clock::time_point now) const override {
    std::string ready = "Unknown";
    for (const auto& condition : internal.value("status", json::object()).value("conditions", json::array()))
      if (condition.value("type", "") == "Ready") ready = condition.value("status", "Unknown");
    return json::array({stringAt(internal, "/metadata/name"),
                        stringAt(internal, "/spec/serverAddressByClientCIDRs/0/serverAddress"), ready, ageOf(internal, now)});
  }

  std::vector<std::pair<std::string, std::string>> listMergeKeys() const override { return {{"status.conditions", "type"}}; }
};

}  // namespace

std::shared_ptr<const ResourceType> clusterType() { return std::make_shared<ClusterType>(); }

}  // namespace fedhpa::api
