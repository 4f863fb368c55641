// joinCluster and unjoinCluster against a mocked federation API: what they write, in which
// order, and how they clean up after a half-done join.
#include "clusters/client/join.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clusters/client/cluster_registry.h"
#include "test/clusters/client/mock_kube_client.h"

namespace fedhpa::clusters {
namespace {

using ::testing::_;
using ::testing::InSequence;
using ::testing::Return;
using ::testing::Throw;
using testing::MockKubeClient;

MATCHER_P(IsResource, name, "") { return arg.resource == name; }

RestConfig member() {
  RestConfig config;
  config.server = "https://10.0.0.1:6443";
  config.bearerToken = "t0ken";
  return config;
}

TEST(Join, CreatesTheSecretThenTheCluster) {
  MockKubeClient federation;
  InSequence order;
  EXPECT_CALL(federation, create(IsResource("secrets"), "federation-system", _))
      .WillOnce([](const Resource&, const std::string&, const json& secret) {
        EXPECT_EQ(secret["metadata"]["name"], "member1");
        EXPECT_TRUE(secret["data"].contains("kubeconfig"));
        return secret;
      });
  EXPECT_CALL(federation, create(IsResource("clusters"), "", _)).WillOnce([](const Resource&, const std::string&, const json& cluster) {
    EXPECT_EQ(cluster["spec"]["serverAddressByClientCIDRs"][0]["serverAddress"], "https://10.0.0.1:6443");
    EXPECT_EQ(cluster["spec"]["secretRef"]["name"], "member1");
    return cluster;
  });
  joinCluster(federation, "member1", member());
}

TEST(Join, AFailedClusterCreateRemovesTheSecretItCreated) {
  MockKubeClient federation;
  EXPECT_CALL(federation, create(IsResource("secrets"), _, _)).WillOnce(Return(json::object()));
  EXPECT_CALL(federation, create(IsResource("clusters"), _, _))
      .WillOnce(Throw(ClientError(ClientError::Kind::Invalid, 422, "Invalid", "bad")));
  EXPECT_CALL(federation, remove(IsResource("secrets"), "federation-system", "member1", "", "")).WillOnce(Return(json::object()));
  EXPECT_THROW(joinCluster(federation, "member1", member()), ClientError);
}

TEST(Join, ARejoinReplacesTheStoredCredentialAndKeepsTheCluster) {
  MockKubeClient federation;
  const ClientError exists(ClientError::Kind::AlreadyExists, 409, "AlreadyExists", "exists");
  EXPECT_CALL(federation, create(IsResource("secrets"), _, _)).WillOnce(Throw(exists));
  EXPECT_CALL(federation, get(IsResource("secrets"), "federation-system", "member1"))
      .WillOnce(Return(json{{"metadata", {{"name", "member1"}, {"namespace", "federation-system"}, {"resourceVersion", "7"}}},
                            {"data", {{"kubeconfig", "b2xk"}}}}));
  EXPECT_CALL(federation, update(IsResource("secrets"), _, ""))
      .WillOnce([](const Resource&, const json& secret, const std::string&) {
        EXPECT_EQ(secret["metadata"]["resourceVersion"], "7");  // conditional on what was read
        EXPECT_NE(secret["data"]["kubeconfig"], "b2xk");
        EXPECT_EQ(secret["metadata"]["annotations"][kTokenExpirationAnnotation], "2030-01-01T00:00:00Z");
        return secret;
      });
  EXPECT_CALL(federation, create(IsResource("clusters"), _, _)).WillOnce(Throw(exists));
  EXPECT_CALL(federation, get(IsResource("clusters"), "", "member1"))
      .WillOnce(Return(json{{"metadata", {{"name", "member1"}, {"resourceVersion", "3"}}}, {"status", {{"conditions", json::array()}}}}));
  EXPECT_CALL(federation, update(IsResource("clusters"), _, "")).WillOnce([](const Resource&, const json& cluster, const std::string&) {
    EXPECT_EQ(cluster["spec"]["secretRef"]["name"], "member1");
    EXPECT_TRUE(cluster.contains("status"));
    return cluster;
  });
  EXPECT_CALL(federation, remove(_, _, _, _, _)).Times(0);
  joinCluster(federation, "member1", member(), {{kTokenExpirationAnnotation, "2030-01-01T00:00:00Z"}});
}

TEST(Unjoin, ToleratesAPartAlreadyGone) {
  MockKubeClient federation;
  EXPECT_CALL(federation, remove(IsResource("clusters"), "", "member1", "", "")).WillOnce(Return(json::object()));
  EXPECT_CALL(federation, remove(IsResource("secrets"), "federation-system", "member1", "", ""))
      .WillOnce(Throw(ClientError(ClientError::Kind::NotFound, 404, "NotFound", "gone")));
  unjoinCluster(federation, "member1");
}

// How the member is reached comes along into the Secret (its certificate's name when the address
// is not in it, the proxy on the way); the operator's credential does not.
TEST(Join, TheStoredKubeconfigKeepsTheServerNameAndProxyAndNothingOfTheOperatorsCredential) {
  RestConfig operatorConfig = member();
  operatorConfig.caPem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  operatorConfig.tlsServerName = "api.member1.example";
  operatorConfig.proxyUrl = "http://proxy.corp:3128";
  operatorConfig.clientCertPem = "operator-cert";
  operatorConfig.clientKeyPem = "operator-key";
  const std::string text = flattenedKubeconfig("member1", storedConfig(operatorConfig, "federation-token"));
  const RestConfig stored = parseKubeconfig(text, "secret").resolve();
  EXPECT_EQ(stored.server, "https://10.0.0.1:6443");
  EXPECT_EQ(stored.caPem, operatorConfig.caPem);
  EXPECT_EQ(stored.tlsServerName, "api.member1.example");
  EXPECT_EQ(stored.proxyUrl, "http://proxy.corp:3128");
  EXPECT_EQ(stored.bearerToken, "federation-token");
  EXPECT_TRUE(stored.clientCertPem.empty());
  EXPECT_EQ(text.find("t0ken"), std::string::npos);
}

}  // namespace
}  // namespace fedhpa::clusters
