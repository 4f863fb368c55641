// How fedhpa talks to any Kubernetes API (the federation's or a member's): a small typed-error
// client interface, the seam that informers and controllers are written against and that unit
// tests mock. RestClient (rest_client.h) implements it on cpprestsdk.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace fedhpa::clusters {

using nlohmann::json;

// A Status error from the server, or a failure to reach it, by kind.
class ClientError : public std::runtime_error {
 public:
  enum class Kind { NotFound, Conflict, AlreadyExists, Invalid, Expired, Unauthorized, Forbidden, ConnectionFailure, Other };
  ClientError(Kind kind, int code, std::string reason, const std::string& message)
      : std::runtime_error(message), kind_(kind), code_(code), reason_(std::move(reason)) {}
  Kind kind() const { return kind_; }
  int code() const { return code_; }  // 0 for connection failures
  const std::string& reason() const { return reason_; }

 private:
  Kind kind_;
  int code_;
  std::string reason_;
};

// The reason of a ConnectionFailure whose connection could not be made (refused, unreachable):
// the request never went out.
inline constexpr const char* kConnectionRefused = "ConnectionRefused";

// The kind of a Status body (or of a bare HTTP code when the body is not a Status).
ClientError errorFromStatus(int httpCode, const std::string& body);

struct Resource {
  std::string group;    // "" for core
  std::string version;
  std::string resource;
  bool namespaced = true;
  // /apis/g/v/namespaces/ns/resource[/name[/subresource]] (namespace left out when empty)
  std::string path(const std::string& namespaceName, const std::string& name = "", const std::string& subresource = "") const;
};

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  std::optional<std::size_t> limit;
  std::string continueToken;
};

// An open watch: events one by one as the server sends them.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // The next event ({"type": ..., "object": ...}); nullopt when the server ended the stream.
  // Throws ClientError when the connection breaks. Blocks; cancel() from another thread ends it.
  virtual std::optional<json> next() = 0;
  virtual void cancel() = 0;
};

class KubeClient {
 public:
  virtual ~KubeClient() = default;
  virtual json get(const Resource& resource, const std::string& namespaceName, const std::string& name) = 0;
  virtual json list(const Resource& resource, const std::string& namespaceName, const ListOptions& options) = 0;
  virtual json create(const Resource& resource, const std::string& namespaceName, const json& object) = 0;
  virtual json update(const Resource& resource, const json& object, const std::string& subresource = "") = 0;
  virtual json mergePatch(const Resource& resource, const std::string& namespaceName, const std::string& name,
                          const json& patch, const std::string& subresource = "") = 0;
  // propagationPolicy: "", "Orphan", "Background", "Foreground". A non-empty resourceVersion is a
  // precondition: the server deletes only that version of the object (409 Conflict otherwise).
  virtual json remove(const Resource& resource, const std::string& namespaceName, const std::string& name,
                      const std::string& propagationPolicy = "", const std::string& resourceVersion = "") = 0;
  virtual std::unique_ptr<WatchStream> watch(const Resource& resource, const std::string& namespaceName,
                                             const std::string& resourceVersion, const ListOptions& options) = 0;
  // GET of a non-resource path (/readyz, /healthz); the HTTP status, or ConnectionFailure.
  virtual int probe(const std::string& path) = 0;

  // A POST to a named object's subresource, as client-go's ServiceAccounts().CreateToken sends a
  // TokenRequest to serviceaccounts/<name>/token: a create whose collection is that path.
  json createSubresource(const Resource& resource, const std::string& namespaceName, const std::string& name,
                         const std::string& subresource, const json& body) {
    Resource target = resource;
    target.resource += "/" + name + "/" + subresource;
    return create(target, namespaceName, body);
  }
};

}  // namespace fedhpa::clusters
