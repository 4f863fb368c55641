// The rotator on a fake clock, against a real federation API server that enforces RBAC, with the
// registry, the rotator and the prober authenticated as the controller-manager's own identity (its
// bootstrap policy and nothing more; join writes as an admin), and a member whose TokenRequests
// the member-sim's token issuer answers on the same clock: nothing before 80 % of a token's
// lifetime, one new token just after, written into the Secret and handed to the member's client in
// place; a token that expired is left for a re-join (and the prober says so on the Cluster); a
// failed rotation is tried again after a backoff, not at every look, and a token the federation
// did not store is stored at the next try without another TokenRequest.
#include "clusters/client/token_rotator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "clusters/client/join.h"
#include "clusters/client/rest_client.h"
#include "clusters/sim/service_account_tokens.h"
#include "federation/api/resource.h"
#include "federation/api/time.h"
#include "federation/apiserver/api_server.h"
#include "federation/apiserver/authz/bootstrap_policy.h"
#include "federation/storage/sqlite_storage.h"
#include "test/clusters/client/mock_kube_client.h"
#include "test/federation/common/eventually.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::clusters {
namespace {

using namespace std::chrono_literals;
using ::testing::_;
using ::testing::NiceMock;
using fedhpa::testing::eventually;

MATCHER_P(IsResource, name, "") { return arg.resource == name; }

constexpr const char* kTokenResource = "serviceaccounts/fedhpa-controller-manager/token";

class TokenRotatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    initializeHttpClientPool(4);
    dir_ = std::filesystem::temp_directory_path() / ("token-rotator-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tokens.csv") << "admin-token,admin,admin,\"system:masters\"\n"
                                       << "controller-token," << apiserver::authz::kControllerManagerUser << ",cm,\n";
    apiserver::ApiServerOptions options;
    options.security.mode = apiserver::authz::AuthorizationMode::Rbac;
    options.http.tokenAuthFile = (dir_ / "tokens.csv").string();
    federationServer_ = std::make_unique<apiserver::ApiServer>(storage::SqliteStorage::openInMemory({}),
                                                               api::federationResources(), options);
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(federationServer_->start());
    config.bearerToken = "admin-token";
    admin_ = std::make_unique<RestClient>(config);
    config.bearerToken = "controller-token";
    federation_ = std::make_unique<RestClient>(config);
    ON_CALL(*member_, create(IsResource(kTokenResource), "fedhpa-system", _))
        .WillByDefault([this](const Resource&, const std::string& ns, const json& request) {
          return tokens_.issue(ns, "fedhpa-controller-manager", request);
        });
    registry_ = std::make_unique<ClusterRegistry>(*federation_, [this](const RestConfig& config) {
      std::lock_guard lock(mutex_);
      ++clientsBuilt_;
      credentials_ = config.credentials;
      return member_;
    });
    registry_->start();
    ASSERT_TRUE(registry_->waitForSync(10s));
  }
  void TearDown() override {
    registry_.reset();
    federationServer_.reset();
    std::filesystem::remove_all(dir_);
  }

  // `fedhpa join` as it ends: the Secret with a token of `lifetime` issued now, and the Cluster.
  std::string join(std::chrono::seconds lifetime) {
    const json answer = tokens_.issue("fedhpa-system", "fedhpa-controller-manager",
                                      {{"spec", {{"expirationSeconds", lifetime.count()}}}});
    RestConfig member;
    member.server = "https://member1.example:6443";
    member.tlsServerName = "api.member1.example";
    joinCluster(*admin_, "member1", storedConfig(member, answer["status"]["token"]),
                {{kTokenExpirationAnnotation, answer["status"]["expirationTimestamp"]}});
    return answer["status"]["token"];
  }
  json secret() { return admin_->get(kSecrets, kFederationNamespace, "member1"); }
  std::string storedTokenNow() { return memberRestConfig(admin_->get(kClusters, "", "member1"), secret()).bearerToken; }
  // Until the registry's caches show what the federation holds (its informers run on real time).
  bool registryShows(const std::string& token) {
    return eventually([&] {
      const auto cached = registry_->secret("member1");
      const auto cluster = registry_->cluster("member1");
      std::lock_guard lock(mutex_);
      return cached && cluster && memberRestConfig(*cluster, *cached).bearerToken == token && credentials_ &&
             credentials_->current().bearerToken == token;
    });
  }

  fedhpa::testing::FakeTimeSource time_;
  sim::ServiceAccountTokens tokens_{time_, [](const std::string&, const std::string&) { return std::optional<std::string>("uid-1"); },
                                    sim::TokenLifetimes{1s, 3600s, std::nullopt}};
  std::filesystem::path dir_;
  std::unique_ptr<apiserver::ApiServer> federationServer_;
  std::unique_ptr<RestClient> admin_;       // the operator: what join writes
  std::unique_ptr<RestClient> federation_;  // the controller-manager's own identity
  std::shared_ptr<NiceMock<testing::MockKubeClient>> member_ = std::make_shared<NiceMock<testing::MockKubeClient>>();
  std::mutex mutex_;  // the registry's informer thread builds clients
  int clientsBuilt_ = 0;
  std::shared_ptr<CredentialSource> credentials_;
  std::unique_ptr<ClusterRegistry> registry_;
};

