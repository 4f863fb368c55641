// users[].user.exec: client-go credential plugins (aws eks get-token, gke-gcloud-auth-plugin,
// kubelogin, ...). The plugin runs without a shell, with fedhpa's environment plus the
// kubeconfig's env and KUBERNETES_EXEC_INFO, its stderr passed through, its stdin fedhpa's only
// when it runs interactively (interactiveMode, as client-go decides it), and a time limit; its
// stdout is an ExecCredential. The credential is kept until its expirationTimestamp (for the
// process's life when it has none) and fetched again after a 401.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clusters/client/credential_source.h"
#include "clusters/client/kubeconfig.h"
#include "federation/common/time_source.h"

namespace fedhpa::clusters {

struct ExecOptions {
  // client-go waits for ever; a plugin that hangs (waiting for a browser login, say) would hold
  // every request to its cluster, so fedhpa gives up on it.
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  std::size_t maxOutputBytes = 1 << 20;
  // Whether fedhpa's stdin is a terminal (client-go's term.IsTerminal(os.Stdin)); empty: isatty(0).
  std::function<bool()> stdinIsTerminal;
};

// client-go's isInteractive: whether the plugin runs interactively (its stdin is fedhpa's, and
// spec.interactive is true). Never: no. IfAvailable: when stdin is a terminal. Always: yes, and
// without a terminal an error. nullopt and `why` set for that error.
std::optional<bool> interactive(ExecConfig::InteractiveMode mode, bool stdinIsTerminal, std::string& why);

// What a plugin run gave: its stdout, or why there is none.
struct PluginRun {
  enum class Outcome { Exited, NotFound, TimedOut, OutputTooLarge, SpawnFailed };
  Outcome outcome = Outcome::Exited;
  int exitCode = 0;  // Exited: the status; a signal's death is 128 + the signal, as a shell shows it
  std::string output;
  std::string error;  // SpawnFailed: strerror
};

// Runs argv[0] (looked up on PATH when it has no slash) with `env` as its whole environment,
// stdin fedhpa's when `interactive` (else /dev/null), stdout captured, stderr inherited.
PluginRun runPlugin(const std::vector<std::string>& argv, const std::vector<std::string>& env, const ExecOptions& options,
                    bool interactive = false);

// KUBERNETES_EXEC_INFO's value: an ExecCredential with spec.interactive and, when the kubeconfig
// asks for it, spec.cluster.
std::string execInfo(const ExecConfig& config, const ExecClusterInfo& cluster, bool interactive = false);

class ExecCredentials final : public CredentialSource {
 public:
  // `base`: a client certificate the kubeconfig holds inline, used when the plugin returns a token only.
  ExecCredentials(ExecConfig config, ExecClusterInfo cluster, std::shared_ptr<TimeSource> time, Credential base = {},
                  ExecOptions options = {});
  Credential current() override;
  bool rejected(const Credential& credential) override;

 private:
  Credential fetch();  // under mutex_

  const ExecConfig config_;
  const ExecClusterInfo cluster_;
  const std::shared_ptr<TimeSource> time_;
  const Credential base_;
  const ExecOptions options_;
  std::mutex mutex_;
  std::optional<Credential> cached_;
  std::optional<SystemTime> expiry_;
};

}  // namespace fedhpa::clusters
