#include "clusters/client/exec_credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "federation/api/machinery/base64.h"
#include "federation/api/time.h"

extern char** environ;

namespace fedhpa::clusters {

namespace {

using nlohmann::json;

// Closes a file descriptor once.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// fedhpa's environment with `extra` set on top (a name set twice takes the later value, as Go's
// os/exec does with a repeated name).
std::vector<std::string> environmentWith(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> out;
  for (char** entry = environ; entry && *entry; ++entry) out.emplace_back(*entry);
  for (const auto& variable : extra) {
    const std::string& name = variable.first;
    std::erase_if(out, [&name](const std::string& e) { return e.size() > name.size() && e[name.size()] == '=' && e.starts_with(name); });
    out.push_back(name + "=" + variable.second);
  }
  return out;
}

int waitFor(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::optional<bool> interactive(ExecConfig::InteractiveMode mode, bool stdinIsTerminal, std::string& why) {
  switch (mode) {
    case ExecConfig::InteractiveMode::Never:
      return false;
    case ExecConfig::InteractiveMode::IfAvailable:
      return stdinIsTerminal;
    case ExecConfig::InteractiveMode::Always:
      if (stdinIsTerminal) return true;
      why = "standard input is not a terminal";
      return std::nullopt;
  }
  why = "unknown interactiveMode";
  return std::nullopt;
}

PluginRun runPlugin(const std::vector<std::string>& argv, const std::vector<std::string>& env, const ExecOptions& options,
                    bool interactive) {
  PluginRun run;
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
    run.outcome = PluginRun::Outcome::SpawnFailed;
    run.error = std::strerror(errno);
    return run;
  }
  Fd readEnd(pipeFds[0]), writeEnd(pipeFds[1]);
  SpawnActions actions;
  if (!interactive) posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), writeEnd.get(), STDOUT_FILENO);
  std::vector<char*> args = pointers(argv), envp = pointers(env);
  pid_t pid = 0;
  const bool searchPath = argv.front().find('/') == std::string::npos;
  // glibc's posix_spawn reports a failed exec (ENOENT, EACCES) as its own result.
  const int spawned = searchPath ? ::posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), envp.data())
                                 : ::posix_spawn(&pid, args[0], actions.get(), nullptr, args.data(), envp.data());
  if (spawned != 0) {
    run.outcome = spawned == ENOENT ? PluginRun::Outcome::NotFound : PluginRun::Outcome::SpawnFailed;
    run.error = std::strerror(spawned);
    return run;
  }
  writeEnd.reset();  // the plugin holds the only write end now: end of file is its exit
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.outcome = PluginRun::Outcome::TimedOut;
      break;
    }
    pollfd wait{readEnd.get(), POLLIN, 0};
    const int ready = ::poll(&wait, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline check above ends it
    const ssize_t got = ::read(readEnd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    run.output.append(buffer, static_cast<std::size_t>(got));
    if (run.output.size() > options.maxOutputBytes) {
      run.outcome = PluginRun::Outcome::OutputTooLarge;
      break;
    }
  }
  if (run.outcome != PluginRun::Outcome::Exited) ::kill(pid, SIGKILL);
  run.exitCode = waitFor(pid);
  return run;
}

std::string execInfo(const ExecConfig& config, const ExecClusterInfo& cluster, bool interactive) {
  json spec = {{"interactive", interactive}};
  if (config.provideClusterInfo) {
    json info = {{"server", cluster.server}};
    if (!cluster.tlsServerName.empty()) info["tls-server-name"] = cluster.tlsServerName;
    if (cluster.insecureSkipTlsVerify) info["insecure-skip-tls-verify"] = true;
    if (!cluster.caPem.empty()) info["certificate-authority-data"] = api::machinery::encodeBase64(cluster.caPem);
    if (!cluster.proxyUrl.empty()) info["proxy-url"] = cluster.proxyUrl;
    if (cluster.configJson) info["config"] = json::parse(*cluster.configJson);
    spec["cluster"] = std::move(info);
  }
  return json{{"kind", "ExecCredential"}, {"apiVersion", config.apiVersion}, {"spec", std::move(spec)}}.dump();
}

ExecCredentials::ExecCredentials(ExecConfig config, ExecClusterInfo cluster, std::shared_ptr<TimeSource> time, Credential base,
                                 ExecOptions options)
    : config_(std::move(config)), cluster_(std::move(cluster)), time_(std::move(time)), base_(std::move(base)), options_(options) {}

