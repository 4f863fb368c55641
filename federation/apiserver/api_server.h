// fedhpa's Kubernetes-compatible API server, as a library: storage + served resources + HTTP.
// `fedhpa apiserver` runs it over SQLite; the member-cluster simulator runs it in memory.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "federation/api/resource.h"
#include "federation/apiserver/authz/secure_handler.h"
#include "federation/apiserver/http/server.h"
#include "federation/apiserver/resource_store.h"
#include "federation/common/time_source.h"
#include "federation/storage/cacher.h"
#include "federation/storage/storage.h"

namespace fedhpa::apiserver {

// A subresource the embedding program serves, as kube-apiserver's REST storage serves
// serviceaccounts/token: a POST to .../<resource>/<name>/<subresource> is answered, once
// authenticated and authorized, with `create`'s result as a 201. `create` gets the object's
// namespace and name and the decoded body, and throws api::ApiError for what it refuses.
struct CreateSubresource {
  std::string group;
  std::string resource;
  std::string subresource;
  std::function<nlohmann::json(const std::string& namespaceName, const std::string& name, nlohmann::json body)> create;
};

struct ApiServerOptions {
  http::ServerOptions http;
  // Namespaces that exist from the start, as kube-apiserver creates default, kube-system, kube-public.
  std::vector<std::string> initialNamespaces = {"default", "kube-system", "kube-public", "federation-system"};
  // When set, what the HTTP server calls instead of the API itself, given the API's handler: how
  // the member-cluster simulator puts its injected latency and freeze in front of it. The wrapper
  // must let the handler go once the server has stopped: the handler (RBAC's policy cache in it)
  // watches this server's storage.
  std::function<std::shared_ptr<http::Handler>(std::shared_ptr<http::Handler>)> wrapHandler;
  // Authorization mode and audit log. With RBAC the bootstrap policy is created at construction.
  authz::SecurityOptions security;
  // kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight (0: no limit).
  std::size_t maxRequestsInflight = 400;
  std::size_t maxMutatingRequestsInflight = 200;
  // kube-apiserver's --min-request-timeout: a watch without timeoutSeconds ends after a random
  // time in [min, 2*min) so that clients spread their re-watches. Zero: it never ends by itself.
  std::chrono::seconds minRequestTimeout{1800};
  // Threads that serve LIST and deletecollection, away from the HTTP threads.
  int heavyRequestWorkers = 2;
  // kube-apiserver's --watch-cache: lists and watches served from a cache in front of the storage
  // (its resourcePrefixes are filled in from the served resources). nullopt: straight to storage.
  std::optional<storage::CacherOptions> watchCache = storage::CacherOptions{};
  std::vector<CreateSubresource> createSubresources;
};

class ApiServer {
 public:
  ApiServer(std::unique_ptr<storage::Storage> storage, std::vector<std::shared_ptr<const api::ResourceType>> resources,
            ApiServerOptions options);
  ~ApiServer();

  std::uint16_t start();  // returns the bound port
  void stop();

  // The store of a served resource, for controllers that run inside the server's process (the
  // member-cluster simulator's); nullptr when the resource is not served.
  ResourceStore* store(const std::string& group, const std::string& resource);

  // The API as the HTTP server calls it (without wrapHandler), for driving it without a socket:
  // the fuzz harnesses (test/fuzz) send their requests here.
  std::shared_ptr<http::Handler> handler() const;

 private:
  class Dispatcher;
  authz::RbacStores rbacStores();
  RealTimeSource time_;  // the watch cache's history age
  std::unique_ptr<storage::Storage> storage_;
  std::shared_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<http::Server> server_;
  ApiServerOptions options_;
};

}  // namespace fedhpa::apiserver
