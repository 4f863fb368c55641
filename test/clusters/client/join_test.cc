// joinCluster, joinMember and unjoinCluster against a mocked federation API and mocked members:
// what they write, in which order, how they clean up after a half-done join, and that join writes
// nothing in the federation until the credential it is about to store has been verified, through
// a client read from that very Secret.
#include "clusters/client/join.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clusters/client/cluster_registry.h"
#include "test/clusters/client/mock_kube_client.h"

namespace fedhpa::clusters {
namespace {

using ::testing::_;
using ::testing::HasSubstr;
using ::testing::InSequence;
using ::testing::NiceMock;
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

// joinMember with mocked members: the operator's client (its admin token) creates the identity and
// takes the token; every other client is the one join verifies the stored credential with.
class JoinMember : public ::testing::Test {
 protected:
  void SetUp() override {
    operator_.bearerToken = "operator-admin";
    operator_.tlsServerName = "api.member1.example";
    operator_.caPem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
    ON_CALL(*admin_, create(_, _, _)).WillByDefault([](const Resource& resource, const std::string&, const json& object) {
      if (resource.resource == "serviceaccounts/fedhpa-controller-manager/token")
        return json{{"status", {{"token", "member-token"}, {"expirationTimestamp", "2030-01-01T00:00:00Z"}}}};
      return object;
    });
  }
  ClientFactory clients() {
    return [this](const RestConfig& config) -> std::shared_ptr<KubeClient> {
      if (config.bearerToken == "operator-admin") return admin_;
      verifiedWith_.push_back(config);
      return verifier_;
    };
  }
  void answerTheReview(bool allowed) {
    ON_CALL(*verifier_, create(IsResource("selfsubjectaccessreviews"), "", _))
        .WillByDefault(Return(json{{"status", {{"allowed", allowed}, {"reason", allowed ? "" : "no RBAC policy matched"}}}}));
  }

  RestConfig operator_ = member();
  std::shared_ptr<NiceMock<MockKubeClient>> admin_ = std::make_shared<NiceMock<MockKubeClient>>();
  std::shared_ptr<NiceMock<MockKubeClient>> verifier_ = std::make_shared<NiceMock<MockKubeClient>>();
  std::vector<RestConfig> verifiedWith_;
};

TEST_F(JoinMember, AFailedVerificationWritesNothingInTheFederation) {
  answerTheReview(false);
  ::testing::StrictMock<MockKubeClient> federation;  // any call to it fails the test
  try {
    joinMember(federation, "member1", operator_, std::chrono::hours(1), clients());
    ADD_FAILURE() << "join went on with a credential that may not create HPAs";
  } catch (const ClientError& error) {
    EXPECT_EQ(error.kind(), ClientError::Kind::Forbidden);
    EXPECT_THAT(error.what(), HasSubstr("member member1: the member's credential for the federation may not create "
                                        "horizontalpodautoscalers: no RBAC policy matched"));
  }
  ASSERT_EQ(verifiedWith_.size(), 1u);
  EXPECT_EQ(verifiedWith_[0].bearerToken, "member-token");
}

TEST_F(JoinMember, ARefusedTokenWritesNothingInTheFederation) {
  ON_CALL(*verifier_, create(_, _, _)).WillByDefault(Throw(ClientError(ClientError::Kind::Unauthorized, 401, "Unauthorized", "Unauthorized")));
  ::testing::StrictMock<MockKubeClient> federation;
  try {
    joinMember(federation, "member1", operator_, std::chrono::hours(1), clients());
    ADD_FAILURE() << "join went on with a token the member refuses";
  } catch (const ClientError& error) {
    EXPECT_EQ(error.kind(), ClientError::Kind::Unauthorized);
    EXPECT_THAT(error.what(), HasSubstr("member member1: "));
  }
}

// The client join verifies with is read from the Secret it then writes, as the controller will
// read it: same server, CA, tls-server-name and token.
TEST_F(JoinMember, VerifiesTheCredentialAsTheSecretItWritesHoldsIt) {
  answerTheReview(true);
  MockKubeClient federation;
  json written;
  EXPECT_CALL(federation, create(IsResource("secrets"), "federation-system", _))
      .WillOnce([&written](const Resource&, const std::string&, const json& secret) { return written = secret; });
  json cluster;
  EXPECT_CALL(federation, create(IsResource("clusters"), "", _))
      .WillOnce([&cluster](const Resource&, const std::string&, const json& object) { return cluster = object; });
  EXPECT_EQ(joinMember(federation, "member1", operator_, std::chrono::hours(1), clients()).token, "member-token");
  ASSERT_EQ(verifiedWith_.size(), 1u);
  const RestConfig stored = memberRestConfig(cluster, written);
  EXPECT_EQ(verifiedWith_[0].server, stored.server);
  EXPECT_EQ(verifiedWith_[0].caPem, stored.caPem);
  EXPECT_EQ(verifiedWith_[0].tlsServerName, "api.member1.example");
  EXPECT_EQ(verifiedWith_[0].bearerToken, "member-token");
  EXPECT_EQ(stored.bearerToken, "member-token");
  EXPECT_EQ(written["metadata"]["annotations"][kTokenExpirationAnnotation], "2030-01-01T00:00:00Z");
}

}  // namespace
}  // namespace fedhpa::clusters
