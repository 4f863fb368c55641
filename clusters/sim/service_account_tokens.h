// kube-apiserver's service-account tokens, for the member-sim: the TokenRequest subresource
// (POST .../serviceaccounts/<name>/token) issues a JWT, and the authenticator accepts it as
// system:serviceaccount:<ns>:<name> (groups system:serviceaccounts, system:serviceaccounts:<ns>,
// system:authenticated) while it is unexpired, names the API's audience and the ServiceAccount it
// was issued for still exists with the same uid. kube signs with an RSA or ECDSA key that other
// parties verify; here the process that issues is the only one that checks, so the token is an
// HS256 JWT under a random key made per process (a restarted member-sim forgets its tokens, as a
// cluster whose signing key was replaced does).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "federation/apiserver/http/http_types.h"
#include "federation/common/time_source.h"

namespace fedhpa::sim {

// The audience (and issuer) of the tokens, kube's default --api-audiences for a cluster whose
// --service-account-issuer is this.
inline constexpr const char* kApiAudience = "https://kubernetes.default.svc.cluster.local";

struct TokenLifetimes {
  // TokenRequest refuses less (kube: "may not specify a duration less than 10 minutes"); the
  // member-sim's --testing-min-token-expiration lowers it so tests can see tokens expire.
  std::chrono::seconds minimum{600};
  std::chrono::seconds byDefault{3600};  // spec.expirationSeconds when unset
  // kube-apiserver's --service-account-max-token-expiration: longer requests are cut to it.
  std::optional<std::chrono::seconds> maximum;
};

class ServiceAccountTokens {
 public:
  // The uid of a ServiceAccount that exists and is not being deleted; nullopt otherwise.
  using UidLookup = std::function<std::optional<std::string>(const std::string& namespaceName, const std::string& name)>;

  ServiceAccountTokens(TimeSource& time, UidLookup uidOf, TokenLifetimes lifetimes);

  // The answer to a TokenRequest for ServiceAccount namespaceName/name: the request with its
  // spec defaulted and status.token / status.expirationTimestamp set. Throws api::ApiError: 404
  // when the ServiceAccount does not exist, 422 for a spec kube refuses (or a boundObjectRef,
  // which the member-sim does not support), 400 for a body that is not a TokenRequest.
  nlohmann::json issue(const std::string& namespaceName, const std::string& name, nlohmann::json request);

  // The user a bearer token stands for; nullopt when it is not a valid, live token of this process.
  std::optional<apiserver::http::UserInfo> authenticate(const std::string& token);

 private:
  std::string sign(const std::string& signingInput) const;

  TimeSource& time_;
  UidLookup uidOf_;
  TokenLifetimes lifetimes_;
  std::string key_;  // 32 random bytes
};

}  // namespace fedhpa::sim
