#include "clusters/client/credential_source.h"

#include "clusters/client/exec_credentials.h"
#include "federation/common/logging.h"

namespace fedhpa::clusters {

TokenFileCredentials::TokenFileCredentials(std::string path, Credential initial, std::shared_ptr<TimeSource> time)
    : path_(std::move(path)), time_(std::move(time)), credential_(std::move(initial)), readAt_(time_->monotonicTime()) {
  // As client-go: the file's token from the first request on, the inline one only while the file cannot be read.
  reread();
}

bool TokenFileCredentials::reread() {
  readAt_ = time_->monotonicTime();
  try {
    std::string token = readTokenFile(path_);
    if (token.empty()) return false;
    credential_.bearerToken = std::move(token);
    return true;
  } catch (const KubeconfigError& error) {
    FEDHPA_LOG(warning) << "keeping the last token: " << error.what();
    return false;
  }
}

Credential TokenFileCredentials::current() {
  std::lock_guard lock(mutex_);
  if (time_->monotonicTime() - readAt_ >= kRereadPeriod || credential_.bearerToken.empty()) reread();
  if (credential_.bearerToken.empty()) throw CredentialError("token file " + path_ + ": no token to send");
  return credential_;
}

bool TokenFileCredentials::rejected(const Credential& credential) {
  std::lock_guard lock(mutex_);
  if (credential_.bearerToken != credential.bearerToken) return true;  // another request read a newer one already
  reread();
  return credential_.bearerToken != credential.bearerToken;
}

std::shared_ptr<CredentialSource> credentialSourceFor(const RestConfig& config, std::shared_ptr<TimeSource> time) {
  if (config.credentials) return config.credentials;
  const Credential inline_{config.bearerToken, config.clientCertPem, config.clientKeyPem};
  if (!config.tokenFile.empty()) return std::make_shared<TokenFileCredentials>(config.tokenFile, inline_, std::move(time));
  // A token wins over a plugin, as in client-go (its exec round tripper leaves a request that
  // already carries an Authorization header alone).
  if (config.exec && config.bearerToken.empty())
    return std::make_shared<ExecCredentials>(*config.exec, config.execClusterInfo, std::move(time), inline_);
  return std::make_shared<StaticCredentials>(inline_);
}

}  // namespace fedhpa::clusters
