#include "federation/apiserver/http/authentication.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "federation/common/ascii.h"

namespace fedhpa::apiserver::http {

namespace {

// One CSV line: fields separated by commas, a field may be quoted to hold commas.
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) fields.emplace_back();
    else if (c != '\r') fields.back() += c;
  }
  return fields;
}

std::vector<std::string> splitGroups(const std::string& text) {
  std::vector<std::string> groups;
  std::stringstream stream(text);
  std::string group;
  while (std::getline(stream, group, ','))
    if (!group.empty()) groups.push_back(group);
  return groups;
}

}  // namespace

TokenAuthenticator TokenAuthenticator::fromFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("--token-auth-file " + path + ": cannot be read");
  std::stringstream contents;
  contents << file.rdbuf();
  return fromCsv(contents.str(), path);
}

TokenAuthenticator TokenAuthenticator::fromCsv(const std::string& csv, const std::string& source) {
  TokenAuthenticator authenticator;
  std::stringstream lines(csv);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty() || line == "\r" || line[0] == '#') continue;
    const auto fields = csvFields(line);
    if (fields.size() < 3 || fields[0].empty() || fields[1].empty())
      throw std::runtime_error(source + ":" + std::to_string(number) + ": want token,user,uid[,\"groups\"]");
    UserInfo user{fields[1], fields[2], fields.size() > 3 ? splitGroups(fields[3]) : std::vector<std::string>{}};
    user.groups.push_back("system:authenticated");
    authenticator.users_[fields[0]] = user;
  }
  return authenticator;
}

std::optional<std::string> bearerToken(const std::string& authorizationHeader) {
  // As kube-apiserver's bearer token authenticator: the scheme in any case, the token up to the
  // next space, surrounding whitespace ignored.
  std::string header = authorizationHeader;
  const auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  header.erase(header.begin(), std::find_if(header.begin(), header.end(), notSpace));
  header.erase(std::find_if(header.rbegin(), header.rend(), notSpace).base(), header.end());
  const auto space = header.find(' ');
  if (space == std::string::npos) return std::nullopt;
  if (asciiLowered(header.substr(0, space)) != "bearer") return std::nullopt;
  std::string token = header.substr(space + 1, header.find(' ', space + 1) - space - 1);
  if (token.empty()) return std::nullopt;
  return token;
}

std::optional<UserInfo> TokenAuthenticator::authenticate(const std::string& authorizationHeader) const {
  const auto token = bearerToken(authorizationHeader);
  if (!token) return std::nullopt;
  const auto it = users_.find(*token);
  if (it == users_.end()) return std::nullopt;
  return it->second;
}

UserInfo userFromSubject(const std::string& commonName, const std::vector<std::string>& organizations) {
  UserInfo user{commonName, "", organizations};
  user.groups.push_back("system:authenticated");
  return user;
}

std::optional<UserInfo> certificateUser(ssl_st* ssl) {
  X509* certificate = SSL_get1_peer_certificate(ssl);
  if (!certificate) return std::nullopt;
  std::optional<UserInfo> user;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* subject = X509_get_subject_name(certificate);
    std::string commonName;
    std::vector<std::string> organizations;
    for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
      X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
      const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
      const ASN1_STRING* data = X509_NAME_ENTRY_get_data(entry);
      const std::string value(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                              static_cast<std::size_t>(ASN1_STRING_length(data)));
      if (nid == NID_commonName) commonName = value;
      if (nid == NID_organizationName) organizations.push_back(value);
    }
    if (!commonName.empty()) user = userFromSubject(commonName, organizations);
  }
  X509_free(certificate);
  return user;
}

}  // namespace fedhpa::apiserver::http
