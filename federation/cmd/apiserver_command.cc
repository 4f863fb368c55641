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
  ServeFlags serve;
  RequestLimitFlags limits;
  po::options_description options("fedhpa apiserver --listen 127.0.0.1:PORT --data-dir DIR");
  options.add_options()
      ("listen", po::value<std::string>(&listen)->default_value("127.0.0.1:0"), "address:port to serve on (port 0: any free port)")
      ("data-dir", po::value<std::string>(&dataDir)->required(), "directory of the SQLite database");
  addServeFlags(options, serve);
  addRequestLimitFlags(options, limits);
  po::variables_map vm;
  if (const auto exit = parseFlags(argc, argv, options, vm)) return *exit;

  apiserver::ApiServerOptions serverOptions;
  auto error = httpOptionsFrom(listen, serve, serverOptions.http);
  if (!error) error = requestLimitsFrom(limits, serverOptions);
  if (error) {
    std::cerr << "error: " << *error << "\n";
    return kUsageError;
  }
  std::unique_ptr<storage::Storage> storage;
  try {
    storage = storage::SqliteStorage::open(dataDir, {});
  } catch (const std::exception& error) {
    std::cerr << "error: --data-dir " << dataDir << ": " << error.what() << "\n";
    return 1;
  }
  apiserver::ApiServer server(std::move(storage), api::federationResources(), serverOptions);
  return serveUntilSignal([&] { return server.start(); }, [&] { server.stop(); }, serverOptions.http);
}

}  // namespace fedhpa::cmd
