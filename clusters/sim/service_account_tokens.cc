#include "clusters/sim/service_account_tokens.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <stdexcept>

#include "federation/api/machinery/base64.h"
#include "federation/api/status.h"
#include "federation/api/time.h"

namespace fedhpa::sim {

using nlohmann::json;

namespace {

constexpr long long kLongestExpirationSeconds = 1LL << 32;  // kube's validation bound

using api::machinery::decodeBase64Url;
using api::machinery::encodeBase64Url;

api::ApiError invalidRequest(const std::string& name, std::vector<api::StatusCause> causes) {
  return api::ApiError::invalid("authentication.k8s.io", "TokenRequest", name, std::move(causes));
}

std::int64_t unixSeconds(SystemTime time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens(TimeSource& time, UidLookup uidOf, TokenLifetimes lifetimes)
    : time_(time), uidOf_(std::move(uidOf)), lifetimes_(lifetimes), key_(32, '\0') {
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key_.data()), static_cast<int>(key_.size())) != 1)
    throw std::runtime_error("service-account tokens: no random bytes for the signing key");
}

std::string ServiceAccountTokens::sign(const std::string& signingInput) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
            reinterpret_cast<const unsigned char*>(signingInput.data()), signingInput.size(), digest, &length))
    throw std::runtime_error("service-account tokens: HMAC-SHA256 failed");
  return std::string(reinterpret_cast<const char*>(digest), length);
}

json ServiceAccountTokens::issue(const std::string& namespaceName, const std::string& name, json request) {
  if (!request.is_object()) throw api::ApiError::badRequest("the body of a TokenRequest must be a JSON object");
  if (request.contains("kind") && request["kind"] != "TokenRequest")
    throw api::ApiError::badRequest("expected a TokenRequest, got " + api::quoted(request["kind"].dump()));
  json spec = request.value("spec", json::object());
  if (!spec.is_object()) throw invalidRequest(name, {api::fieldInvalid("spec", spec, "must be an object")});

  std::vector<api::StatusCause> causes;
  long long seconds = lifetimes_.byDefault.count();
  if (spec.contains("expirationSeconds") && !spec["expirationSeconds"].is_null()) {
    if (!spec["expirationSeconds"].is_number_integer()) {
      causes.push_back(api::fieldInvalid("spec.expirationSeconds", spec["expirationSeconds"], "must be an integer"));
    } else {
      seconds = spec["expirationSeconds"].get<long long>();
      if (seconds < lifetimes_.minimum.count())
        causes.push_back(api::fieldInvalid("spec.expirationSeconds", seconds,
                                           lifetimes_.minimum.count() == 600
                                               ? "may not specify a duration less than 10 minutes"
                                               : "may not specify a duration less than " +
                                                     std::to_string(lifetimes_.minimum.count()) + " seconds"));
      if (seconds > kLongestExpirationSeconds)
        causes.push_back(api::fieldInvalid("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"));
    }
  }
  if (spec.contains("boundObjectRef") && !spec["boundObjectRef"].is_null())
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: the member-sim issues no tokens bound to objects (Pods, Secrets, Nodes)",
                      "spec.boundObjectRef"});
  json audiences = spec.value("audiences", json::array());
  if (!audiences.is_array() || !std::all_of(audiences.begin(), audiences.end(), [](const json& a) { return a.is_string(); }))
    causes.push_back(api::fieldInvalid("spec.audiences", audiences, "must be a list of strings"));
  if (!causes.empty()) throw invalidRequest(name, std::move(causes));

  const auto uid = uidOf_(namespaceName, name);
  if (!uid) throw api::ApiError::notFound({"", "serviceaccounts"}, name);
  if (lifetimes_.maximum) seconds = std::min<long long>(seconds, lifetimes_.maximum->count());
  if (audiences.empty()) audiences = json::array({kApiAudience});

  const SystemTime now = time_.systemTime();
  const SystemTime expiry = now + std::chrono::seconds(seconds);
  std::string jti(16, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(jti.data()), static_cast<int>(jti.size())) != 1)
    throw std::runtime_error("service-account tokens: no random bytes for a token id");
  const json claims = {{"aud", audiences},
                       {"exp", unixSeconds(expiry)},
                       {"iat", unixSeconds(now)},
                       {"nbf", unixSeconds(now)},
                       {"iss", kApiAudience},
                       {"jti", encodeBase64Url(jti)},
                       {"sub", "system:serviceaccount:" + namespaceName + ":" + name},
                       {"kubernetes.io",
                        {{"namespace", namespaceName}, {"serviceaccount", {{"name", name}, {"uid", *uid}}}}}};
  const std::string signingInput = encodeBase64Url(json{{"alg", "HS256"}, {"typ", "JWT"}}.dump()) + "." + encodeBase64Url(claims.dump());
  const std::string token = signingInput + "." + encodeBase64Url(sign(signingInput));

  spec["audiences"] = audiences;
  spec["expirationSeconds"] = seconds;
  spec["boundObjectRef"] = nullptr;
  json metadata = request.value("metadata", json::object());
  if (!metadata.is_object()) metadata = json::object();
  metadata["name"] = name;
  metadata["namespace"] = namespaceName;
  metadata["creationTimestamp"] = api::formatRfc3339(now);
  return {{"apiVersion", "authentication.k8s.io/v1"},
          {"kind", "TokenRequest"},
          {"metadata", metadata},
          {"spec", spec},
          {"status", {{"token", token}, {"expirationTimestamp", api::formatRfc3339(expiry)}}}};
}

