#include "test/federation/storage/etcd_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "federation/storage/etcd_client.h"
#include "test/federation/common/free_port.h"

namespace fedhpa::storage::testing {

EtcdProcess::EtcdProcess(const std::string& name, EtcdServerTls tls, EtcdTlsFiles probeTls)
    : tls_(std::move(tls)), probeTls_(std::move(probeTls)),
      dir_(std::filesystem::temp_directory_path() / ("fedhpa-etcd-" + std::to_string(::getpid()) + "-" + name)),
      name_(name), clientPort_(fedhpa::testing::freeLoopbackPort()), peerPort_(fedhpa::testing::freeLoopbackPort()),
      clientUrl_("https://127.0.0.1:" + std::to_string(clientPort_)) {
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  start();
}

EtcdProcess::EtcdProcess(const std::string& name)
    : dir_(std::filesystem::temp_directory_path() / ("fedhpa-etcd-" + std::to_string(::getpid()) + "-" + name)),
      name_(name), clientPort_(fedhpa::testing::freeLoopbackPort()), peerPort_(fedhpa::testing::freeLoopbackPort()),
      clientUrl_("http://127.0.0.1:" + std::to_string(clientPort_)) {
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  start();
}

EtcdProcess::~EtcdProcess() {
  kill();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void EtcdProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void EtcdProcess::restart() {
  kill();
  start();
}

void EtcdProcess::start() {
  const std::string peerUrl = "http://127.0.0.1:" + std::to_string(peerPort_);
  std::vector<std::string> args = {"etcd",
                                   "--name=" + name_,
                                   "--data-dir=" + (dir_ / "data").string(),
                                   "--listen-client-urls=" + clientUrl_,
                                   "--advertise-client-urls=" + clientUrl_,
                                   "--listen-peer-urls=" + peerUrl,
                                   "--initial-advertise-peer-urls=" + peerUrl,
                                   "--initial-cluster=" + name_ + "=" + peerUrl,
                                   "--experimental-watch-progress-notify-interval=5s",
                                   "--log-level=warn"};
  if (tls_) {
    args.push_back("--cert-file=" + tls_->certFile);
    args.push_back("--key-file=" + tls_->keyFile);
    args.push_back("--trusted-ca-file=" + tls_->clientCaFile);
    args.push_back("--client-cert-auth");
  }
  const std::string log = (dir_ / "etcd.log").string();
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
    if (::getppid() != parent) ::_exit(1);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (out >= 0) {
      ::dup2(out, 1);
      ::dup2(out, 2);
    }
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execvp("etcd", argv.data());
    ::_exit(127);
  }
  waitUntilServing();
}

void EtcdProcess::waitUntilServing() {
  EtcdClient client({{clientUrl_}, probeTls_, std::chrono::seconds(2)});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("etcd exited at start; is etcd-server installed? see " + (dir_ / "etcd.log").string());
    }
    try {
      if (client.call("/v3/kv/range", {{"key", toBase64("/")}}, true).ok()) return;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("etcd did not serve within 30 s at " + clientUrl_);
}

}  // namespace fedhpa::storage::testing
