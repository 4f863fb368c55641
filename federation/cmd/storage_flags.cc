#include "federation/cmd/storage_flags.h"

#include <boost/algorithm/string.hpp>
#include <chrono>
#include <thread>

#include "federation/common/logging.h"
#include "federation/storage/etcd_storage.h"
#include "federation/storage/sqlite_storage.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

namespace {

constexpr auto kEtcdStartupWait = std::chrono::seconds(30);

}  // namespace

void addStorageFlags(po::options_description& options, StorageFlags& flags, const std::string& dataDirDefault) {
  auto dataDir = po::value<std::string>(&flags.dataDir);
  if (!dataDirDefault.empty()) dataDir->default_value(dataDirDefault);
  options.add_options()
      ("data-dir", dataDir, "directory of the SQLite database (when --etcd-servers is not given)")
      ("etcd-servers", po::value<std::string>(&flags.etcdServers), "etcd endpoints, comma-separated (http://127.0.0.1:2379,...): store in etcd, failing over between them")
      ("etcd-prefix", po::value<std::string>(&flags.etcdPrefix)->default_value("/registry"), "the prefix of every key in etcd")
      ("etcd-cafile", po::value<std::string>(&flags.etcdCaFile), "CA that signed the etcd servers' certificates (https endpoints)")
      ("etcd-certfile", po::value<std::string>(&flags.etcdCertFile), "client certificate to present to etcd")
      ("etcd-keyfile", po::value<std::string>(&flags.etcdKeyFile), "key of --etcd-certfile")
      ("watch-cache", po::value<bool>(&flags.watchCache)->default_value(true),
       "serve lists and watches from a cache in front of the storage (--watch-cache=false: from the storage)")
      ("default-watch-cache-size", po::value<std::size_t>(&flags.defaultWatchCacheSize)->default_value(1000),
       "events of history the watch cache keeps per resource (also at most 5 minutes of them); 0 turns the cache off");
}

std::optional<storage::CacherOptions> watchCacheOptions(const StorageFlags& flags) {
  if (!flags.watchCache || flags.defaultWatchCacheSize == 0) return std::nullopt;
  storage::CacherOptions options;
  options.limits.historySize = flags.defaultWatchCacheSize;
  return options;
}

std::variant<std::unique_ptr<storage::Storage>, std::string> openStorage(const StorageFlags& flags) {
  if (flags.etcdServers.empty()) {
    if (flags.dataDir.empty()) return std::string("one of --data-dir or --etcd-servers is required");
    try {
      return std::unique_ptr<storage::Storage>(storage::SqliteStorage::open(flags.dataDir, {}));
    } catch (const std::exception& error) {
      return "--data-dir " + flags.dataDir + ": " + error.what();
    }
  }
  storage::EtcdOptions options;
  boost::split(options.client.endpoints, flags.etcdServers, boost::is_any_of(","), boost::token_compress_on);
  std::erase_if(options.client.endpoints, [](const std::string& endpoint) { return endpoint.empty(); });
  for (const auto& endpoint : options.client.endpoints)
    if (!endpoint.starts_with("http://") && !endpoint.starts_with("https://"))
      return "--etcd-servers: " + endpoint + " is not an http:// or https:// URL";
  if (flags.etcdCertFile.empty() != flags.etcdKeyFile.empty())
    return std::string("--etcd-certfile and --etcd-keyfile go together");
  if (flags.etcdPrefix.empty() || flags.etcdPrefix.front() != '/') return std::string("--etcd-prefix must start with /");
  options.prefix = flags.etcdPrefix;
  options.client.tls = {flags.etcdCaFile, flags.etcdCertFile, flags.etcdKeyFile};
  const auto deadline = std::chrono::steady_clock::now() + kEtcdStartupWait;
  for (;;) {
    try {
      return std::unique_ptr<storage::Storage>(storage::EtcdStorage::open(options));
    } catch (const std::exception& error) {
      if (std::chrono::steady_clock::now() >= deadline) return "--etcd-servers " + flags.etcdServers + ": " + error.what();
      FEDHPA_LOG(info) << "waiting for etcd: " << error.what();
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

}  // namespace fedhpa::cmd
