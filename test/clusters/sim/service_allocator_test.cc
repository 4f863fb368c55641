// A member-sim's Services get what kube-apiserver allocates: a cluster IP from the service CIDR
// and node ports from 30000-32767, never one value twice, explicit requests honoured when free and
// refused with kube's 422 when not, the cluster IP immutable and kept by updates that leave it out.
#include "clusters/sim/service_allocator.h"

#include <set>

#include <gtest/gtest.h>

#include "clusters/sim/member_simulator.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::sim {
namespace {

using apiserver::testing::call;
using nlohmann::json;

const std::string kServices = "/api/v1/namespaces/default/services";
const std::map<std::string, std::string> kMergePatch = {{"Content-Type", "application/merge-patch+json"}};

json service(const std::string& name, json spec = json::object()) {
  if (!spec.contains("ports")) spec["ports"] = {{{"port", 80}}};
  return {{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

json twoPorts(const std::string& type) {
  return {{"type", type}, {"ports", {{{"name", "http"}, {"port", 80}}, {{"name", "https"}, {"port", 443}}}}};
}

class ServiceAllocationTest : public ::testing::Test {
 protected:
  void SetUp() override { port_ = sim_.start(); }
  apiserver::testing::HttpReply create(const json& body, const std::string& query = "") {
    return call(port_, "POST", kServices + query, body.dump());
  }
  json specOf(const std::string& name) { return call(port_, "GET", kServices + "/" + name).json()["spec"]; }

  MemberSimulator sim_{MemberSimulatorOptions{}};
  std::uint16_t port_ = 0;
};

TEST_F(ServiceAllocationTest, EveryServiceGetsItsOwnClusterIpFromTheServiceCidr) {
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    const auto created = create(service("web" + std::to_string(i)));
    ASSERT_EQ(created.status, 201) << created.body;
    const json spec = created.json()["spec"];
    const std::string ip = spec.value("clusterIP", "");
    const auto address = parseIPv4(ip);
    ASSERT_TRUE(address) << ip;
    EXPECT_EQ(*address >> 20, parseIPv4("10.96.0.0").value() >> 20) << ip << " is outside 10.96.0.0/12";
    EXPECT_EQ(spec["clusterIPs"], json({ip}));
    EXPECT_EQ(spec["ipFamilies"], json({"IPv4"}));
    EXPECT_EQ(spec["ipFamilyPolicy"], "SingleStack");
    EXPECT_TRUE(seen.insert(ip).second) << ip << " allocated twice";
  }
  const auto headless = create(service("headless", {{"clusterIP", "None"}}));
  ASSERT_EQ(headless.status, 201) << headless.body;
  EXPECT_EQ(headless.json()["spec"]["clusterIP"], "None");
  EXPECT_EQ(headless.json()["spec"]["clusterIPs"], json({"None"}));
  const auto external = create(service("external", {{"type", "ExternalName"}, {"externalName", "db.example.com"}}));
  ASSERT_EQ(external.status, 201) << external.body;
  EXPECT_FALSE(external.json()["spec"].contains("clusterIP"));
}

TEST_F(ServiceAllocationTest, ARequestedAddressIsHonouredWhenFreeAndRefusedWithKubesErrorWhenNot) {
  const auto first = create(service("dns", {{"clusterIP", "10.96.0.10"}}));
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(first.json()["spec"]["clusterIPs"], json({"10.96.0.10"}));

  const auto taken = create(service("other", {{"clusterIP", "10.96.0.10"}}));
  EXPECT_EQ(taken.status, 422);
  EXPECT_EQ(taken.json()["message"],
            R"(Service "other" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP )"
            R"(10.96.0.10: provided IP is already allocated)");
  const auto outside = create(service("other", {{"clusterIP", "10.0.0.5"}}));
  EXPECT_EQ(outside.status, 422);
  EXPECT_NE(outside.body.find("the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/12"),
            std::string::npos)
      << outside.body;
  const auto malformed = create(service("other", {{"clusterIP", "10.96.0.300"}}));
  EXPECT_EQ(malformed.status, 422);
  EXPECT_NE(malformed.body.find("spec.clusterIPs[0]: Invalid value: \\\"10.96.0.300\\\": must be a valid IP address"), std::string::npos)
      << malformed.body;

  // Deleted, its address is free again.
  ASSERT_EQ(call(port_, "DELETE", kServices + "/dns").status, 200);
  const auto again = create(service("other", {{"clusterIP", "10.96.0.10"}}));
  EXPECT_EQ(again.status, 201) << again.body;
}

TEST_F(ServiceAllocationTest, AWriteThatIsRefusedOrDryRunHoldsNothing) {
  // The address is free, the node port is not: the create is refused, and the address stays free.
  ASSERT_EQ(create(service("holder", {{"type", "NodePort"}, {"ports", {{{"port", 80}, {"nodePort", 30080}}}}})).status, 201);
  const auto refused = create(service("web", {{"type", "NodePort"}, {"clusterIP", "10.96.0.20"}, {"ports", {{{"port", 80}, {"nodePort", 30080}}}}}));
  EXPECT_EQ(refused.status, 422);
  EXPECT_EQ(refused.json()["message"],
            R"(Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated)");
  const auto dryRun = create(service("dry", {{"clusterIP", "10.96.0.21"}}), "?dryRun=All");
  ASSERT_EQ(dryRun.status, 201) << dryRun.body;
  EXPECT_EQ(dryRun.json()["spec"]["clusterIP"], "10.96.0.21");
  EXPECT_EQ(create(service("web", {{"clusterIP", "10.96.0.20"}})).status, 201);
  EXPECT_EQ(create(service("dry", {{"clusterIP", "10.96.0.21"}})).status, 201);
}

TEST_F(ServiceAllocationTest, TheClusterIpIsImmutableAndKeptByAnUpdateThatLeavesItOut) {
  const auto created = create(service("web"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string ip = created.json()["spec"]["clusterIP"];

  // A full update of the manifest, without the address (kubectl replace, a controller's PUT).
  json replaced = service("web", {{"ports", {{{"port", 8080}}}}});
  replaced["metadata"]["resourceVersion"] = created.json()["metadata"]["resourceVersion"];
  const auto updated = call(port_, "PUT", kServices + "/web", replaced.dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.json()["spec"]["clusterIP"], ip);
  EXPECT_EQ(updated.json()["spec"]["clusterIPs"], json({ip}));

  const std::string other = ip == "10.96.0.30" ? "10.96.0.31" : "10.96.0.30";
  const auto changed = call(port_, "PATCH", kServices + "/web", json{{"spec", {{"clusterIP", other}, {"clusterIPs", {other}}}}}.dump(), kMergePatch);
  EXPECT_EQ(changed.status, 422);
  EXPECT_NE(changed.body.find("spec.clusterIPs[0]: Invalid value: []string{\\\"" + other + "\\\"}: may not change once set"),
            std::string::npos)
      << changed.body;
  EXPECT_EQ(specOf("web")["clusterIP"], ip);
  EXPECT_EQ(create(service("next", {{"clusterIP", other}})).status, 201) << "the refused change held nothing";
}

TEST_F(ServiceAllocationTest, NodePortsComeFromTheRangeOncePerPortAndGoBackWithTheType) {
  const auto created = create(service("web", twoPorts("NodePort")));
  ASSERT_EQ(created.status, 201) << created.body;
  const json ports = created.json()["spec"]["ports"];
  const long long http = ports[0].value("nodePort", 0LL), https = ports[1].value("nodePort", 0LL);
  for (const long long nodePort : {http, https}) {
    EXPECT_GE(nodePort, 30000);
    EXPECT_LE(nodePort, 32767);
  }
  EXPECT_NE(http, https);

  const auto outside = create(service("low", {{"type", "NodePort"}, {"ports", {{{"port", 80}, {"nodePort", 29999}}}}}));
  EXPECT_EQ(outside.status, 422);
  EXPECT_EQ(outside.json()["message"],
            R"(Service "low" is invalid: spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. )"
            R"(The range of valid ports is 30000-32767)");
  const auto taken = create(service("clash", {{"type", "NodePort"}, {"ports", {{{"port", 80}, {"nodePort", http}}}}}));
  EXPECT_EQ(taken.status, 422) << taken.body;

  // An update without node ports keeps them, port by port name.
  const auto renamed = call(port_, "PATCH", kServices + "/web", json{{"spec", twoPorts("NodePort")}}.dump(), kMergePatch);
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(renamed.json()["spec"]["ports"][0]["nodePort"], http);
  EXPECT_EQ(renamed.json()["spec"]["ports"][1]["nodePort"], https);

  // Changed to ClusterIP, the Service gives its node ports back: another Service may take them.
  const auto clusterIP = call(port_, "PATCH", kServices + "/web", R"({"spec":{"type":"ClusterIP"}})", kMergePatch);
  ASSERT_EQ(clusterIP.status, 200) << clusterIP.body;
  EXPECT_FALSE(clusterIP.json()["spec"]["ports"][0].contains("nodePort"));
  EXPECT_EQ(create(service("clash", {{"type", "NodePort"}, {"ports", {{{"port", 80}, {"nodePort", http}}}}})).status, 201);

  const auto balancer = create(service("lb", {{"type", "LoadBalancer"}, {"externalTrafficPolicy", "Local"}}));
  ASSERT_EQ(balancer.status, 201) << balancer.body;
  EXPECT_TRUE(balancer.json()["spec"]["ports"][0].contains("nodePort"));
  EXPECT_TRUE(balancer.json()["spec"].contains("healthCheckNodePort"));
  const auto noPorts = create(service("lb2", {{"type", "LoadBalancer"}, {"allocateLoadBalancerNodePorts", false}}));
  ASSERT_EQ(noPorts.status, 201) << noPorts.body;
  EXPECT_FALSE(noPorts.json()["spec"]["ports"][0].contains("nodePort"));
}

TEST(ServiceAllocatorRange, ASmallRangeIsUsedUpAndThenSaysSo) {
  std::map<std::string, json> stored;
  ServiceAllocator allocator({"10.0.0.0/29", 30000, 30001},
                             [&](const std::string& ns, const std::string& name) -> std::optional<json> {
                               const auto it = stored.find(ns + "/" + name);
                               return it == stored.end() ? std::nullopt : std::optional<json>(it->second);
                             });
  // /29: 8 addresses, 6 usable (neither the network's nor the broadcast address).
  std::set<std::string> seen;
  for (int i = 0; i < 6; ++i) {
    json object = {{"metadata", {{"namespace", "default"}, {"name", "s" + std::to_string(i)}}}, {"spec", {{"type", "ClusterIP"}}}};
    auto finish = allocator.begin(object, nullptr);
    stored["default/s" + std::to_string(i)] = object;
    finish(true);
    seen.insert(object["spec"]["clusterIP"].get<std::string>());
  }
  EXPECT_EQ(seen, (std::set<std::string>{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"}));
  json full = {{"metadata", {{"namespace", "default"}, {"name", "full"}}}, {"spec", {{"type", "ClusterIP"}}}};
  EXPECT_THROW(allocator.begin(full, nullptr), api::ApiError);
  stored.erase("default/s3");  // deleted: its address is free again
  auto finish = allocator.begin(full, nullptr);
  finish(false);
  EXPECT_TRUE(full["spec"].contains("clusterIP"));
  EXPECT_THROW(ServiceAllocator({"10.0.0.0/33"}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace fedhpa::sim
