// The served types as users see them: HPAs through v1 and v2, defaults, the 422 causes kubectl
// prints, unknown fields, Table cells, and the Status errors' wording.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "federation/api/discovery.h"
#include "federation/api/hpa_type.h"
#include "federation/api/openapi.h"
#include "federation/api/printing.h"
#include "federation/api/served_types.h"
#include "federation/api/time.h"
#include "test/federation/api/status_causes.h"

namespace fedhpa::api {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

json hpaV2() {
  return json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
    "metadata":{"name":"php-apache","namespace":"default","creationTimestamp":"2026-11-22T10:00:00Z"},
    "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"php-apache"},
            "minReplicas":1,"maxReplicas":10,
            "metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},
                       {"type":"Pods","pods":{"metric":{"name":"packets"},"target":{"type":"AverageValue","averageValue":"1k"}}}],
            "behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}},
    "status":{"currentReplicas":3,"desiredReplicas":4,
              "currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":72}}},
                                {"type":"Pods","pods":{"metric":{"name":"packets"},"current":{"averageValue":"900"}}}],
              "conditions":[{"type":"AbleToScale","status":"True","reason":"ReadyForNewScale"}]}})");
}

const auto kHpa = horizontalPodAutoscalerType();

TEST(HorizontalPodAutoscaler, V1ShowsTheCpuTargetAndCarriesTheRestInAnnotations) {
  const json v1 = kHpa->fromInternal(hpaV2(), "v1");
  EXPECT_EQ(v1["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(v1["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_EQ(v1["status"]["currentCPUUtilizationPercentage"], 72);
  EXPECT_FALSE(v1["spec"].contains("metrics"));
  const json annotations = v1["metadata"]["annotations"];
  EXPECT_EQ(json::parse(annotations[kV1MetricsAnnotation].get<std::string>())[0]["type"], "Pods");
  EXPECT_TRUE(annotations.contains(kV1BehaviorAnnotation));
  EXPECT_TRUE(annotations.contains(kV1CurrentMetricsAnnotation));
  EXPECT_TRUE(annotations.contains(kV1ConditionsAnnotation));
}

TEST(HorizontalPodAutoscaler, V2ThroughV1AndBackIsLossless) {
  EXPECT_EQ(kHpa->toInternal(kHpa->fromInternal(hpaV2(), "v1"), "v1"), hpaV2());
}

TEST(HorizontalPodAutoscaler, DefaultsMinReplicasAndBehaviorPolicies) {
  json hpa = hpaV2();
  hpa["spec"].erase("minReplicas");
  kHpa->applyDefaults(hpa);
  EXPECT_EQ(hpa["spec"]["minReplicas"], 1);
  EXPECT_EQ(hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 60) << "what was set stays";
  EXPECT_EQ(hpa["spec"]["behavior"]["scaleUp"]["stabilizationWindowSeconds"], 0);
  EXPECT_EQ(hpa["spec"]["behavior"]["scaleUp"]["policies"].size(), 2u);
  EXPECT_EQ(hpa["spec"]["behavior"]["scaleDown"]["policies"][0]["value"], 100);
}

TEST(HorizontalPodAutoscaler, ValidationGivesKubectlsCauses) {
  json hpa = hpaV2();
  hpa["spec"]["minReplicas"] = 5;
  hpa["spec"]["maxReplicas"] = 2;
  hpa["spec"]["scaleTargetRef"].erase("name");
  const auto causes = kHpa->validate(hpa, nullptr);
  EXPECT_THAT(fieldsOf(causes), ElementsAre("spec.scaleTargetRef.name", "spec.maxReplicas"));
  EXPECT_EQ(causes[1].message, "Invalid value: 2: must be greater than or equal to `minReplicas`");
  json badName = hpaV2();
  badName["metadata"]["name"] = "Not_A_Name";
  EXPECT_THAT(fieldsOf(kHpa->validate(badName, nullptr)), ElementsAre("metadata.name"));
  json badMetric = hpaV2();
  badMetric["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] = 0;
  badMetric["spec"]["metrics"][1]["type"] = "Weird";
  EXPECT_THAT(fieldsOf(kHpa->validate(badMetric, nullptr)),
              ElementsAre("spec.metrics[0].resource.target.averageUtilization", "spec.metrics[1].type"));
  EXPECT_TRUE(kHpa->validate(hpaV2(), nullptr).empty());
}

TEST(HorizontalPodAutoscaler, UnknownFieldsAndWrongTypesByPath) {
  json hpa = hpaV2();
  hpa["spec"]["foo"] = 1;
  hpa["spec"]["metrics"][0]["resource"]["bar"] = true;
  EXPECT_THAT(kHpa->unknownFields(hpa, "v2"), ElementsAre("spec.foo", "spec.metrics[0].resource.bar"));
  hpa["spec"]["maxReplicas"] = "ten";
  EXPECT_THAT(kHpa->typeErrors(hpa, "v2"), ElementsAre("spec.maxReplicas: expected integer, got string"));
  json v1 = kHpa->fromInternal(hpaV2(), "v1");
  EXPECT_TRUE(kHpa->unknownFields(v1, "v1").empty());
  v1["spec"]["metrics"] = json::array();
  EXPECT_THAT(kHpa->unknownFields(v1, "v1"), ElementsAre("spec.metrics")) << "v1 has no metrics field";
}

TEST(HorizontalPodAutoscaler, TableCellsAsKubectlPrintsThem) {
  const auto now = *parseRfc3339("2026-11-22T10:02:03Z");
  EXPECT_EQ(kHpa->tableCells(hpaV2(), now),
            json::parse(R"(["php-apache","Deployment/php-apache","cpu: 72%/50%, 900/1k","1",10,3,"2m3s","<none>"])"));
  json many = hpaV2();
  many["spec"]["metrics"].push_back(many["spec"]["metrics"][0]);
  many["status"].erase("currentMetrics");
  many["spec"].erase("minReplicas");
  const json cells = kHpa->tableCells(many, now);
  EXPECT_EQ(cells[2], "cpu: <unknown>/50%, <unknown>/1k + 1 more...");
  EXPECT_EQ(cells[3], "<unset>");
  json none = hpaV2();
  none["spec"].erase("metrics");
  EXPECT_EQ(kHpa->tableCells(none, now)[2], "<none>");
}

TEST(HorizontalPodAutoscaler, WideColumnNamesEveryMembersShare) {
  const auto columns = kHpa->tableColumns();
  ASSERT_EQ(columns.size(), 8u);
  EXPECT_EQ(columns.back().name, "Clusters");
  EXPECT_EQ(columns.back().priority, 1) << "plain get stays narrow, -o wide shows it";
  for (std::size_t i = 0; i + 1 < columns.size(); ++i) EXPECT_EQ(columns[i].priority, 0) << columns[i].name;

  json hpa = hpaV2();
  hpa["metadata"]["annotations"][kClusterStatusAnnotation] =
      R"({"member1":{"min":1,"max":8,"current":5,"desired":6,"cpuUtilization":70},)"
      R"("member2":{"min":1,"max":1,"current":1,"desired":1}})";
  const auto now = *parseRfc3339("2026-11-22T10:02:03Z");
  EXPECT_EQ(kHpa->tableCells(hpa, now).back(), "member1 1-8 (5), member2 1-1 (1)");
  EXPECT_EQ(clusterShares(hpa), "member1 1-8 (5), member2 1-1 (1)");

  const auto memberHpa = horizontalPodAutoscalerType(false);
  EXPECT_EQ(memberHpa->tableColumns().size(), 7u) << "a member's table is kube-apiserver's";
  EXPECT_EQ(memberHpa->tableCells(hpa, now).size(), 7u);
}

TEST(HorizontalPodAutoscaler, ClusterSharesOfAnAnnotationSomeoneElseWrote) {
  json hpa = hpaV2();
  auto shares = [&](const json& value) {
    hpa["metadata"]["annotations"][kClusterStatusAnnotation] = value;
    return clusterShares(hpa);
  };
  EXPECT_EQ(shares("{}"), "<none>");
  EXPECT_EQ(shares("not json"), "<invalid>");
  EXPECT_EQ(shares("[1,2]"), "<invalid>");
  EXPECT_EQ(shares(std::string(1000, '[') + std::string(1000, ']')), "<invalid>") << "nesting is bounded";
  EXPECT_EQ(shares(7), "<none>") << "not a string: no annotation kube would store";
  EXPECT_EQ(shares(R"({"a":{"min":"one","max":3},"b":5})"), "a ?-3 (?), b ?-? (?)");
}

TEST(Printing, HumanDurationLikeKubectl) {
  using std::chrono::seconds;
  EXPECT_EQ(humanDuration(seconds(5)), "5s");
  EXPECT_EQ(humanDuration(seconds(119)), "119s");
  EXPECT_EQ(humanDuration(seconds(123)), "2m3s");
  EXPECT_EQ(humanDuration(seconds(12 * 60)), "12m");
  EXPECT_EQ(humanDuration(seconds(3 * 3600)), "3h");
  EXPECT_EQ(humanDuration(seconds(4 * 3600 + 5 * 60)), "4h5m");
  EXPECT_EQ(humanDuration(seconds(4 * 86400)), "4d");
  EXPECT_EQ(humanDuration(seconds(5 * 86400 + 3 * 3600)), "5d3h");
  EXPECT_EQ(humanDuration(seconds(400 * 86400)), "400d");
  EXPECT_EQ(humanDuration(seconds(-5)), "<invalid>");
}

TEST(OtherTypes, ClusterDeploymentSecretCells) {
  const auto now = *parseRfc3339("2026-11-22T10:00:05Z");
  const json cluster = json::parse(R"({"metadata":{"name":"member1","creationTimestamp":"2026-11-22T10:00:00Z"},
      "spec":{"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"https://10.0.0.1:6443"}]},
      "status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  EXPECT_EQ(clusterType()->tableCells(cluster, now),
            json::parse(R"(["member1","https://10.0.0.1:6443","True","5s","<unknown>","<unknown>","<unknown>","<none>",
                            "<unknown>","<none>","<none>","<none>"])"));
  json probed = cluster;
  probed["status"] = json::parse(R"({"region":"eu","zones":["eu-1a","eu-1b"],"conditions":[
      {"type":"Offline","status":"True","lastProbeTime":"2026-11-22T10:00:04Z"},
      {"type":"Ready","status":"False","lastProbeTime":"2026-11-22T10:00:03Z","lastTransitionTime":"2026-11-22T09:58:05Z",
       "reason":"ClusterNotReachable","message":"connection refused"}],
      "placedHPAs":0,"circuitBreakerState":"Open"})");
  EXPECT_EQ(clusterType()->tableCells(probed, now),
            json::parse(R"(["member1","https://10.0.0.1:6443","False","5s","2s","2m",0,"<none>","Open","eu","eu-1a,eu-1b",
                            "connection refused"])"))
      << "no round trip: the probe got no answer";
  // The round trip as an operator reads it: milliseconds, tenths of a second past one second.
  for (const auto& [milliseconds, shown] : std::vector<std::pair<int, std::string>>{{0, "<1ms"}, {37, "37ms"}, {2450, "2.5s"}}) {
    probed["status"]["probeRoundTripMilliseconds"] = milliseconds;
    probed["status"]["placedHPAs"] = 12;
    EXPECT_EQ(clusterType()->tableCells(probed, now)[6], 12);
    EXPECT_EQ(clusterType()->tableCells(probed, now)[7], shown);
  }
  std::vector<std::string> wide;
  std::vector<int> priorities;
  for (const auto& column : clusterType()->tableColumns()) {
    priorities.push_back(column.priority);
    if (column.priority > 0) wide.push_back(column.name);
  }
  EXPECT_THAT(priorities, ElementsAre(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)) << "plain get stays narrow";
  EXPECT_THAT(wide, ElementsAre("Last Probe", "Ready Since", "HPAs", "Probe RTT", "Circuit", "Region", "Zones", "Message"));
  EXPECT_THAT(fieldsOf(clusterType()->validate(json::parse(R"({"metadata":{"name":"c"},"spec":{}})"), nullptr)),
              ElementsAre("spec.serverAddressByClientCIDRs"));
  json written = probed;
  written["status"]["probeRoundTripMilliseconds"] = -1;
  written["status"]["placedHPAs"] = -2;
  written["status"]["circuitBreakerState"] = "Ajar";
  EXPECT_THAT(fieldsOf(clusterType()->validate(written, nullptr)),
              ElementsAre("status.probeRoundTripMilliseconds", "status.placedHPAs", "status.circuitBreakerState"));

  json deployment = json::parse(R"({"metadata":{"name":"web","creationTimestamp":"2026-11-22T10:00:00Z"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
              "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}},
      "status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}})");
  EXPECT_TRUE(deploymentType()->validate(deployment, nullptr).empty());
  EXPECT_EQ(deploymentType()->tableCells(deployment, now),
            json::parse(R"(["web","2/3",3,2,"5s","web","nginx:1","app=web"])"));
  deployment["spec"]["template"]["metadata"]["labels"]["app"] = "other";
  EXPECT_THAT(fieldsOf(deploymentType()->validate(deployment, nullptr)), ElementsAre("spec.template.metadata.labels"));

  json secret = json::parse(R"({"metadata":{"name":"s"},"stringData":{"kubeconfig":"apiVersion"}})");
  secretType()->applyDefaults(secret);
  EXPECT_EQ(secret["data"]["kubeconfig"], "YXBpVmVyc2lvbg==");
  EXPECT_EQ(secret["type"], "Opaque");
  secret["data"]["bad"] = "not base64!";
  EXPECT_THAT(fieldsOf(secretType()->validate(secret, nullptr)), ElementsAre("data[bad]"));
}

TEST(Discovery, AggregatedDocumentHasWhatKubectlNeeds) {
  const json apis = aggregatedDiscovery(federationResources(), false);
  const auto group = std::find_if(apis["items"].begin(), apis["items"].end(),
                                  [](const json& item) { return item["metadata"]["name"] == "autoscaling"; });
  ASSERT_NE(group, apis["items"].end());
  EXPECT_EQ((*group)["versions"][0]["version"], "v2") << "preferred first";
  const json& hpa = (*group)["versions"][0]["resources"][0];
  EXPECT_EQ(hpa["responseKind"]["kind"], "HorizontalPodAutoscaler");
  EXPECT_EQ(hpa["scope"], "Namespaced");
  EXPECT_EQ(hpa["shortNames"], json({"hpa"}));
  EXPECT_EQ(hpa["categories"], json({"all"}));
  const json core = aggregatedDiscovery(federationResources(), true);
  ASSERT_EQ(core["items"].size(), 1u);
  EXPECT_FALSE(core["items"][0]["metadata"].contains("name"));
}

TEST(OpenApi, EveryServedGroupVersionDeclaresFieldValidationOnPatch) {
  const auto resources = federationResources();
  const json root = openApiRoot(resources);
  // api/v1, autoscaling v2+v1, apps, coordination, federation, rbac, authorization, autoscaling.karmada.io,
  // policy.karmada.io, apiextensions
  EXPECT_EQ(root["paths"].size(), 11u);
  for (const auto& [path, entry] : root["paths"].items()) {
    EXPECT_THAT(entry["serverRelativeURL"].get<std::string>(), HasSubstr("?hash="));
    const auto document = openApiDocument(resources, path);
    ASSERT_TRUE(document) << path;
    int patches = 0;
    for (const auto& [url, operations] : (*document)["paths"].items()) {
      if (!operations.contains("patch")) continue;
      ++patches;
      EXPECT_TRUE(operations["patch"]["x-kubernetes-group-version-kind"].is_object());
      bool declared = false;
      for (const auto& parameter : operations["patch"]["parameters"]) declared |= parameter["name"] == "fieldValidation";
      EXPECT_TRUE(declared) << url;
    }
    // The authorization.k8s.io reviews are create-only.
    if (path.find("authorization.k8s.io") == std::string::npos || path.find("rbac") != std::string::npos) {
      EXPECT_GT(patches, 0) << path;
    }
  }
}

TEST(Status, MessagesKubectlPrints) {
  const GroupResource hpas{"autoscaling", "horizontalpodautoscalers"};
  const json notFound = ApiError::notFound(hpas, "nope").toStatus();
  EXPECT_EQ(notFound["message"], "horizontalpodautoscalers.autoscaling \"nope\" not found");
  EXPECT_EQ(notFound["details"]["kind"], "horizontalpodautoscalers");
  EXPECT_EQ(notFound["code"], 404);
  EXPECT_EQ(ApiError::staleResourceVersion(hpas, "php-apache").toStatus()["message"],
            "Operation cannot be fulfilled on horizontalpodautoscalers.autoscaling \"php-apache\": the object has been "
            "modified; please apply your changes to the latest version and try again");
  const json invalid = ApiError::invalid("autoscaling", "HorizontalPodAutoscaler", "x",
                                         {fieldRequired("spec.scaleTargetRef.name")}).toStatus();
  EXPECT_EQ(invalid["details"]["kind"], "HorizontalPodAutoscaler");
  EXPECT_EQ(invalid["message"], "HorizontalPodAutoscaler.autoscaling \"x\" is invalid: spec.scaleTargetRef.name: Required value");
  EXPECT_EQ(ApiError::notFound({"", "namespaces"}, "nowhere").toStatus()["message"], "namespaces \"nowhere\" not found");
}

}  // namespace
}  // namespace fedhpa::api
