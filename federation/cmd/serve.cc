#include "federation/cmd/serve.h"

#include <csignal>
#include <iostream>

#include "federation/common/duration.h"
#include "federation/common/logging.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

void addServeFlags(po::options_description& options, ServeFlags& flags) {
  options.add_options()
      ("threads", po::value<int>(&flags.threads)->default_value(flags.threads), "HTTP server threads")
      ("tls-cert-file", po::value<std::string>(&flags.tlsCertFile), "serve HTTPS with this certificate (PEM)")
      ("tls-private-key-file", po::value<std::string>(&flags.tlsPrivateKeyFile), "private key of --tls-cert-file (PEM)")
      ("client-ca-file", po::value<std::string>(&flags.clientCaFile), "authenticate client certificates signed by this CA (user = CN, groups = O)")
      ("token-auth-file", po::value<std::string>(&flags.tokenAuthFile), "bearer tokens, kube-apiserver's CSV: token,user,uid,\"group1,group2\"")
      ("max-request-bytes", po::value<std::size_t>(&flags.maxRequestBytes)->default_value(3 * 1024 * 1024), "largest request body accepted (413 beyond)")
      ("request-timeout", po::value<std::string>(&flags.requestTimeout)->default_value("1m0s"),
       "longest time to read and serve a request that is not a watch; then a 504 Timeout Status (0: none)")
      ("max-connections", po::value<std::size_t>(&flags.maxConnections)->default_value(0),
       "open connections beyond this are closed at once (0: only the file-descriptor limit bounds them)");
}

void addRequestLimitFlags(po::options_description& options, RequestLimitFlags& flags) {
  options.add_options()
      ("max-requests-inflight", po::value<std::size_t>(&flags.maxRequestsInflight)->default_value(400),
       "non-mutating requests (get, list) served at once; beyond it a 429 with Retry-After (0: no limit)")
      ("max-mutating-requests-inflight", po::value<std::size_t>(&flags.maxMutatingRequestsInflight)->default_value(200),
       "mutating requests served at once; beyond it a 429 with Retry-After (0: no limit)")
      ("min-request-timeout", po::value<long long>(&flags.minRequestTimeoutSeconds)->default_value(1800),
       "seconds: a watch without timeoutSeconds ends after a random time between this and twice this (0: never)");
}

std::optional<std::string> requestLimitsFrom(const RequestLimitFlags& flags, apiserver::ApiServerOptions& out) {
  if (flags.minRequestTimeoutSeconds < 0) return "--min-request-timeout must not be negative";
  out.maxRequestsInflight = flags.maxRequestsInflight;
  out.maxMutatingRequestsInflight = flags.maxMutatingRequestsInflight;
  out.minRequestTimeout = std::chrono::seconds(flags.minRequestTimeoutSeconds);
  return std::nullopt;
}

std::optional<std::string> httpOptionsFrom(const std::string& listen, const ServeFlags& flags,
                                           apiserver::http::ServerOptions& out) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) return "--listen: want ADDRESS:PORT, got " + listen;
  out.address = listen.substr(0, colon);
  try {
    const int port = std::stoi(listen.substr(colon + 1));
    if (port < 0 || port > 65535) throw std::out_of_range("port");
    out.port = static_cast<std::uint16_t>(port);
  } catch (const std::exception&) {
    return "--listen: bad port in " + listen;
  }
  if (flags.threads < 1) return "--threads must be at least 1";
  out.threads = flags.threads;
  out.maxRequestBodyBytes = flags.maxRequestBytes;
  const auto requestTimeout = parseDurationFlag(flags.requestTimeout);
  if (!requestTimeout) return std::string("--request-timeout: ") + kDurationSyntax + ", got " + flags.requestTimeout;
  // Whole seconds, rounded up, as the server's timers count them.
  out.requestTimeout = std::chrono::ceil<std::chrono::seconds>(*requestTimeout);
  out.maxConnections = flags.maxConnections;
  if (flags.tlsCertFile.empty() != flags.tlsPrivateKeyFile.empty())
    return "--tls-cert-file and --tls-private-key-file go together";
  if (!flags.tlsCertFile.empty()) out.tls = apiserver::http::TlsOptions{flags.tlsCertFile, flags.tlsPrivateKeyFile};
  if (!flags.clientCaFile.empty()) {
    if (!out.tls) return "--client-ca-file needs --tls-cert-file and --tls-private-key-file";
    out.clientCaFile = flags.clientCaFile;
  }
  if (!flags.tokenAuthFile.empty()) out.tokenAuthFile = flags.tokenAuthFile;
  return std::nullopt;
}

int serveUntilSignal(const std::function<std::uint16_t()>& start, const std::function<void()>& stop,
                     const apiserver::http::ServerOptions& options) {
  // Block the signals before any thread starts so that only sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::uint16_t port = 0;
  try {
    port = start();
  } catch (const std::exception& error) {
    std::cerr << "error: cannot serve on " << options.address << ":" << options.port << ": " << error.what() << "\n";
    return 1;
  }
  std::cout << "listening on " << (options.tls ? "https" : "http") << "://" << options.address << ":" << port
            << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  FEDHPA_LOG(info) << "signal " << received << ": shutting down";
  stop();
  return 0;
}

}  // namespace fedhpa::cmd
