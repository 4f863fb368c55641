// The HTTP(S) server of the API server and the member-cluster simulator: Boost.Beast parses
// requests, Boost.Asio (with OpenSSL for TLS) carries them, and one Handler answers. Beast, not
// cpprestsdk's listener, serves: the listener's handlers share cpprestsdk's pool with every
// continuation, so a blocking handler can starve the whole process.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::http {

struct TlsOptions {
  std::string certFile;
  std::string privateKeyFile;
};

// Defaults are kube-apiserver's (its Go http.Server and its flags); docs/operations.md ("Limits, timeouts and stalls") lists the differences.
struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: any free port
  int threads = 2;
  std::size_t maxRequestBodyBytes = 3 * 1024 * 1024;
  // Request line plus headers; beyond it a 431, as Go's MaxHeaderBytes (kube sets 1 MiB).
  std::size_t maxHeaderBytes = 1024 * 1024;
  // From a connection's first byte of a request to its last header byte (kube: 32 s).
  std::chrono::seconds readHeaderTimeout{32};
  // How long a kept-alive connection may wait for its next request (kube: 90 s).
  std::chrono::seconds idleTimeout{90};
  // Body read plus handling of a request that does not open a stream; then a 504 Timeout Status
  // (kube's --request-timeout). Zero: none.
  std::chrono::seconds requestTimeout{60};
  // Open connections beyond this are closed as soon as they are accepted; 0: only the process's
  // file-descriptor limit bounds them (as in kube, which has no such limit).
  std::size_t maxConnections = 0;
  // A stream whose client has not taken a byte for this long while it has data waiting is cut
  // off (kube closes watchers whose buffer stays full), and so is one with more than
  // maxStreamBacklogBytes or maxStreamBacklogChunks queued. Its chunks of shared bytes (watch
  // events) are queued as references, so the bytes bound what it keeps alive (bytes every other
  // watcher of those events shares), and the chunks what it costs alone: about 200 bytes each.
  std::chrono::milliseconds streamStallTimeout{5000};
  std::size_t maxStreamBacklogBytes = 16 * 1024 * 1024;
  std::size_t maxStreamBacklogChunks = 4096;
  std::optional<TlsOptions> tls;
  std::optional<std::string> clientCaFile;   // x509 client certificates: user = CN, groups = O
  std::optional<std::string> tokenAuthFile;  // kube-apiserver's static token CSV
  // Bearer tokens the embedding program checks (the member-sim's service-account tokens), after
  // tokenAuthFile's. Where authentication is required (a client CA or a token file), a request
  // whose bearer token no authenticator accepts gets a 401 on every path, as from kube-apiserver;
  // a server without either lets it through as anonymous, like any request there.
  std::function<std::optional<UserInfo>(const std::string& token)> bearerTokenAuthenticator;
  std::vector<std::string> publicPaths = {"/healthz", "/livez", "/readyz"};
};

class Server {
 public:
  Server(ServerOptions options, std::shared_ptr<Handler> handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds, listens and starts the threads; returns the bound port. Throws on failure.
  std::uint16_t start();
  // Ends every open stream with its terminating chunk, stops accepting and joins the threads.
  void stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedhpa::apiserver::http
