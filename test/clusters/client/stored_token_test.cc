// The stored token as the rotator reads it: when a TokenRequest token was issued and expires and
// whose it is (from tokens the member-sim's TokenRequest issues, as kube's are: JWTs with iat, exp
// and sub), when it is due (80 % of its lifetime, 24 hours at most), and the Secret's kubeconfig
// with the next token in place of the last.
#include "clusters/client/stored_token.h"

#include <gtest/gtest.h>

#include "clusters/client/join.h"
#include "clusters/sim/service_account_tokens.h"
#include "federation/api/machinery/base64.h"
#include "federation/api/time.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::clusters {
namespace {

using namespace std::chrono_literals;

class StoredTokenTest : public ::testing::Test {
 protected:
  // A token of fedhpa-system/fedhpa-controller-manager for `lifetime`, issued now on the fake clock.
  std::string issue(std::chrono::seconds lifetime, std::string* expiration = nullptr) {
    const json answer = tokens_.issue("fedhpa-system", "fedhpa-controller-manager",
                                      {{"kind", "TokenRequest"}, {"spec", {{"expirationSeconds", lifetime.count()}}}});
    if (expiration) *expiration = answer["status"]["expirationTimestamp"];
    return answer["status"]["token"];
  }

  fedhpa::testing::FakeTimeSource time_;
  sim::ServiceAccountTokens tokens_{time_, [](const std::string&, const std::string&) { return std::optional<std::string>("uid-1"); },
                                    sim::TokenLifetimes{1s, 3600s, std::nullopt}};
};

TEST_F(StoredTokenTest, AServiceAccountTokenIsDueAtFourFifthsOfItsLifetime) {
  const SystemTime issued = time_.systemTime();
  const auto schedule = tokenSchedule(issue(100s), "");
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule->issuedAt, issued);
  EXPECT_EQ(schedule->expiresAt, issued + 100s);
  EXPECT_EQ(schedule->lifetime(), 100s);
  EXPECT_EQ(schedule->refreshAt(), issued + 80s);
  EXPECT_EQ(schedule->serviceAccountNamespace, "fedhpa-system");
  EXPECT_EQ(schedule->serviceAccountName, "fedhpa-controller-manager");
}

TEST_F(StoredTokenTest, ALongLivedTokenIsDueADayAfterItWasIssued) {
  // kubelet's rule: a token older than 24 hours is renewed whatever its lifetime.
  const auto schedule = tokenSchedule(issue(std::chrono::hours(24 * 365)), "");
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule->refreshAt(), time_.systemTime() + 24h);
}

TEST_F(StoredTokenTest, TheSecretsExpirationAnnotationWinsOverTheTokensExp) {
  // What the member answered as status.expirationTimestamp (kube may issue a JWT that outlives it).
  const std::string token = issue(100s);
  const SystemTime issued = time_.systemTime();
  const auto schedule = tokenSchedule(token, api::formatRfc3339(issued + 50s));
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule->expiresAt, issued + 50s);
  EXPECT_EQ(schedule->refreshAt(), issued + 40s);
  EXPECT_EQ(tokenSchedule(token, "not a time")->expiresAt, issued + 100s) << "an unreadable annotation: the token's exp";
}

TEST_F(StoredTokenTest, TokensThatAreNotAServiceAccountsJwtAreNotRotated) {
  EXPECT_FALSE(tokenSchedule("member-admin", ""));
  EXPECT_FALSE(tokenSchedule("a.b.c", ""));
  using api::machinery::encodeBase64Url;
  const auto jwt = [](const json& claims) { return encodeBase64Url(R"({"alg":"none"})") + "." + encodeBase64Url(claims.dump()) + ".sig"; };
  EXPECT_TRUE(tokenSchedule(jwt({{"iat", 100}, {"exp", 200}, {"sub", "system:serviceaccount:ns:sa"}}), ""));
  EXPECT_FALSE(tokenSchedule(jwt({{"iat", 100}, {"exp", 200}, {"sub", "alice"}}), "")) << "not a service account's";
  EXPECT_FALSE(tokenSchedule(jwt({{"iat", 100}, {"sub", "system:serviceaccount:ns:sa"}}), "")) << "no expiry";
  EXPECT_FALSE(tokenSchedule(jwt({{"exp", 200}, {"sub", "system:serviceaccount:ns:sa"}}), "")) << "no issue time";
  EXPECT_FALSE(tokenSchedule(jwt({{"iat", 200}, {"exp", 200}, {"sub", "system:serviceaccount:ns:sa"}}), ""));
  EXPECT_FALSE(tokenSchedule(jwt({{"iat", 100}, {"exp", 200}, {"sub", "system:serviceaccount:ns"}}), ""));
}

TEST_F(StoredTokenTest, WithTokenReplacesTheTokenAndKeepsEverythingElse) {
  RestConfig member;
  member.server = "https://10.0.0.1:6443";
  member.caPem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  member.tlsServerName = "api.member1.example";
  member.bearerToken = "old-token";
  const std::string text = withToken(flattenedKubeconfig("member1", member), "new-token");
  const RestConfig back = parseKubeconfig(text, "secret").resolve();
  EXPECT_EQ(back.bearerToken, "new-token");
  EXPECT_EQ(back.server, member.server);
  EXPECT_EQ(back.caPem, member.caPem);
  EXPECT_EQ(back.tlsServerName, "api.member1.example");
  EXPECT_EQ(text.find("old-token"), std::string::npos);
  EXPECT_THROW(withToken("apiVersion: v1\nkind: Config\n", "t"), KubeconfigError);
  EXPECT_THROW(withToken("current-context: a\ncontexts: [{name: a, context: {user: nobody}}]\nusers: []\n", "t"), KubeconfigError);
}

}  // namespace
}  // namespace fedhpa::clusters
