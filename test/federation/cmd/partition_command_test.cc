// `fedhpa partition` as a user runs it: the shipped examples, and bad input that must give one
// clear error line and exit status 2 (the real binary, so exit codes and streams are real).
#include "federation/cmd/partition_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>

namespace fedhpa::cmd {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Result {
  int status;
  std::string out;  // stdout and stderr together, stderr last
};

enum class Streams { Both, ErrorsOnly };

Result run(const std::string& args, const std::string& stdinText = "",
           Streams streams = Streams::Both) {
  // ctest runs tests in parallel processes: one input file per process and test.
  const std::string input = ::testing::TempDir() + "partition_stdin_" + std::to_string(getpid()) +
                            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(input) << stdinText;
  const std::string command = std::string(FEDHPA_BINARY) + " partition " + args + " < " + input +
                              (streams == Streams::Both ? " 2>&1" : " 2>&1 >/dev/null");
  Result result{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string example(const std::string& name) {
  return std::string(FEDHPA_SOURCE_DIR) + "/manifests/partition-examples/" + name + ".json";
}

TEST(PartitionCommand, DocumentedExamplePrintsMin1Max3ForEachCluster) {
  const Result r = run("-f " + example("documented-3-clusters"));
  ASSERT_EQ(r.status, 0) << r.out;
  const json plan = json::parse(r.out);
  for (const char* name : {"member1", "member2", "member3"}) {
    EXPECT_EQ(plan["clusters"][name], json({{"minReplicas", 1}, {"maxReplicas", 3}})) << name;
  }
  EXPECT_EQ(plan["moves"].size(), 3u);
}

TEST(PartitionCommand, SaturatedExampleMovesMaxUnderDemandAndOneStepUnderLegacy) {
  const Result demand = run("-f " + example("saturated-member1") + " --now 2026-11-22T10:00:00Z");
  ASSERT_EQ(demand.status, 0) << demand.out;
  EXPECT_EQ(json::parse(demand.out)["clusters"]["member1"]["maxReplicas"], 7);
  const Result legacy = run("-f " + example("saturated-member1") +
                            " --policy legacy --now 2026-11-22T10:00:00Z");
  ASSERT_EQ(legacy.status, 0) << legacy.out;
  EXPECT_EQ(json::parse(legacy.out)["clusters"]["member1"]["maxReplicas"], 5);
}

TEST(PartitionCommand, CustomMetricExampleMovesWhatTheMemberHpaNeeds) {
  // member1: cpu 20 % of 50 % but http_requests_per_second 25 per pod against 10 at 4/4, so its
  // HPA needs 10; member2 holds max 6 at one replica.
  const Result demand = run("-f " + example("custom-metric") + " --now 2026-11-22T10:00:00Z");
  ASSERT_EQ(demand.status, 0) << demand.out;
  const json plan = json::parse(demand.out);
  EXPECT_EQ(plan["clusters"]["member1"]["maxReplicas"], 9);
  EXPECT_EQ(plan["clusters"]["member2"]["maxReplicas"], 1);
  EXPECT_THAT(plan["moves"][0]["reason"].get<std::string>(),
              HasSubstr("http_requests_per_second 25 > 10 per pod target, need 10"));
  const Result legacy = run("-f " + example("custom-metric") +
                            " --policy legacy --now 2026-11-22T10:00:00Z");
  ASSERT_EQ(legacy.status, 0) << legacy.out;
  EXPECT_EQ(json::parse(legacy.out)["clusters"]["member1"]["maxReplicas"], 5);
}

TEST(PartitionCommand, TiersExampleFillsOnPremBeforeTheCloud) {
  // onprem1 and onprem2 (tier 0) capped at 4 each; cloud (tier 1) takes what is left of max 10.
  const Result r = run("-f " + example("tiers"));
  ASSERT_EQ(r.status, 0) << r.out;
  const json plan = json::parse(r.out);
  EXPECT_EQ(plan["clusters"]["onprem1"]["maxReplicas"], 4);
  EXPECT_EQ(plan["clusters"]["onprem2"]["maxReplicas"], 4);
  EXPECT_EQ(plan["clusters"]["cloud"]["maxReplicas"], 2);
}

TEST(PartitionCommand, ZeroClustersPrintTheEmptyPlanWithItsReason) {
  const Result r = run("-f -", R"({"federated": {"spec": {"maxReplicas": 5}}, "clusters": {}})");
  ASSERT_EQ(r.status, 0) << r.out;
  const json plan = json::parse(r.out);
  EXPECT_TRUE(plan["clusters"].empty());
  EXPECT_THAT(plan["reason"].get<std::string>(), HasSubstr("no eligible cluster"));
}

TEST(PartitionCommand, BadInputGivesOneErrorLineAndExitStatus2) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"this is not json", "not JSON"},
      {R"({"clusters": {}})", "federated: required"},
      {R"({"federated": {"spec": {}}, "clusters": {}})", "federated.spec.maxReplicas: required"},
      {R"({"federated": {"spec": {"minReplicas": 5, "maxReplicas": 3}}, "clusters": {}})",
       "federated.spec.minReplicas: must be less than or equal to maxReplicas"},
      {R"({"federated": {"spec": {"maxReplicas": -3}}, "clusters": {}})",
       "federated.spec.maxReplicas: must be at least 1"},
      {R"({"federated": {"spec": {"maxReplicas": 3}}, "clusters": {"a": {"spec": {"maxReplicas": 2},
          "status": {"currentReplicas": -1}}}})", "clusters.a.status.currentReplicas: must be at least 0"},
      {R"({"federated": {"spec": {"maxReplicas": 3}}, "clusters": []})", "clusters: must be an object"},
      {R"({"federated": {"spec": {"maxReplicas": 3}}, "clusters": {}, "scaleForbiddenWindowSeconds": -1})",
       "scaleForbiddenWindowSeconds: must be a non-negative integer"},
  };
  for (const auto& [input, message] : cases) {
    const Result r = run("-f -", input);
    EXPECT_EQ(r.status, 2) << input;
    EXPECT_THAT(r.out, StartsWith("error: -: ")) << input;
    EXPECT_THAT(r.out, HasSubstr(message)) << input;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  }
}

