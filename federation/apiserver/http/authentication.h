// kube-apiserver's two authenticators that fedhpa supports: x509 client certificates (user = CN,
// groups = O) and a static token file (CSV: token,user,uid,"group1,group2").
#pragma once

#include <map>
#include <optional>
#include <string>

#include "federation/apiserver/http/http_types.h"

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

}  // namespace fedhpa::apiserver::http
