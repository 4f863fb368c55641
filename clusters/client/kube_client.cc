#include "clusters/client/kube_client.h"

namespace fedhpa::clusters {

ClientError errorFromStatus(int httpCode, const std::string& body) {
  const json status = json::parse(body, nullptr, false);
  std::string reason;
  std::string message = "the server responded with HTTP " + std::to_string(httpCode);
  if (status.is_object() && status.value("kind", "") == "Status") {
    reason = status.value("reason", "");
    message = status.value("message", message);
  }
  using Kind = ClientError::Kind;
  Kind kind = Kind::Other;
  if (reason == "NotFound" || (reason.empty() && httpCode == 404)) kind = Kind::NotFound;
  else if (reason == "AlreadyExists") kind = Kind::AlreadyExists;
  else if (reason == "Conflict" || (reason.empty() && httpCode == 409)) kind = Kind::Conflict;
  else if (reason == "Invalid" || httpCode == 422) kind = Kind::Invalid;
  else if (reason == "Expired" || reason == "Gone" || httpCode == 410) kind = Kind::Expired;
  else if (httpCode == 401) kind = Kind::Unauthorized;
  else if (httpCode == 403) kind = Kind::Forbidden;
  return ClientError(kind, httpCode, reason, message);
}

std::string Resource::path(const std::string& namespaceName, const std::string& name, const std::string& subresource) const {
  std::string out = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !namespaceName.empty()) out += "/namespaces/" + namespaceName;
  out += "/" + resource;
  if (!name.empty()) out += "/" + name;
  if (!subresource.empty()) out += "/" + subresource;
  return out;
}

}  // namespace fedhpa::clusters
