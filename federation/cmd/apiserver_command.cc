#include "federation/cmd/apiserver_command.h"

#include <csignal>
#include <iostream>

#include "federation/api/resource.h"
#include "federation/apiserver/api_server.h"
#include "federation/cmd/flags.h"
#include "federation/cmd/serve.h"
#include "federation/common/logging.h"
#include "federation/storage/sqlite_storage.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

int apiserverMain(int argc, char** argv) {
  std::string listen;
  std::string dataDir;
  std::string authorizationMode;
  std::string auditLogPath;
  std::uint64_t auditLogMaxSizeMb = 0;
  ServeFlags serve;
  po::options_description options("fedhpa apiserver --listen 127.0.0.1:PORT --data-dir DIR");
  options.add_options()
      ("listen", po::value<std::string>(&listen)->default_value("127.0.0.1:0"), "address:port to serve on (port 0: any free port)")
      ("data-dir", po::value<std::string>(&dataDir)->required(), "directory of the SQLite database")
      ("authorization-mode", po::value<std::string>(&authorizationMode),
       "AlwaysAllow or RBAC (default: RBAC when --client-ca-file or --token-auth-file is set, else AlwaysAllow)")
      ("audit-log-path", po::value<std::string>(&auditLogPath), "append an audit.k8s.io/v1 Event (Metadata level) per request to this file")
      ("audit-log-maxsize", po::value<std::uint64_t>(&auditLogMaxSizeMb)->default_value(0), "megabytes before the audit log is rotated (0: never)");
  addServeFlags(options, serve);
  po::variables_map vm;
  if (const auto exit = parseFlags(argc, argv, options, vm)) return *exit;

  apiserver::ApiServerOptions serverOptions;
  if (const auto error = httpOptionsFrom(listen, serve, serverOptions.http)) {
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
  std::unique_ptr<storage::Storage> storage;
  try {
    storage = storage::SqliteStorage::open(dataDir, {});
  } catch (const std::exception& error) {
    std::cerr << "error: --data-dir " << dataDir << ": " << error.what() << "\n";
    return 1;
  }
  try {
    apiserver::ApiServer server(std::move(storage), api::federationResources(), serverOptions);
    return serveUntilSignal([&] { return server.start(); }, [&] { server.stop(); }, serverOptions.http);
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace fedhpa::cmd
