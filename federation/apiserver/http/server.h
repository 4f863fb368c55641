// The HTTP(S) server of the API server and the member-cluster simulator: Boost.Beast parses
// requests, Boost.Asio (with OpenSSL for TLS) carries them, and one Handler answers. DESIGN.md
// section 8 has the measurements that chose Beast over cpprestsdk's listener for this side.
#pragma once

#include <cstdint>
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

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: any free port
  int threads = 2;
  std::size_t maxRequestBodyBytes = 3 * 1024 * 1024;
  std::optional<TlsOptions> tls;
  std::optional<std::string> clientCaFile;   // x509 client certificates: user = CN, groups = O
  std::optional<std::string> tokenAuthFile;  // kube-apiserver's static token CSV
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
