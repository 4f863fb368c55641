// The member-sim's API defaults HPAs as kube-apiserver does, on every write path.
#include <gtest/gtest.h>

#include "clusters/sim/member_simulator.h"
#include "federation/api/hpa_defaults.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::sim {
namespace {

using apiserver::testing::call;
using nlohmann::json;

const char* kHpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

json bareHpa() {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "web"}}},
          {"spec", {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}}, {"maxReplicas", 5}}}};
}

json defaultedSpec(json spec) {
  api::applyHpaV2Defaults(spec);
  return spec;
}

TEST(MemberSimHpaDefaults, CreateUpdateAndPatchStoreTheDefaultedSpec) {
  MemberSimulatorOptions options;
  options.hpaSyncPeriod = std::chrono::hours(1);
  MemberSimulator sim(options);
  const auto port = sim.start();
  const std::string web = std::string(kHpas) + "/web";

  const auto created = call(port, "POST", kHpas, bareHpa().dump());
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["spec"], defaultedSpec(bareHpa()["spec"]));
  EXPECT_EQ(created.json()["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);

  json replaced = call(port, "GET", web).json();
  replaced["spec"].erase("metrics");
  replaced["spec"]["behavior"] = json::object();
  const auto updated = call(port, "PUT", web, replaced.dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.json()["spec"], defaultedSpec(replaced["spec"]));
  EXPECT_EQ(updated.json()["spec"]["behavior"]["scaleUp"]["policies"].size(), 2u);

  const auto patched = call(port, "PATCH", web, R"({"spec":{"minReplicas":null,"behavior":{"scaleDown":null}}})",
                            {{"Content-Type", "application/merge-patch+json"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["spec"]["minReplicas"], 1);
  EXPECT_EQ(patched.json()["spec"]["behavior"]["scaleDown"]["selectPolicy"], "Max");
  EXPECT_EQ(call(port, "GET", web).json()["spec"], patched.json()["spec"]);
}

}  // namespace
}  // namespace fedhpa::sim
