// kube-apiserver's two authenticators that fedhpa supports: x509 client certificates (user = CN,
// groups = O) and a static token file (CSV: token,user,uid,"group1,group2").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "federation/apiserver/http/http_types.h"

struct ssl_st;  // OpenSSL's SSL

namespace fedhpa::apiserver::http {

class TokenAuthenticator {
 public:
  // Throws std::runtime_error naming the file and line when the file cannot be read or parsed.
  static TokenAuthenticator fromFile(const std::string& path);
  static TokenAuthenticator fromCsv(const std::string& csv, const std::string& source);
  // The user an "Authorization: Bearer <token>" header stands for.
  std::optional<UserInfo> authenticate(const std::string& authorizationHeader) const;

 private:
  std::map<std::string, UserInfo> users_;
};

// The token of an "Authorization: Bearer <token>" header; nullopt for any other header.
std::optional<std::string> bearerToken(const std::string& authorizationHeader);

// Subject fields of a verified certificate, "/O=system:masters/CN=admin" style, as UserInfo.
UserInfo userFromSubject(const std::string& commonName, const std::vector<std::string>& organizations);

// The user of a TLS connection's client certificate, once the handshake has verified it against
// the client CA; nullopt without one, or when it names no CN.
std::optional<UserInfo> certificateUser(ssl_st* ssl);

}  // namespace fedhpa::apiserver::http
