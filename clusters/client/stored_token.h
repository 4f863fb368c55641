// The token a member's Secret holds, read as the rotator and the prober need it: when it was
// issued, when it expires, whose it is; and the same kubeconfig with another token in its place.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "clusters/client/kube_client.h"
#include "federation/common/time_source.h"

namespace fedhpa::clusters {

// On a member's Secret: when the token it holds expires (RFC 3339), as the member answered the
// TokenRequest (join and the rotator write it).
inline constexpr const char* kTokenExpirationAnnotation = "federation.fedhpa.io/token-expiration";

// When a stored token was issued and expires, and whose it is: read from the token itself (kube's
// service-account tokens are JWTs carrying iat, exp and sub, read here without checking the
// signature, which only the member can), with the Secret's token-expiration annotation, where
// present, taking precedence over exp (it is what the member answered as status.expirationTimestamp).
struct TokenSchedule {
  SystemTime issuedAt;
  SystemTime expiresAt;
  std::string serviceAccountNamespace;
  std::string serviceAccountName;

  static constexpr std::chrono::hours kMaxAge{24};
  // 80 % of the lifetime, or 24 hours after issue when that comes first.
  SystemTime refreshAt() const;
  std::chrono::seconds lifetime() const;
};

// nullopt for a token that is not a service account's JWT with an issue and an expiry time (a
// static token or a client certificate an operator stored by hand): not the rotator's to renew.
std::optional<TokenSchedule> tokenSchedule(const std::string& token, const std::string& expirationAnnotation);

// The Secret's token and its schedule; nullopt when the Secret holds no token to rotate.
struct StoredToken {
  std::string token;
  TokenSchedule schedule;
};
std::optional<StoredToken> storedToken(const json& cluster, const json& secret);

// A kubeconfig's text with the current context's user holding `token` in place of what it held;
// everything else is kept as it was. Throws KubeconfigError.
std::string withToken(const std::string& kubeconfig, const std::string& token);

}  // namespace fedhpa::clusters
