// etcd v3's JSON gateway (grpc-gateway) over cpprestsdk: every call is a POST of a JSON body to one
// of several endpoints, failing over to the next when one cannot be reached. The gateway's bytes
// fields are base64 and its int64 fields are strings; the helpers here hide both. cpprestsdk stays
// out of this header (it is heavy to compile).
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fedhpa::storage {

struct EtcdTlsFiles {
  std::string caFile;    // verifies the servers (https endpoints); empty: the system's trust store
  std::string certFile;  // client certificate, when etcd asks for one (--client-cert-auth)
  std::string keyFile;
};

struct EtcdClientOptions {
  std::vector<std::string> endpoints;  // http://host:port or https://host:port
  EtcdTlsFiles tls;
  std::chrono::seconds requestTimeout{10};
  // How long one try of a write waits for its answer before the write goes to the next endpoint
  // (callWrite). etcd answers a proposal that its member forwarded to a leader that just died only
  // at its own request timeout (7 s by default), long after a new leader could have taken it.
  std::chrono::milliseconds writeTryTimeout{2000};
};

// What the gateway answered: the HTTP status and the JSON body (a gRPC error is
// {"error","message","code"} with a 4xx/5xx status).
struct EtcdReply {
  int status = 0;
  nlohmann::json body;
  bool ok() const { return status == 200; }
  std::string error() const;  // the gateway's message, for logs and errors
};

// One open server stream (a watch): its messages, one JSON object each.
class EtcdStream {
 public:
  virtual ~EtcdStream() = default;
  // The next message; nullopt when the server ended the stream. Throws StorageError(Unavailable)
  // when the connection breaks or cancel() was called.
  virtual std::optional<nlohmann::json> next() = 0;
  // Ends the stream from any thread; a next() blocked in another thread returns (throws) promptly.
  virtual void cancel() = 0;
};

class EtcdClient {
 public:
  explicit EtcdClient(EtcdClientOptions options);  // throws StorageError(Unavailable) for unreadable TLS files
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // POSTs body to path ("/v3/kv/range"). A request that cannot have reached etcd (connection
  // refused) goes to the next endpoint; any other transport failure or a 503 does too when
  // `repeatable` (reads, which go round the endpoints up to four times, 0.25 s, 0.5 s, 0.75 s apart),
  // and otherwise throws StorageError(Unavailable): a write that may have been applied must not be
  // applied twice. Unavailable too when every endpoint failed.
  //
  // The gateway ends every error reply with an HTTP trailer that cpprestsdk does not read, so the
  // connection's next reply would start with it ("Invalid HTTP status line"). A request that may
  // well be answered with an error (a range at an old revision) passes `errorLikely` and goes on a
  // connection closed after it; after any other error reply the endpoint's pooled connections are
  // dropped.
  EtcdReply call(const std::string& path, const nlohmann::json& body, bool repeatable, bool errorLikely = false);

  // POSTs a txn that may be sent more than once: its compare must let at most one of its copies
  // apply (a create's "absent", an update's mod_revision). The caller finds out from the key's
  // current value whether a failed compare was its own earlier copy (an update's failure branch
  // reads it back; a create, which has none, reads it only then).
  // A try that fails (no answer within writeTryTimeout, a broken connection, a 5xx such as etcd's
  // "leader changed" or "request timed out") goes to the next endpoint, until requestTimeout has
  // passed (then Unavailable). `earlierTryMayHaveApplied` tells the caller that a compare failing
  // now may be one of its own earlier copies having applied: it decides from the key read back.
  EtcdReply callWrite(const std::string& path, const nlohmann::json& body, bool& earlierTryMayHaveApplied);

  // Opens a server stream (POST /v3/watch), failing over like a repeatable call. The stream has
  // no inactivity timeout: quiet watches stay open (etcd's progress notifications keep them alive).
  std::unique_ptr<EtcdStream> stream(const std::string& path, const nlohmann::json& body);

  const std::vector<std::string>& endpoints() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The gateway's encodings.
std::string toBase64(const std::string& bytes);
std::string fromBase64(const std::string& text);
// An int64 field: a JSON string or number; absent (proto3 leaves zero values out) is 0.
std::int64_t int64Field(const nlohmann::json& object, const char* field);

}  // namespace fedhpa::storage
