// The controller-manager's /metrics text: member health as a state set, clusters that left lose
// their series, leadership under client-go's metric name, label values escaped.
#include "federation/controller/controller_metrics.h"

#include <gtest/gtest.h>

namespace fedhpa::controller {
namespace {

bool has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

TEST(ControllerMetrics, MemberHealthIsOneSeriesPerState) {
  ControllerMetrics metrics;
  metrics.setClusterHealth("member1", MemberHealth::Healthy);
  metrics.setClusterHealth("member2", MemberHealth::Unknown);
  metrics.setClusterHealth("member3", MemberHealth::Released);
  const std::string text = metrics.render(0);
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_ready{cluster="member1"} 1)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_ready{cluster="member2"} 0)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_health{cluster="member1",state="healthy"} 1)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_health{cluster="member1",state="unknown"} 0)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_health{cluster="member2",state="unknown"} 1)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_health{cluster="member3",state="released"} 1)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_health{cluster="member3",state="healthy"} 0)")) << text;
}

TEST(ControllerMetrics, AClusterThatLeftLosesItsSeries) {
  ControllerMetrics metrics;
  metrics.setClusterHealth("member1", MemberHealth::Healthy);
  metrics.setClusterHealth("gone", MemberHealth::Released);
  metrics.countMemberError("gone");
  metrics.retainClusters({"member1"});
  const std::string text = metrics.render(0);
  EXPECT_EQ(text.find("\"gone\""), std::string::npos) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_cluster_ready{cluster="member1"} 1)")) << text;
}

TEST(ControllerMetrics, FederatedHpaSeriesFollowTheBreakdown) {
  ControllerMetrics metrics;
  metrics.setFederatedHpa("default", "web", {1, 10, 7, 8},
                          nlohmann::json::parse(R"({"member1":{"min":1,"max":8,"current":6},"member2":{"min":1,"max":2,"current":1}})"));
  std::string text = metrics.render(0);
  EXPECT_TRUE(has(text, R"(fedhpa_federated_hpa_current_replicas{namespace="default",name="web"} 7)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_federated_hpa_desired_replicas{namespace="default",name="web"} 8)")) << text;
  EXPECT_TRUE(has(text, R"(fedhpa_federated_hpa_member_current_replicas{namespace="default",name="web",cluster="member1"} 6)"));
  // member2 released: it leaves the breakdown, and its series go.
  metrics.setFederatedHpa("default", "web", {1, 10, 7, 8}, nlohmann::json::parse(R"({"member1":{"min":1,"max":10,"current":7}})"));
  text = metrics.render(0);
  EXPECT_TRUE(has(text, R"(fedhpa_federated_hpa_member_max_replicas{namespace="default",name="web",cluster="member1"} 10)")) << text;
  EXPECT_EQ(text.find("member2"), std::string::npos) << text;
}

TEST(ControllerMetrics, LeadershipUnderClientGosName) {
  ControllerMetrics metrics;
  EXPECT_TRUE(has(metrics.render(0), R"(leader_election_master_status{name="fedhpa-controller-manager"} 0)"));
  metrics.setLeading(true);
  EXPECT_TRUE(has(metrics.render(0), R"(leader_election_master_status{name="fedhpa-controller-manager"} 1)"));
}

// fedhpa's API server admits only DNS names for these; another API server (or a breakdown written
// by someone else) may not: a quote, a backslash or a newline in a name must not end the label or
// the line, or Prometheus rejects the whole scrape.
TEST(ControllerMetrics, LabelValuesAreEscapedAsTheTextFormatWants) {
  ControllerMetrics metrics;
  const std::string hostile = "a\"b\\c\nd";
  metrics.setClusterHealth(hostile, MemberHealth::Healthy);
  metrics.countMemberError(hostile);
  metrics.countMemberWrite(hostile);
  metrics.setFederatedHpa(hostile, hostile, {1, 10, 7, 8}, nlohmann::json{{hostile, {{"min", 1}, {"max", 8}, {"current", 6}}}});
  const std::string text = metrics.render(0);
  const std::string escaped = R"(a\"b\\c\nd)";
  EXPECT_TRUE(has(text, "fedhpa_cluster_ready{cluster=\"" + escaped + "\"} 1")) << text;
  EXPECT_TRUE(has(text, "fedhpa_member_api_errors_total{cluster=\"" + escaped + "\"} 1")) << text;
  EXPECT_TRUE(has(text, "fedhpa_member_writes_total{kind=\"" + escaped + "\"} 1")) << text;
  EXPECT_TRUE(has(text, "fedhpa_cluster_health{cluster=\"" + escaped + "\",state=\"healthy\"} 1")) << text;
  EXPECT_TRUE(has(text, "fedhpa_federated_hpa_member_max_replicas{namespace=\"" + escaped + "\",name=\"" + escaped +
                            "\",cluster=\"" + escaped + "\"} 8"))
      << text;
  EXPECT_EQ(text.find(hostile), std::string::npos) << "a raw value in the text: " << text;
}

}  // namespace
}  // namespace fedhpa::controller