std::optional<apiserver::http::UserInfo> ServiceAccountTokens::authenticate(const std::string& token) {
  const auto firstDot = token.find('.');
  const auto secondDot = firstDot == std::string::npos ? std::string::npos : token.find('.', firstDot + 1);
  if (secondDot == std::string::npos || token.find('.', secondDot + 1) != std::string::npos) return std::nullopt;
  const std::string signingInput = token.substr(0, secondDot);
  const auto signature = decodeBase64Url(token.substr(secondDot + 1));
  const std::string expected = sign(signingInput);
  if (!signature || signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0)
    return std::nullopt;
  // Signed by this process, so well formed; still read defensively.
  const auto header = decodeBase64Url(token.substr(0, firstDot));
  const auto payload = decodeBase64Url(token.substr(firstDot + 1, secondDot - firstDot - 1));
  if (!header || !payload) return std::nullopt;
  const json head = json::parse(*header, nullptr, false);
  const json claims = json::parse(*payload, nullptr, false);
  if (!head.is_object() || head.value("alg", "") != "HS256" || !claims.is_object()) return std::nullopt;
  if (claims.value("iss", "") != kApiAudience) return std::nullopt;
  const json audiences = claims.value("aud", json::array());
  if (!audiences.is_array() || std::find(audiences.begin(), audiences.end(), json(kApiAudience)) == audiences.end())
    return std::nullopt;
  const std::int64_t now = unixSeconds(time_.systemTime());
  const json expiry = claims.value("exp", json());
  const json notBefore = claims.value("nbf", json());
  if (!expiry.is_number_integer() || now >= expiry.get<std::int64_t>()) return std::nullopt;
  if (!notBefore.is_number_integer() || now < notBefore.get<std::int64_t>()) return std::nullopt;
  const json identity = claims.value("kubernetes.io", json::object());
  if (!identity.is_object()) return std::nullopt;
  const std::string namespaceName = identity.value("namespace", "");
  const json account = identity.value("serviceaccount", json::object());
  if (!account.is_object()) return std::nullopt;
  const std::string name = account.value("name", "");
  const std::string uid = account.value("uid", "");
  // A deleted ServiceAccount's tokens die with it, even one recreated under the same name.
  if (namespaceName.empty() || name.empty() || uidOf_(namespaceName, name) != uid) return std::nullopt;
  return apiserver::http::UserInfo{"system:serviceaccount:" + namespaceName + ":" + name,
                                   uid,
                                   {"system:serviceaccounts", "system:serviceaccounts:" + namespaceName,
                                    "system:authenticated"}};
}

}  // namespace fedhpa::sim
