// The flags that choose the API server's storage, shared by `fedhpa apiserver` and `fedhpa up`:
// SQLite in --data-dir (the default), or etcd when --etcd-servers is given (kube-apiserver's flag
// names).
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <variant>

#include "federation/storage/cacher.h"
#include "federation/storage/storage.h"

namespace fedhpa::cmd {

struct StorageFlags {
  std::string dataDir;
  std::string etcdServers;  // comma-separated URLs
  std::string etcdPrefix = "/registry";
  std::string etcdCaFile;
  std::string etcdCertFile;
  std::string etcdKeyFile;
  bool watchCache = true;                // kube-apiserver's --watch-cache
  std::size_t defaultWatchCacheSize = 1000;  // events of history per resource; 0: no watch cache
};

void addStorageFlags(boost::program_options::options_description& options, StorageFlags& flags,
                     const std::string& dataDirDefault);

// The storage the flags name, or what is wrong with them. etcd is waited for a while (it may be
// starting next to the API server, as in a host cluster), then Unavailable is reported.
std::variant<std::unique_ptr<storage::Storage>, std::string> openStorage(const StorageFlags& flags);

// The watch cache the flags ask for, nullopt when they turn it off.
std::optional<storage::CacherOptions> watchCacheOptions(const StorageFlags& flags);

}  // namespace fedhpa::cmd
