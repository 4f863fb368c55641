// KubeClient on cpprestsdk's http_client (every outgoing connection in fedhpa goes through it):
// TLS with the kubeconfig's CA, tls-server-name and client certificate, http proxies, the
// credential a CredentialSource gives (sent once more with a fresh one after a 401), request
// timeouts (none on watches), and retries with capped exponential backoff and jitter for connection failures,
// 429 and 5xx on requests that are safe to repeat. cpprest headers stay inside the .cc.
#pragma once

#include <chrono>
#include <memory>

#include "clusters/client/kube_client.h"
#include "clusters/client/kubeconfig.h"
#include "federation/common/time_source.h"

namespace fedhpa::clusters {

struct RetryPolicy {
  int attempts = 5;
  std::chrono::milliseconds initialBackoff{100};
  std::chrono::milliseconds maxBackoff{3000};
};

struct RestClientOptions {
  std::chrono::seconds requestTimeout{30};
  RetryPolicy retry;
  // As client-go's "<binary>/<version> (<os>/<arch>)": an API server names the field manager of
  // this client's writes after the part before the first '/'.
  std::string userAgent = "fedhpa/v0 (linux)";
  // Leave metadata.managedFields out of every object read (answers, lists, watch events), as
  // client-go's informers do with a transform, but before it is built, not after: a controller
  // never reads them, and they are half of an object's bytes. An update sent without them keeps
  // the stored ones, so the objects read can be written back as they are.
  bool dropManagedFields = false;
  // The clock credential caches expire by (a token file read a minute ago, a plugin's
  // expirationTimestamp); the real one when unset.
  std::shared_ptr<TimeSource> timeSource;
};

// The User-Agent of the controller-manager's clients: what it writes, on the federation and on
// members, is managed by "fedhpa-controller".
inline constexpr const char* kControllerUserAgent = "fedhpa-controller/v0 (linux)";

// cpprestsdk runs all its I/O and continuations on one process-wide pool of 40 threads unless told
// otherwise before its first use (on 2 cores, 40 threads only hand work between each other):
// each fedhpa command that makes outgoing calls sizes it first thing.
void initializeHttpClientPool(std::size_t threads);

class RestClient : public KubeClient {
 public:
  RestClient(RestConfig config, RestClientOptions options = {});
  ~RestClient() override;

  json get(const Resource& resource, const std::string& namespaceName, const std::string& name) override;
  json list(const Resource& resource, const std::string& namespaceName, const ListOptions& options) override;
  json create(const Resource& resource, const std::string& namespaceName, const json& object) override;
  json update(const Resource& resource, const json& object, const std::string& subresource = "") override;
  json mergePatch(const Resource& resource, const std::string& namespaceName, const std::string& name,
                  const json& patch, const std::string& subresource = "") override;
  json remove(const Resource& resource, const std::string& namespaceName, const std::string& name,
              const std::string& propagationPolicy = "", const std::string& resourceVersion = "") override;
  std::unique_ptr<WatchStream> watch(const Resource& resource, const std::string& namespaceName,
                                     const std::string& resourceVersion, const ListOptions& options) override;
  int probe(const std::string& path) override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedhpa::clusters
