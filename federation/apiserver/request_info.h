// What a request URL names, parsed the way kube-apiserver's RequestInfoFactory does it:
// /api/v1/namespaces/default/events, /apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers/x/status.
#pragma once

#include <optional>
#include <string>

#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver {

struct RequestInfo {
  std::string group;        // "" for /api
  std::string version;
  std::string namespaceName;  // "" for cluster-scoped or all-namespaces requests
  std::string resource;
  std::string name;
  std::string subresource;
  // get list watch create update patch delete deletecollection
  std::string verb;
};

// nullopt for paths that are not resource requests (/version, /apis, /openapi/v3, ...).
std::optional<RequestInfo> parseResourceRequest(const http::Request& request);

}  // namespace fedhpa::apiserver
