// Where a client's credential comes from, asked before every request: the seam between RestClient
// and the ways kubeconfig users authenticate. A source caches what it fetched (an exec plugin's
// credential until it expires, a token file for a minute) and is told when the server answered
// 401, so that it fetches a fresh one instead of sending the rejected one again.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "clusters/client/kubeconfig.h"
#include "federation/common/time_source.h"

namespace fedhpa::clusters {

struct Credential {
  std::string bearerToken;
  std::string clientCertPem;  // with clientKeyPem, or both empty
  std::string clientKeyPem;
  bool operator==(const Credential&) const = default;
};

// No credential could be had (a plugin missing or failing, a token file unreadable at first read).
class CredentialError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // The credential for the next request. Throws CredentialError.
  virtual Credential current() = 0;
  // The server answered 401 to a request sent with `credential`. True when a different credential
  // may now be had, so that the request is worth sending once more.
  virtual bool rejected(const Credential& credential) = 0;
};

// What the kubeconfig holds inline: never changes, a 401 is final.
class StaticCredentials final : public CredentialSource {
 public:
  explicit StaticCredentials(Credential credential) : credential_(std::move(credential)) {}
  Credential current() override { return credential_; }
  bool rejected(const Credential&) override { return false; }

 private:
  const Credential credential_;
};

// users[].user.tokenFile: read again once the last read is a minute old, and at once after a 401,
// as client-go's cached file token source does (projected service-account tokens rotate hourly).
// A read that fails keeps the last token, as client-go does, so a file being rewritten costs nothing;
// with no token at all, current() throws.
class TokenFileCredentials final : public CredentialSource {
 public:
  static constexpr std::chrono::seconds kRereadPeriod{60};
  TokenFileCredentials(std::string path, Credential initial, std::shared_ptr<TimeSource> time);
  Credential current() override;
  bool rejected(const Credential& credential) override;

 private:
  bool reread();  // under mutex_; true when the file gave a token

  const std::string path_;
  const std::shared_ptr<TimeSource> time_;
  std::mutex mutex_;
  Credential credential_;  // the client certificate, if any, stays as it was loaded
  MonotonicTime readAt_;
};

// The source a RestConfig describes: config.credentials when set, else (as client-go orders them)
// a token file, an inline token or client certificate, then an exec plugin.
std::shared_ptr<CredentialSource> credentialSourceFor(const RestConfig& config, std::shared_ptr<TimeSource> time);

}  // namespace fedhpa::clusters
