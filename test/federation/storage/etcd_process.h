// A real etcd (Debian's etcd-server) for tests: its own free loopback ports and a temporary data
// directory, killed with the test process even when that one crashes.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "federation/storage/etcd_client.h"

namespace fedhpa::storage::testing {

// Serving TLS: etcd's certificate and key, and the CA its clients' certificates must chain to.
struct EtcdServerTls {
  std::string certFile;
  std::string keyFile;
  std::string clientCaFile;
};

class EtcdProcess {
 public:
  // Starts etcd and waits until it serves; throws std::runtime_error when it does not. With tls,
  // it serves https and requires client certificates; `probeTls` is what the wait connects with.
  explicit EtcdProcess(const std::string& name);
  EtcdProcess(const std::string& name, EtcdServerTls tls, EtcdTlsFiles probeTls);
  ~EtcdProcess();  // kills etcd and removes its data
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  const std::string& clientUrl() const { return clientUrl_; }
  void kill();     // SIGKILL: no chance to flush anything
  void restart();  // same ports, same data directory

 private:
  void start();
  void waitUntilServing();

  std::optional<EtcdServerTls> tls_;
  EtcdTlsFiles probeTls_;
  std::filesystem::path dir_;
  std::string name_;
  int clientPort_ = 0;
  int peerPort_ = 0;
  std::string clientUrl_;
  pid_t pid_ = -1;
};

}  // namespace fedhpa::storage::testing