Credential ExecCredentials::current() {
  std::lock_guard lock(mutex_);
  // As client-go: valid up to its expirationTimestamp, not a moment after.
  if (cached_ && (!expiry_ || time_->systemTime() <= *expiry_)) return *cached_;
  cached_ = fetch();
  return *cached_;
}

bool ExecCredentials::rejected(const Credential& credential) {
  std::lock_guard lock(mutex_);
  // Another request may have fetched a fresh one since this one was sent: that one is kept.
  if (cached_ && *cached_ == credential) cached_.reset();
  return true;
}

Credential ExecCredentials::fetch() {
  const std::string prefix = "getting credentials: ";
  std::string why;
  const auto isInteractive = interactive(
      config_.interactiveMode, options_.stdinIsTerminal ? options_.stdinIsTerminal() : ::isatty(STDIN_FILENO) == 1, why);
  if (!isInteractive) throw CredentialError(prefix + "exec plugin cannot support interactive mode: " + why);
  std::vector<std::string> argv{config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  auto env = config_.env;
  env.emplace_back("KUBERNETES_EXEC_INFO", execInfo(config_, cluster_, *isInteractive));
  const PluginRun run = runPlugin(argv, environmentWith(env), options_, *isInteractive);
  switch (run.outcome) {
    case PluginRun::Outcome::NotFound:
      throw CredentialError(prefix + "exec: executable " + config_.command + " not found" +
                            (config_.installHint.empty() ? "" : "\n\n" + config_.installHint));
    case PluginRun::Outcome::SpawnFailed:
      throw CredentialError(prefix + "exec: executable " + config_.command + " could not be run: " + run.error);
    case PluginRun::Outcome::TimedOut:
      throw CredentialError(prefix + "exec: executable " + config_.command + " did not finish within " +
                            std::to_string(options_.timeout.count()) + "ms and was killed");
    case PluginRun::Outcome::OutputTooLarge:
      throw CredentialError(prefix + "exec: executable " + config_.command + " wrote more than " +
                            std::to_string(options_.maxOutputBytes) + " bytes to stdout");
    case PluginRun::Outcome::Exited:
      break;
  }
  if (run.exitCode != 0)
    throw CredentialError(prefix + "exec: executable " + config_.command + " failed with exit code " + std::to_string(run.exitCode));
  json credential;
  try {
    credential = json::parse(run.output);
  } catch (const json::exception& error) {
    throw CredentialError(prefix + "decoding stdout of " + config_.command + ": " + error.what());
  }
  if (!credential.is_object() || credential.value("kind", json()) != "ExecCredential")
    throw CredentialError(prefix + "decoding stdout of " + config_.command + ": not an ExecCredential");
  const std::string version = credential.value("apiVersion", json()).is_string() ? credential["apiVersion"].get<std::string>() : "";
  if (version != config_.apiVersion)
    throw CredentialError(prefix + "exec plugin " + config_.command + " is configured to use API version " + config_.apiVersion +
                          ", plugin returned version " + (version.empty() ? "(none)" : version));
  const json status = credential.value("status", json());
  if (!status.is_object()) throw CredentialError(prefix + "exec plugin " + config_.command + " didn't return a status field");
  auto field = [&](const char* name) { return status.contains(name) && status[name].is_string() ? status[name].get<std::string>() : ""; };
  Credential out = base_;
  const std::string token = field("token"), cert = field("clientCertificateData"), key = field("clientKeyData");
  if (token.empty() && cert.empty() && key.empty())
    throw CredentialError(prefix + "exec plugin " + config_.command + " didn't return a token or cert/key pair");
  if (cert.empty() != key.empty())
    throw CredentialError(prefix + "exec plugin " + config_.command + " returned only certificate or key, not both");
  out.bearerToken = token;
  if (!cert.empty()) {
    out.clientCertPem = cert;
    out.clientKeyPem = key;
  }
  expiry_.reset();
  if (const std::string expiry = field("expirationTimestamp"); !expiry.empty()) {
    expiry_ = api::parseRfc3339(expiry);
    if (!expiry_)
      throw CredentialError(prefix + "exec plugin " + config_.command + ": status.expirationTimestamp \"" + expiry + "\" is not an RFC 3339 time");
  }
  return out;
}

}  // namespace fedhpa::clusters
