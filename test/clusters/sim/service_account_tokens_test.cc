// The member-sim's service-account tokens: who a token stands for, until when, and what makes it
// worthless (expiry on the injected clock, a signature not this issuer's, its ServiceAccount gone).
#include "clusters/sim/service_account_tokens.h"

#include <gtest/gtest.h>

#include <map>

#include "federation/api/status.h"
#include "federation/api/time.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::sim {
namespace {

using nlohmann::json;

class ServiceAccountTokensTest : public ::testing::Test {
 protected:
  ServiceAccountTokens issuer(TokenLifetimes lifetimes = {}) {
    return ServiceAccountTokens(
        time_,
        [this](const std::string& ns, const std::string& name) -> std::optional<std::string> {
          const auto it = accounts_.find(ns + "/" + name);
          if (it == accounts_.end()) return std::nullopt;
          return it->second;
        },
        lifetimes);
  }
  static json request(std::optional<long long> seconds = std::nullopt) {
    json spec = json::object();
    if (seconds) spec["expirationSeconds"] = *seconds;
    return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
  }
  static int refusal(ServiceAccountTokens& tokens, json body, std::string& message) {
    try {
      tokens.issue("fedhpa-system", "controller", std::move(body));
    } catch (const api::ApiError& error) {
      message = error.toStatus().dump();
      return error.code();
    }
    return 0;
  }

  testing::FakeTimeSource time_;
  std::map<std::string, std::string> accounts_ = {{"fedhpa-system/controller", "uid-1"}};
};

TEST_F(ServiceAccountTokensTest, AuthenticatesAsTheServiceAccountWithKubesGroups) {
  auto tokens = issuer();
  const json answer = tokens.issue("fedhpa-system", "controller", request());
  EXPECT_EQ(answer["kind"], "TokenRequest");
  EXPECT_EQ(answer["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(answer["spec"]["audiences"], json::array({kApiAudience}));
  const auto user = tokens.authenticate(answer["status"]["token"].get<std::string>());
  ASSERT_TRUE(user);
  EXPECT_EQ(user->name, "system:serviceaccount:fedhpa-system:controller");
  EXPECT_EQ(user->uid, "uid-1");
  EXPECT_EQ(user->groups, (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:fedhpa-system",
                                                    "system:authenticated"}));
}

TEST_F(ServiceAccountTokensTest, ValidUntilItsExpiryOnTheInjectedClock) {
  auto tokens = issuer();
  const json answer = tokens.issue("fedhpa-system", "controller", request(900));
  const std::string token = answer["status"]["token"];
  time_.advance(std::chrono::seconds(899));
  EXPECT_TRUE(tokens.authenticate(token));
  time_.advance(std::chrono::seconds(1));
  EXPECT_FALSE(tokens.authenticate(token));
}

TEST_F(ServiceAccountTokensTest, ExpirationTimestampSaysWhenItStopsWorking) {
  auto tokens = issuer();
  const SystemTime issued = time_.systemTime();
  const json answer = tokens.issue("fedhpa-system", "controller", request(1200));
  const auto expiry = api::parseRfc3339(answer["status"]["expirationTimestamp"].get<std::string>());
  ASSERT_TRUE(expiry);
  EXPECT_EQ(*expiry, issued + std::chrono::seconds(1200));
}

TEST_F(ServiceAccountTokensTest, ASignatureNotThisIssuersIsRefused) {
  auto tokens = issuer();
  auto other = issuer();  // another process: another key
  const std::string token = tokens.issue("fedhpa-system", "controller", request())["status"]["token"];
  EXPECT_FALSE(other.authenticate(token));
  std::string flipped = token;
  flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
  EXPECT_FALSE(tokens.authenticate(flipped));
  // Claims changed under the old signature: a longer life claimed by editing exp.
  const auto dot = token.find('.');
  const std::string forged = token.substr(0, dot + 1) + "eyJleHAiOjk5OTk5OTk5OTl9" + token.substr(token.rfind('.'));
  EXPECT_FALSE(tokens.authenticate(forged));
  EXPECT_FALSE(tokens.authenticate("not-a-jwt"));
  EXPECT_FALSE(tokens.authenticate("a.b.c.d"));
}

TEST_F(ServiceAccountTokensTest, DeletingTheServiceAccountInvalidatesItsTokens) {
  auto tokens = issuer();
  const std::string token = tokens.issue("fedhpa-system", "controller", request())["status"]["token"];
  accounts_.erase("fedhpa-system/controller");
  EXPECT_FALSE(tokens.authenticate(token));
  accounts_["fedhpa-system/controller"] = "uid-2";  // recreated under the same name: a new account
  EXPECT_FALSE(tokens.authenticate(token));
}

TEST_F(ServiceAccountTokensTest, RefusesWhatKubeRefuses) {
  auto tokens = issuer();
  std::string message;
  EXPECT_EQ(refusal(tokens, request(599), message), 422);
  EXPECT_NE(message.find("may not specify a duration less than 10 minutes"), std::string::npos) << message;
  EXPECT_EQ(refusal(tokens, request((1LL << 32) + 1), message), 422);
  EXPECT_NE(message.find("larger than 2^32 seconds"), std::string::npos) << message;
  json bound = request();
  bound["spec"]["boundObjectRef"] = {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "p"}};
  EXPECT_EQ(refusal(tokens, bound, message), 422);
  EXPECT_NE(message.find("spec.boundObjectRef"), std::string::npos) << message;
  json notAList = request();
  notAList["spec"]["audiences"] = "x";
  EXPECT_EQ(refusal(tokens, notAList, message), 422);
  EXPECT_EQ(refusal(tokens, json::array(), message), 400);
  accounts_.clear();
  EXPECT_EQ(refusal(tokens, request(), message), 404);
  EXPECT_NE(message.find("serviceaccounts \\\"controller\\\" not found"), std::string::npos) << message;
}

TEST_F(ServiceAccountTokensTest, MaximumCutsLongerRequestsAndTestingMinimumAllowsShortOnes) {
  auto tokens = issuer({std::chrono::seconds(2), std::chrono::seconds(3600), std::chrono::seconds(7200)});
  EXPECT_EQ(tokens.issue("fedhpa-system", "controller", request(86400))["spec"]["expirationSeconds"], 7200);
  const std::string shortLived = tokens.issue("fedhpa-system", "controller", request(2))["status"]["token"];
  EXPECT_TRUE(tokens.authenticate(shortLived));
  time_.advance(std::chrono::seconds(2));
  EXPECT_FALSE(tokens.authenticate(shortLived));
}

TEST_F(ServiceAccountTokensTest, ATokenForAnotherAudienceDoesNotAuthenticateHere) {
  auto tokens = issuer();
  json other = request();
  other["spec"]["audiences"] = {"vault"};
  const std::string token = tokens.issue("fedhpa-system", "controller", other)["status"]["token"];
  EXPECT_FALSE(tokens.authenticate(token));
}

}  // namespace
}  // namespace fedhpa::sim
