#include "clusters/client/stored_token.h"

#include <yaml-cpp/yaml.h>

#include "clusters/client/cluster_registry.h"
#include "federation/api/machinery/base64.h"
#include "federation/api/time.h"

namespace fedhpa::clusters {

namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

// A JWT's claims (its middle part), unverified; nullopt when the token is not a JWT.
std::optional<json> jwtClaims(const std::string& token) {
  const auto first = token.find('.');
  const auto second = first == std::string::npos ? std::string::npos : token.find('.', first + 1);
  if (second == std::string::npos || token.find('.', second + 1) != std::string::npos) return std::nullopt;
  const auto payload = api::machinery::decodeBase64Url(std::string_view(token).substr(first + 1, second - first - 1));
  if (!payload) return std::nullopt;
  json claims = json::parse(*payload, nullptr, false);
  if (!claims.is_object()) return std::nullopt;
  return claims;
}

// Seconds since the epoch, within what a SystemTime holds (until 2262) with room to add to it.
std::optional<SystemTime> unixTime(const json& claim) {
  constexpr std::int64_t kLatest = 8'000'000'000;  // 2223
  if (!claim.is_number_integer() || claim.get<std::int64_t>() < 0 || claim.get<std::int64_t>() > kLatest) return std::nullopt;
  return SystemTime(std::chrono::seconds(claim.get<std::int64_t>()));
}

// YAML's sequence entry named `name` (kubeconfig's clusters, users, contexts).
YAML::Node named(const YAML::Node& list, const std::string& name) {
  if (list.IsSequence())
    for (const auto& entry : list)
      if (entry.IsMap() && entry["name"] && entry["name"].IsScalar() && entry["name"].as<std::string>() == name) return entry;
  return YAML::Node(YAML::NodeType::Undefined);
}

}  // namespace

SystemTime TokenSchedule::refreshAt() const {
  return issuedAt + std::min<std::chrono::seconds>(lifetime() * 4 / 5, kMaxAge);
}

std::chrono::seconds TokenSchedule::lifetime() const {
  return std::chrono::duration_cast<std::chrono::seconds>(expiresAt - issuedAt);
}

std::optional<TokenSchedule> tokenSchedule(const std::string& token, const std::string& expirationAnnotation) {
  const auto claims = jwtClaims(token);
  if (!claims) return std::nullopt;
  const auto issued = unixTime(claims->value("iat", json()));
  std::optional<SystemTime> expires = api::parseRfc3339(expirationAnnotation);
  if (!expires) expires = unixTime(claims->value("exp", json()));
  const json subject = claims->value("sub", json());
  if (!issued || !expires || *expires <= *issued || !subject.is_string()) return std::nullopt;
  // sub is system:serviceaccount:<namespace>:<name>; neither part may hold a ':'.
  const std::string sub = subject.get<std::string>();
  if (sub.rfind(kServiceAccountPrefix, 0) != 0) return std::nullopt;
  const std::string account = sub.substr(kServiceAccountPrefix.size());
  const auto colon = account.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == account.size() || account.find(':', colon + 1) != std::string::npos)
    return std::nullopt;
  return TokenSchedule{*issued, *expires, account.substr(0, colon), account.substr(colon + 1)};
}

std::optional<StoredToken> storedToken(const json& cluster, const json& secret) {
  const std::string token = memberRestConfig(cluster, secret).bearerToken;
  const json annotations = secret.value("metadata", json::object()).value("annotations", json::object());
  const json expiration = annotations.is_object() ? annotations.value(kTokenExpirationAnnotation, json()) : json();
  auto schedule = tokenSchedule(token, expiration.is_string() ? expiration.get<std::string>() : "");
  if (!schedule) return std::nullopt;
  return StoredToken{token, std::move(*schedule)};
}

std::string withToken(const std::string& kubeconfig, const std::string& token) {
  YAML::Node root;
  try {
    root = YAML::Load(kubeconfig);
  } catch (const YAML::Exception& error) {
    throw KubeconfigError(std::string("kubeconfig: ") + error.what());
  }
  if (!root.IsMap() || !root["current-context"] || !root["current-context"].IsScalar())
    throw KubeconfigError("kubeconfig: no current-context");
  const std::string contextName = root["current-context"].as<std::string>();
  const YAML::Node context = named(root["contexts"], contextName);
  if (!context || !context["context"] || !context["context"]["user"] || !context["context"]["user"].IsScalar())
    throw KubeconfigError("kubeconfig: context " + contextName + " names no user");
  const std::string userName = context["context"]["user"].as<std::string>();
  YAML::Node user = named(root["users"], userName);
  if (!user || !user["user"] || !user["user"].IsMap()) throw KubeconfigError("kubeconfig: no user " + userName);
  user["user"]["token"] = token;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace fedhpa::clusters