TEST_F(TokenRotatorTest, ATokenIsRenewedJustAfterFourFifthsOfItsLifetimeAndHandedToTheClientInPlace) {
  const std::string first = join(100s);
  ASSERT_TRUE(registryShows(first));
  TokenRotator rotator(*federation_, *registry_, time_);

  EXPECT_CALL(*member_, create(IsResource(kTokenResource), _, _)).Times(0);
  time_.advance(79s);
  EXPECT_EQ(rotator.rotateDue(), 0);
  EXPECT_EQ(storedTokenNow(), first);
  ::testing::Mock::VerifyAndClearExpectations(member_.get());

  EXPECT_CALL(*member_, create(IsResource(kTokenResource), "fedhpa-system", _))
      .WillOnce([this](const Resource&, const std::string& ns, const json& request) {
        EXPECT_EQ(request["spec"]["expirationSeconds"], 100) << "the lifetime join asked for, again";
        return tokens_.issue(ns, "fedhpa-controller-manager", request);
      });
  time_.advance(2s);
  EXPECT_EQ(rotator.rotateDue(), 1);
  const std::string second = storedTokenNow();
  EXPECT_NE(second, first);
  EXPECT_EQ(secret()["metadata"]["annotations"][kTokenExpirationAnnotation], api::formatRfc3339(time_.systemTime() + 100s));
  const RestConfig stored = memberRestConfig(federation_->get(kClusters, "", "member1"), secret());
  EXPECT_EQ(stored.tlsServerName, "api.member1.example") << "the rest of the kubeconfig as join wrote it";
  EXPECT_EQ(rotator.rotateDue(), 0) << "not due again, whatever the cache shows yet";
  ::testing::Mock::VerifyAndClearExpectations(member_.get());

  ASSERT_TRUE(registryShows(second));
  {
    std::lock_guard lock(mutex_);
    EXPECT_EQ(clientsBuilt_, 1) << "the member's client carries on with the new token";
  }

  // The next one comes 80 s after the second was issued.
  EXPECT_CALL(*member_, create(IsResource(kTokenResource), _, _)).Times(1);
  time_.advance(79s);
  EXPECT_EQ(rotator.rotateDue(), 0);
  time_.advance(2s);
  EXPECT_EQ(rotator.rotateDue(), 1);
}

TEST_F(TokenRotatorTest, AnExpiredTokenIsLeftForARejoinAndShowsOnTheCluster) {
  const std::string token = join(100s);
  ASSERT_TRUE(registryShows(token));
  TokenRotator rotator(*federation_, *registry_, time_);
  EXPECT_CALL(*member_, create(IsResource(kTokenResource), _, _)).Times(0);
  time_.advance(101s);  // the controller was down for the last fifth and more
  EXPECT_EQ(rotator.rotateDue(), 0);
  EXPECT_EQ(storedTokenNow(), token);

  // The member refuses it; the prober tells why, and what to do.
  ON_CALL(*member_, probe(_)).WillByDefault(::testing::Return(401));
  ClusterHealthProber prober(*federation_, *registry_, time_);
  prober.probeAll();
  const auto ready = [&] {
    const json cluster = federation_->get(kClusters, "", "member1");
    for (const auto& condition : cluster["status"]["conditions"])
      if (condition["type"] == "Ready") return condition;
    return json::object();
  };
  EXPECT_EQ(ready()["status"], "False");
  EXPECT_EQ(ready()["reason"], "CredentialExpired");
  EXPECT_THAT(ready()["message"].get<std::string>(),
              ::testing::HasSubstr("expired at " + api::formatRfc3339(time_.systemTime() - 1s)));
  EXPECT_THAT(ready()["message"].get<std::string>(), ::testing::HasSubstr("fedhpa join member1"));

  // A re-join stores a fresh token; the member takes it and the Cluster is Ready again.
  const std::string fresh = join(100s);
  ASSERT_TRUE(registryShows(fresh));
  ON_CALL(*member_, probe(_)).WillByDefault(::testing::Return(200));
  prober.probeAll();
  EXPECT_EQ(ready()["status"], "True");
  EXPECT_EQ(ready()["reason"], "ClusterReady");
}

TEST_F(TokenRotatorTest, ARefusedCredentialThatHasNotExpiredIsSaidToBeRejected) {
  ASSERT_TRUE(registryShows(join(100s)));
  ON_CALL(*member_, probe(_)).WillByDefault(::testing::Return(401));
  ClusterHealthProber prober(*federation_, *registry_, time_);
  prober.probeAll();
  const json conditions = federation_->get(kClusters, "", "member1")["status"]["conditions"];
  EXPECT_EQ(conditions[0]["reason"], "CredentialRejected");
  EXPECT_THAT(conditions[0]["message"].get<std::string>(), ::testing::HasSubstr("fedhpa join member1"));
}

