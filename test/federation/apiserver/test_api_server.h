// An ApiServer as the HTTP-level tests run one: over in-memory SQLite, on a free loopback port,
// serving the federation's resources or a member-sim's; started when made, stopped when destroyed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "federation/api/resource.h"
#include "federation/apiserver/api_server.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::apiserver::testing {

// The federation's resources, or what `fedhpa member-sim` serves of them (no Clusters).
inline std::vector<std::shared_ptr<const api::ResourceType>> resourcesOf(ResourceSet set) {
  auto resources = api::federationResources();
  if (set == ResourceSet::MemberSim)
    std::erase_if(resources, [](const auto& type) { return type->names().resource == "clusters"; });
  return resources;
}

class TestApiServer {
 public:
  explicit TestApiServer(ResourceSet set = ResourceSet::Federation, ApiServerOptions options = {})
      : server_(storage::SqliteStorage::openInMemory({}), resourcesOf(set), onAnyPort(std::move(options))),
        port_(server_.start()) {}

  std::uint16_t port() const { return port_; }

 private:
  static ApiServerOptions onAnyPort(ApiServerOptions options) {
    options.http.port = 0;
    return options;
  }

  ApiServer server_;
  std::uint16_t port_;
};

}  // namespace fedhpa::apiserver::testing
