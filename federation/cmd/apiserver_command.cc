#include "federation/cmd/apiserver_command.h"

#include <csignal>
#include <iostream>

#include "clusters/client/rest_client.h"
#include "federation/api/resource.h"
#include "federation/apiserver/api_server.h"
#include "federation/cmd/flags.h"
#include "federation/cmd/serve.h"
#include "federation/cmd/storage_flags.h"
#include "federation/common/logging.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

int apiserverMain(int argc, char** argv) {
  std::string listen;
  std::string authorizationMode;
  std::string auditLogPath;
  std::uint64_t auditLogMaxSizeMb = 0;
  StorageFlags storageFlags;
  ServeFlags serve;
  serve.threads = kFederationApiThreads;
  RequestLimitFlags limits;
  po::options_description options("fedhpa apiserver --listen 127.0.0.1:PORT (--data-dir DIR | --etcd-servers URL[,URL...])");
  options.add_options()
      ("listen", po::value<std::string>(&listen)->default_value("127.0.0.1:0"), "address:port to serve on (port 0: any free port)")
      ("authorization-mode", po::value<std::string>(&authorizationMode),
       "AlwaysAllow or RBAC (default: RBAC when --client-ca-file or --token-auth-file is set, else AlwaysAllow)")
      ("audit-log-path", po::value<std::string>(&auditLogPath), "append an audit.k8s.io/v1 Event (Metadata level) per request to this file")
      ("audit-log-maxsize", po::value<std::uint64_t>(&auditLogMaxSizeMb)->default_value(0), "megabytes before the audit log is rotated (0: never)");
  addStorageFlags(options, storageFlags, "");
  addServeFlags(options, serve);
  addRequestLimitFlags(options, limits);
  po::variables_map vm;
  if (const auto exit = parseFlags(argc, argv, options, vm)) return *exit;

  apiserver::ApiServerOptions serverOptions;
  serverOptions.watchCache = watchCacheOptions(storageFlags);
  auto error = httpOptionsFrom(listen, serve, serverOptions.http);
  if (!error) error = requestLimitsFrom(limits, serverOptions);
  if (error) {
    std::cerr << "error: " << *error << "\n";
    return kUsageError;
  }
  const bool authenticated = !serve.clientCaFile.empty() || !serve.tokenAuthFile.empty();
  if (authorizationMode.empty()) authorizationMode = authenticated ? "RBAC" : "AlwaysAllow";
  if (authorizationMode == "RBAC") {
    serverOptions.security.mode = apiserver::authz::AuthorizationMode::Rbac;
    if (!authenticated)
      FEDHPA_LOG(warning) << "--authorization-mode=RBAC without authentication: every request is system:anonymous";
  } else if (authorizationMode != "AlwaysAllow") {
    std::cerr << "error: --authorization-mode: want AlwaysAllow or RBAC, got " << authorizationMode << "\n";
    return kUsageError;
  }
  serverOptions.security.auditLogPath = auditLogPath;
  serverOptions.security.auditLogMaxBytes = auditLogMaxSizeMb * 1024 * 1024;
  if (storageFlags.dataDir.empty() && storageFlags.etcdServers.empty()) {
    std::cerr << "error: one of --data-dir or --etcd-servers is required\n";
    return kUsageError;
  }
  // etcd is reached through cpprestsdk, the only outgoing HTTP of this process: one thread runs
  // every etcd call's I/O and continuations (none of them blocks), as more only hand the work
  // between each other (40 by default; 4 cost 16 context switches per create on etcd, 1 costs 9).
  clusters::initializeHttpClientPool(1);
  auto storage = openStorage(storageFlags);
  if (const auto* error = std::get_if<std::string>(&storage)) {
    std::cerr << "error: " << *error << "\n";
    return 1;
  }
  try {
    apiserver::ApiServer server(std::move(std::get<std::unique_ptr<storage::Storage>>(storage)),
                                api::federationResources(), serverOptions);
    return serveUntilSignal([&] { return server.start(); }, [&] { server.stop(); }, serverOptions.http);
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace fedhpa::cmd
