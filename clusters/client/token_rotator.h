// Member tokens that rotate. The token `fedhpa join` stores for a member is a ServiceAccount token
// with a bounded lifetime (TokenRequest); before it passes 80 % of that lifetime (or 24 hours,
// whichever comes first: kubelet's rule for the projected tokens it refreshes) the rotator asks
// the member for the account's next token, with the credential it holds (join's Role allows the
// account exactly that), and writes it into the member's Secret. The registry then hands it to the
// member's client in place (cluster_registry.h), so no request goes out with a token the member no
// longer takes. A token that expired anyway (no controller ran for its last fifth) cannot be
// renewed with itself: the prober shows it on the Cluster (Ready False, CredentialExpired), and a
// re-join replaces it.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/member_identity.h"
#include "clusters/client/stored_token.h"
#include "federation/common/time_source.h"

namespace fedhpa::clusters {

struct TokenRotationOptions {
  // How often the rotator looks at every member's token (a look reads the registry's caches only).
  std::chrono::milliseconds checkPeriod{1000};
  // After a failed rotation, the wait before the next try of that member (doubling up to the cap).
  std::chrono::milliseconds initialRetry{1000};
  std::chrono::milliseconds maxRetry{60000};
};

class TokenRotator {
 public:
  TokenRotator(KubeClient& federation, ClusterRegistry& registry, TimeSource& time, TokenRotationOptions options = {});

  // One look at every member: those whose token is due get the next one. One caller at a time
  // (the controller-manager's ticker). Never throws: a member
  // whose rotation failed is tried again after a backoff, while its current token still works.
  // Returns how many members got a new token.
  int rotateDue();
  const TokenRotationOptions& options() const { return options_; }

 private:
  struct Backoff {
    MonotonicTime notBefore;
    std::chrono::milliseconds next{0};
  };
  // A token the member issued that the Secret does not hold yet (its update failed): stored at the
  // next try instead of a fresh one, so a federation that refuses the update does not make the
  // member mint a token at every try.
  struct Unstored {
    IssuedToken issued;
    std::string replaces;  // the token the Secret held when it was asked for
  };
  bool rotate(const std::string& name);  // throws ClientError, KubeconfigError
  void note(const std::string& name, const std::string& message, bool warn);  // once per state

  KubeClient& federation_;
  ClusterRegistry& registry_;
  TimeSource& time_;
  TokenRotationOptions options_;
  std::map<std::string, Backoff> backoff_;  // by member, after a failed rotation
  std::map<std::string, Unstored> unstored_;  // by member
  std::map<std::string, std::string> noted_;  // the last note logged per member, so a state is logged once
};

}  // namespace fedhpa::clusters