TEST_F(TokenRotatorTest, AFailedRotationIsTriedAgainAfterABackoffWhileTheTokenStillWorks) {
  const std::string token = join(100s);
  ASSERT_TRUE(registryShows(token));
  TokenRotationOptions options;
  options.initialRetry = 1s;
  TokenRotator rotator(*federation_, *registry_, time_, options);
  time_.advance(81s);
  {
    ::testing::InSequence order;
    EXPECT_CALL(*member_, create(IsResource(kTokenResource), _, _))
        .WillOnce(::testing::Throw(ClientError(ClientError::Kind::ConnectionFailure, 0, "", "member down")))
        .WillOnce(::testing::Throw(ClientError(ClientError::Kind::ConnectionFailure, 0, "", "member down")));
    EXPECT_CALL(*member_, create(IsResource(kTokenResource), _, _)).WillOnce([this](const Resource&, const std::string& ns, const json& request) {
      return tokens_.issue(ns, "fedhpa-controller-manager", request);
    });
  }
  EXPECT_EQ(rotator.rotateDue(), 0);  // fails; next try after 1 s
  time_.advance(500ms);
  EXPECT_EQ(rotator.rotateDue(), 0);  // not tried
  time_.advance(500ms);
  EXPECT_EQ(rotator.rotateDue(), 0);  // fails again; next try after 2 s
  time_.advance(1s);
  EXPECT_EQ(rotator.rotateDue(), 0);  // not tried
  time_.advance(1s);
  EXPECT_EQ(rotator.rotateDue(), 1);
  EXPECT_NE(storedTokenNow(), token);
}

// The federation refuses the Secret's update (as it did before the controller-manager's Role allowed
// it): the member's token was issued but not stored. The tries that follow, after their backoff,
// store that same token and ask the member for no other.
TEST_F(TokenRotatorTest, ATokenTheFederationDidNotStoreIsStoredAtTheNextTryWithoutAnotherTokenRequest) {
  const std::string token = join(100s);
  ASSERT_TRUE(registryShows(token));
  NiceMock<testing::MockKubeClient> federation;
  ON_CALL(federation, get(_, _, _)).WillByDefault([this](const Resource& r, const std::string& ns, const std::string& n) {
    return federation_->get(r, ns, n);
  });
  const ClientError forbidden(ClientError::Kind::Forbidden, 403, "Forbidden",
                              "secrets \"member1\" is forbidden: User \"system:fedhpa-controller-manager\" cannot update "
                              "resource \"secrets\" in API group \"\" in the namespace \"federation-system\"");
  std::vector<std::string> offered;  // the token in each update the federation was sent
  const json cluster = admin_->get(kClusters, "", "member1");
  const auto tokenIn = [&cluster](const json& secret) { return memberRestConfig(cluster, secret).bearerToken; };
  EXPECT_CALL(federation, update(_, _, _))
      .WillOnce([&](const Resource&, const json& secret, const std::string&) -> json {
        offered.push_back(tokenIn(secret));
        throw forbidden;
      })
      .WillOnce([&](const Resource&, const json& secret, const std::string&) -> json {
        offered.push_back(tokenIn(secret));
        throw forbidden;
      })
      .WillOnce([&](const Resource& r, const json& secret, const std::string& sub) {
        offered.push_back(tokenIn(secret));
        return federation_->update(r, secret, sub);
      });
  EXPECT_CALL(*member_, create(IsResource(kTokenResource), _, _)).Times(1);
  TokenRotator rotator(federation, *registry_, time_);
  time_.advance(81s);
  EXPECT_EQ(rotator.rotateDue(), 0);  // issued, refused; next try after 1 s
  EXPECT_EQ(rotator.rotateDue(), 0);  // not tried: backing off
  time_.advance(1s);
  EXPECT_EQ(rotator.rotateDue(), 0);  // the same token, refused again; next try after 2 s
  time_.advance(2s);
  EXPECT_EQ(rotator.rotateDue(), 1);
  ASSERT_EQ(offered.size(), 3u);
  EXPECT_NE(offered[0], token);
  EXPECT_EQ(offered[1], offered[0]);
  EXPECT_EQ(offered[2], offered[0]);
  EXPECT_EQ(storedTokenNow(), offered[0]);
}

TEST_F(TokenRotatorTest, ASecretWithoutAServiceAccountTokenIsLeftAlone) {
  RestConfig member;
  member.server = "https://member1.example:6443";
  joinCluster(*admin_, "member1", storedConfig(member, "static-admin-token"));
  ASSERT_TRUE(registryShows("static-admin-token"));
  TokenRotator rotator(*federation_, *registry_, time_);
  EXPECT_CALL(*member_, create(_, _, _)).Times(0);
  time_.advance(std::chrono::hours(48));
  EXPECT_EQ(rotator.rotateDue(), 0);
  EXPECT_EQ(storedTokenNow(), "static-admin-token");
}

}  // namespace
}  // namespace fedhpa::clusters
