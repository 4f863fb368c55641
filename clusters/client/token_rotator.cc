#include "clusters/client/token_rotator.h"

#include <algorithm>

#include "federation/api/machinery/base64.h"
#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::clusters {

TokenRotator::TokenRotator(KubeClient& federation, ClusterRegistry& registry, TimeSource& time, TokenRotationOptions options)
    : federation_(federation), registry_(registry), time_(time), options_(options) {}

int TokenRotator::rotateDue() {
  int rotated = 0;
  const auto names = registry_.names();
  for (const auto& name : names) {
    try {
      if (rotate(name)) {
        ++rotated;
        backoff_.erase(name);
      }
    } catch (const std::exception& error) {
      // The token in use still works (a fifth of its lifetime is left): try again, later each time.
      Backoff& backoff = backoff_[name];
      backoff.next = backoff.next.count() == 0 ? options_.initialRetry : std::min(backoff.next * 2, options_.maxRetry);
      backoff.notBefore = time_.monotonicTime() + backoff.next;
      FEDHPA_LOG(warning) << "cluster " << name << ": rotating the federation's token failed (next try in "
                          << backoff.next.count() << "ms): " << error.what();
    }
  }
  // Members that left take their state with them.
  const auto forgetGone = [&names](auto& byMember) {
    for (auto it = byMember.begin(); it != byMember.end();)
      it = std::find(names.begin(), names.end(), it->first) == names.end() ? byMember.erase(it) : std::next(it);
  };
  forgetGone(backoff_);
  forgetGone(unstored_);
  forgetGone(noted_);
  return rotated;
}

void TokenRotator::note(const std::string& name, const std::string& message, bool warn) {
  auto& last = noted_[name];
  if (last == message) return;
  last = message;
  if (warn) FEDHPA_LOG(warning) << "cluster " << name << ": " << message;
  else FEDHPA_LOG(info) << "cluster " << name << ": " << message;
}

bool TokenRotator::rotate(const std::string& name) {
  const auto cluster = registry_.cluster(name);
  const auto cached = registry_.secret(name);
  if (!cluster || !cached) return false;
  std::optional<StoredToken> stored;
  try {
    stored = storedToken(*cluster, *cached);
  } catch (const KubeconfigError&) {
    // The registry has said why it cannot use this Secret.
  }
  if (!stored) {
    note(name, "its Secret holds no service-account token with an expiry: not rotated", false);
    return false;
  }
  const SystemTime now = time_.systemTime();
  const TokenSchedule& schedule = stored->schedule;
  if (now < schedule.refreshAt()) {
    noted_.erase(name);
    return false;
  }
  if (now >= schedule.expiresAt) {
    note(name, "the federation's token expired at " + api::formatRfc3339(schedule.expiresAt) +
                   " and cannot be renewed with itself: join the member again", true);
    return false;
  }
  if (const auto it = backoff_.find(name); it != backoff_.end() && time_.monotonicTime() < it->second.notBefore) return false;
  const auto client = registry_.client(name);
  if (!client) return false;

  // The cache may not show this rotator's last write yet: what is due is decided on the Secret as
  // it is now, and the write is conditional on the resourceVersion read.
  json secret = federation_.get(kSecrets, kFederationNamespace, secretNameOf(*cluster));
  const auto live = storedToken(*cluster, secret);
  if (!live || now < live->schedule.refreshAt() || now >= live->schedule.expiresAt) return false;

  // A token issued at an earlier try and not stored is stored now, while it is younger than its own
  // renewal time and the Secret still holds the token it replaces.
  IssuedToken issued;
  if (const auto it = unstored_.find(name); it != unstored_.end()) {
    const auto schedule = tokenSchedule(it->second.issued.token, it->second.issued.expirationTimestamp);
    if (it->second.replaces == live->token && schedule && now < schedule->refreshAt()) issued = it->second.issued;
    unstored_.erase(it);
  }
  if (issued.token.empty()) {
    issued = requestServiceAccountToken(*client, live->schedule.serviceAccountNamespace, live->schedule.serviceAccountName,
                                        live->schedule.lifetime());
  }
  unstored_[name] = Unstored{issued, live->token};
  const auto text = api::machinery::decodeBase64(secret["data"][kKubeconfigSecretKey].get<std::string>());
  if (!text) throw KubeconfigError("data.kubeconfig is not base64");
  secret["data"][kKubeconfigSecretKey] = api::machinery::encodeBase64(withToken(*text, issued.token));
  json& annotations = secret["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  if (issued.expirationTimestamp.empty()) annotations.erase(kTokenExpirationAnnotation);
  else annotations[kTokenExpirationAnnotation] = issued.expirationTimestamp;
  federation_.update(kSecrets, secret);
  unstored_.erase(name);
  FEDHPA_LOG(info) << "cluster " << name << ": rotated the federation's token (system:serviceaccount:"
                   << live->schedule.serviceAccountNamespace << ":" << live->schedule.serviceAccountName
                   << "), which expired at " << api::formatRfc3339(live->schedule.expiresAt) << "; the new one expires at "
                   << (issued.expirationTimestamp.empty() ? "(not said)" : issued.expirationTimestamp);
  return true;
}

}  // namespace fedhpa::clusters
