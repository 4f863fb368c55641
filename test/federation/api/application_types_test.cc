// ConfigMaps and Services as kube-apiserver serves them, for the fields kept: defaults, validation
// messages and the Table cells kubectl prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/served_types.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

json withMeta(json object, const std::string& kind) {
  object["apiVersion"] = "v1";
  object["kind"] = kind;
  object["metadata"] = {{"name", "web"}, {"namespace", "default"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}};
  return object;
}

std::vector<std::string> messages(const std::vector<StatusCause>& causes) {
  std::vector<std::string> out;
  for (const auto& cause : causes) out.push_back(cause.field + ": " + cause.message);
  return out;
}

TEST(ConfigMap, CountsDataAndBinaryDataInTheDataColumn) {
  const auto type = configMapType();
  const json map = withMeta({{"data", {{"a", "1"}, {"b", "2"}}}, {"binaryData", {{"c", "AAE="}}}}, "ConfigMap");
  EXPECT_THAT(type->validate(map, nullptr), IsEmpty());
  const json cells = type->tableCells(map, Clock::now());
  EXPECT_EQ(cells[0], "web");
  EXPECT_EQ(cells[1], 3);
  EXPECT_EQ(type->tableColumns()[1].name, "Data");
}

TEST(ConfigMap, RefusesBadKeysDuplicatesAndChangesOnceImmutable) {
  const auto type = configMapType();
  const json bad = withMeta({{"data", {{"a/b", "1"}, {"same", "x"}}}, {"binaryData", {{"same", "AA=="}}}}, "ConfigMap");
  const auto found = messages(type->validate(bad, nullptr));
  EXPECT_THAT(found, ::testing::Contains(HasSubstr("a valid config key must consist of alphanumeric characters")));
  EXPECT_THAT(found, ::testing::Contains(HasSubstr("duplicate of key present in binaryData")));

  const json frozen = withMeta({{"data", {{"a", "1"}}}, {"immutable", true}}, "ConfigMap");
  json changed = frozen;
  changed["data"]["a"] = "2";
  EXPECT_THAT(messages(type->validate(changed, &frozen)),
              ::testing::ElementsAre("data: Invalid value: null: field is immutable when `immutable` is set"));
  EXPECT_THAT(type->validate(frozen, &frozen), IsEmpty());
}

TEST(Service, DefaultsAsKubeApiserver) {
  const auto type = serviceType();
  json service = withMeta({{"spec", {{"type", "LoadBalancer"}, {"ports", {{{"port", 443}}}}}}}, "Service");
  type->applyDefaults(service);
  EXPECT_EQ(service["spec"]["sessionAffinity"], "None");
  EXPECT_EQ(service["spec"]["externalTrafficPolicy"], "Cluster");
  EXPECT_EQ(service["spec"]["internalTrafficPolicy"], "Cluster");
  EXPECT_EQ(service["spec"]["allocateLoadBalancerNodePorts"], true);
  EXPECT_EQ(service["spec"]["ports"][0]["protocol"], "TCP");
  EXPECT_EQ(service["spec"]["ports"][0]["targetPort"], 443);
  json plain = withMeta({{"spec", {{"ports", {{{"port", 80}, {"targetPort", "http"}}}}}}}, "Service");
  type->applyDefaults(plain);
  EXPECT_EQ(plain["spec"]["type"], "ClusterIP");
  EXPECT_EQ(plain["spec"]["ports"][0]["targetPort"], "http");
  EXPECT_FALSE(plain["spec"].contains("externalTrafficPolicy"));
}

TEST(Service, ValidatesPortsTypesAndRefusesClusterIPs) {
  const auto type = serviceType();
  json service = withMeta({{"spec",
                            {{"clusterIP", "10.0.0.1"},
                             {"ports", {{{"port", 80}, {"protocol", "TCP"}}, {{"port", 80}, {"name", "b"}}}}}}},
                          "Service");
  type->applyDefaults(service);
  const auto found = messages(type->validate(service, nullptr));
  EXPECT_THAT(found, ::testing::Contains(HasSubstr("spec.clusterIP: Invalid value: \"10.0.0.1\"")));
  EXPECT_THAT(found, ::testing::Contains("spec.ports[0].name: Required value"));
  EXPECT_THAT(found, ::testing::Contains(HasSubstr("spec.ports[1]: Duplicate value")));

  json noPorts = withMeta({{"spec", {{"selector", {{"app", "web"}}}}}}, "Service");
  type->applyDefaults(noPorts);
  EXPECT_THAT(messages(type->validate(noPorts, nullptr)), ::testing::ElementsAre("spec.ports: Required value"));
  noPorts["spec"]["clusterIP"] = "None";  // headless: no ports needed
  EXPECT_THAT(type->validate(noPorts, nullptr), IsEmpty());

  json external = withMeta({{"spec", {{"type", "ExternalName"}}}}, "Service");
  EXPECT_THAT(messages(type->validate(external, nullptr)), ::testing::ElementsAre("spec.externalName: Required value"));
}

TEST(Service, TableShowsKubesColumnsAndNoClusterIP) {
  const auto type = serviceType();
  std::vector<std::string> headers;
  for (const auto& column : type->tableColumns()) headers.push_back(column.name);
  EXPECT_THAT(headers, ::testing::ElementsAre("Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"));
  json lb = withMeta({{"spec",
                       {{"type", "LoadBalancer"},
                        {"selector", {{"app", "web"}}},
                        {"ports", {{{"port", 80}, {"nodePort", 30080}, {"protocol", "TCP"}}, {{"port", 53}, {"protocol", "UDP"}}}}}}},
                     "Service");
  json cells = type->tableCells(lb, Clock::now());
  EXPECT_EQ(cells[1], "LoadBalancer");
  EXPECT_EQ(cells[2], "<none>");
  EXPECT_EQ(cells[3], "<pending>");
  EXPECT_EQ(cells[4], "80:30080/TCP,53/UDP");
  EXPECT_EQ(cells[6], "app=web");
  lb["status"] = {{"loadBalancer", {{"ingress", {{{"ip", "203.0.113.7"}}}}}}};
  EXPECT_EQ(type->tableCells(lb, Clock::now())[3], "203.0.113.7");
  const json external = withMeta({{"spec", {{"type", "ExternalName"}, {"externalName", "db.example.com"}}}}, "Service");
  EXPECT_EQ(type->tableCells(external, Clock::now())[3], "db.example.com");
}

}  // namespace
}  // namespace fedhpa::api