TEST(PartitionCommand, BadFlagsExitWithStatus2) {
  EXPECT_EQ(run("-f " + example("documented-3-clusters") + " --policy fastest").status, 2);
  EXPECT_EQ(run("-f " + example("documented-3-clusters") + " --now yesterday").status, 2);
  EXPECT_EQ(run("-f /nonexistent/case.json").status, 2);
  EXPECT_EQ(run("").status, 2);
}

TEST(PartitionCommand, KubefedHangCaseAnswersPromptly) {
  const Result r = run("-f " + example("kubefed-hang") + " --policy legacy --now 2026-11-22T10:00:00Z");
  ASSERT_EQ(r.status, 0) << r.out;
  const json plan = json::parse(r.out);
  EXPECT_EQ(plan["clusters"]["c1"], json({{"minReplicas", 2}, {"maxReplicas", 10}}));
  EXPECT_TRUE(plan["clusters"]["c2"].is_null());
  EXPECT_THAT(plan["reason"].get<std::string>(), HasSubstr("kubefed v1 would never finish"));
}

TEST(PartitionCommand, LogsAsJsonLinesWhenAsked) {
  const std::string input = R"({"federated": {"metadata": {"annotations": {
      "federation.kubernetes.io/hpa-preferences": "{\"clusters\": {\"gone\": {\"weight\": 2}}}"}},
      "spec": {"maxReplicas": 10}}, "clusters": {"a": null}})";
  const Result r = run("-f - --log-format json", input, Streams::ErrorsOnly);
  ASSERT_EQ(r.status, 0) << r.out;
  const json line = json::parse(r.out);
  EXPECT_EQ(line["level"], "warning");
  EXPECT_THAT(line["msg"].get<std::string>(), HasSubstr("preferences name cluster gone"));
  EXPECT_FALSE(line["ts"].get<std::string>().empty());

  EXPECT_THAT(run("-f - --log-format text", input, Streams::ErrorsOnly).out, HasSubstr(" warning "));
  EXPECT_EQ(run("-f - --log-format xml", input).status, 2);
}

TEST(PlanCase, PreferencesFromTheFederatedAnnotationBoundTheSpread) {
  const json input = json::parse(R"({"federated": {"metadata": {"annotations": {
      "federation.kubernetes.io/hpa-preferences": "{\"clusters\": {\"a\": {\"maxReplicas\": 2}}}"}},
      "spec": {"maxReplicas": 10}}, "clusters": {"a": null, "b": null}})");
  const auto plan = planCase(input, partitioner::Policy::Kind::Demand, std::chrono::system_clock::now());
  EXPECT_EQ(plan["clusters"]["a"]["maxReplicas"], 2);
  EXPECT_EQ(plan["clusters"]["b"]["maxReplicas"], 8);
}

}  // namespace
}  // namespace fedhpa::cmd
