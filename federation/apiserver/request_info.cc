#include "federation/apiserver/request_info.h"

#include <vector>

namespace fedhpa::apiserver {

namespace {

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

// Go's strconv.ParseBool, which kube-apiserver uses for query flags (the Python client sends "True").
bool isWatchParam(const std::optional<std::string>& value) {
  return value && (*value == "1" || *value == "t" || *value == "T" || *value == "true" || *value == "True" ||
                   *value == "TRUE");
}

}  // namespace

std::optional<RequestInfo> parseResourceRequest(const http::Request& request) {
  std::vector<std::string> parts = splitPath(request.path);
  RequestInfo info;
  std::size_t at = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    info.version = parts[1];
    at = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    at = 3;
  } else {
    return std::nullopt;
  }
  bool watchPath = false;
  if (parts[at] == "watch") {  // the deprecated /apis/g/v/watch/... form
    watchPath = true;
    ++at;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  if (rest.empty()) return std::nullopt;
  if (rest[0] == "namespaces" && rest.size() > 1) {
    info.namespaceName = rest[1];
    // /namespaces/x/status and /namespaces/x/finalize are subresources of the namespace itself.
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
      rest.erase(rest.begin(), rest.begin() + 2);
    } else {
      info.namespaceName.clear();
    }
  }
  if (rest.size() > 3) return std::nullopt;
  info.resource = rest[0];
  if (rest.size() > 1) info.name = rest[1];
  if (rest.size() > 2) info.subresource = rest[2];

  const std::string& method = request.method;
  if (method == "GET" || method == "HEAD") {
    if (watchPath || isWatchParam(request.queryParam("watch")))
      info.verb = "watch";
    else
      info.verb = info.name.empty() ? "list" : "get";
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = info.name.empty() ? "deletecollection" : "delete";
  } else {
    info.verb = method;
  }
  return info;
}

}  // namespace fedhpa::apiserver
