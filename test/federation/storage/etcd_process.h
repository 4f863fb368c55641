// A real etcd (Debian's etcd-server) for tests: its own free loopback ports and a temporary data
// directory, killed with the test process even when that one crashes.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace fedhpa::storage::testing {

class EtcdProcess {
 public:
  // Starts etcd and waits until it serves; throws std::runtime_error when it does not.
  explicit EtcdProcess(const std::string& name);
  ~EtcdProcess();  // kills etcd and removes its data
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  const std::string& clientUrl() const { return clientUrl_; }
  void kill();     // SIGKILL: no chance to flush anything
  void restart();  // same ports, same data directory

 private:
  void start();
  void waitUntilServing();

  std::filesystem::path dir_;
  std::string name_;
  int clientPort_ = 0;
  int peerPort_ = 0;
  std::string clientUrl_;
  pid_t pid_ = -1;
};

}  // namespace fedhpa::storage::testing
