// What `fedhpa apiserver` and `fedhpa member-sim` share: the serving flags (threads, TLS,
// authentication), the ready line scripts wait for, and running until SIGINT/SIGTERM.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <string>

#include "federation/apiserver/api_server.h"

namespace fedhpa::cmd {

// The federation API server's default --threads: a request that writes holds its thread until the
// write is durable (an fsync), and the writes waiting together share the next commit, so more
// threads mean fewer fsyncs per write. (A member-sim's store is in memory: 2 are plenty.)
inline constexpr int kFederationApiThreads = 8;

struct ServeFlags {
  int threads = 2;  // the default of --threads
  std::string tlsCertFile;
  std::string tlsPrivateKeyFile;
  std::string clientCaFile;
  std::string tokenAuthFile;
  std::size_t maxRequestBytes = 3 * 1024 * 1024;
  std::string requestTimeout = "1m0s";
  std::size_t maxConnections = 0;
};

void addServeFlags(boost::program_options::options_description& options, ServeFlags& flags);

// Fills the HTTP options from --listen and the serving flags; an error message when they are wrong.
std::optional<std::string> httpOptionsFrom(const std::string& listen, const ServeFlags& flags,
                                           apiserver::http::ServerOptions& out);

// kube-apiserver's request limits, which only `fedhpa apiserver` exposes.
struct RequestLimitFlags {
  std::size_t maxRequestsInflight = 400;
  std::size_t maxMutatingRequestsInflight = 200;
  long long minRequestTimeoutSeconds = 1800;
};

void addRequestLimitFlags(boost::program_options::options_description& options, RequestLimitFlags& flags);
std::optional<std::string> requestLimitsFrom(const RequestLimitFlags& flags, apiserver::ApiServerOptions& out);

// Starts the server, prints "listening on http(s)://ADDRESS:PORT" on stdout, waits for SIGINT or
// SIGTERM, stops cleanly. Returns the process exit code.
int serveUntilSignal(const std::function<std::uint16_t()>& start, const std::function<void()>& stop,
                     const apiserver::http::ServerOptions& options);

}  // namespace fedhpa::cmd
