// Kubeconfig files as kubectl reads them: clusters, users, contexts, current-context, several
// files merged like KUBECONFIG=a:b (the first file to name an entry wins), paths relative to the
// file that holds them. resolve() gives what a client needs to reach one context's server.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedhpa::clusters {

class KubeconfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CredentialSource;

inline constexpr const char* kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr const char* kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";
// The cluster extension whose value exec plugins get as spec.cluster.config.
inline constexpr const char* kExecExtensionName = "client.authentication.k8s.io/exec";

// users[].user.exec: a credential plugin as client-go runs it (client.authentication.k8s.io v1 or
// v1beta1; v1alpha1 is refused as client-go 1.24 and later refuse it).
struct ExecConfig {
  enum class InteractiveMode { Never, IfAvailable, Always };
  std::string apiVersion;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;     // a name looked up on PATH, or a path (made absolute against the kubeconfig's directory)
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to fedhpa's own environment
  std::string installHint;
  InteractiveMode interactiveMode = InteractiveMode::IfAvailable;
  bool provideClusterInfo = false;
  std::string source;  // the kubeconfig it came from, for errors
};

// What a plugin is told of the cluster (KUBERNETES_EXEC_INFO's spec.cluster) when
// provideClusterInfo is set.
struct ExecClusterInfo {
  std::string server;
  std::string tlsServerName;
  std::string caPem;
  bool insecureSkipTlsVerify = false;
  std::string proxyUrl;
  std::optional<std::string> configJson;  // extensions[client.authentication.k8s.io/exec].extension
};

// Everything a REST client needs; PEM contents, never file names (but the token file's, which is
// read again as it rotates).
struct RestConfig {
  std::string server;             // https://10.0.0.1:6443
  std::string caPem;              // empty: the system's trust store
  std::string tlsServerName;      // the name sent as SNI and checked in the server's certificate
  std::string proxyUrl;           // http://[user:pass@]host:port (CONNECT for https servers)
  std::string clientCertPem;
  std::string clientKeyPem;
  std::string bearerToken;
  std::string tokenFile;          // read again every minute and after a 401, as client-go does
  std::optional<ExecConfig> exec;
  ExecClusterInfo execClusterInfo;
  bool insecureSkipTlsVerify = false;
  std::string namespaceName = "default";
  // Where the credential comes from when not from the fields above (a member's Secret, a test's
  // fake): RestClient asks it for every request and tells it of every 401.
  std::shared_ptr<CredentialSource> credentials;
};

struct KubeconfigCluster {
  std::string server;
  std::string caPem;
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName;
  std::string proxyUrl;
  std::optional<std::string> execConfigJson;
  std::string source;  // the file it came from, for errors
};

struct KubeconfigUser {
  std::string clientCertPem;
  std::string clientKeyPem;
  std::string token;
  std::string tokenFile;  // absolute
  std::optional<ExecConfig> exec;
  std::string source;
};

struct KubeconfigContext {
  std::string cluster;
  std::string user;
  std::string namespaceName;
  std::string source;
};

struct Kubeconfig {
  std::map<std::string, KubeconfigCluster> clusters;
  std::map<std::string, KubeconfigUser> users;
  std::map<std::string, KubeconfigContext> contexts;
  std::string currentContext;

  // The context named, or the current one when name is empty.
  RestConfig resolve(const std::string& contextName = "") const;
};

// Loads and merges files in order. Errors name the file and the field.
Kubeconfig loadKubeconfig(const std::vector<std::filesystem::path>& files);
// From text (a kubeconfig stored in a Secret); relative paths are refused there, and so are exec
// plugins and token files: whoever may write the Secret must not make the controller run a
// command or send it a file of its own.
Kubeconfig parseKubeconfig(const std::string& yaml, const std::string& source);
// A token file's token, without the whitespace around it (client-go trims it too).
std::string readTokenFile(const std::string& path);
// $KUBECONFIG split on ':' or ~/.kube/config.
std::vector<std::filesystem::path> defaultKubeconfigFiles();

}  // namespace fedhpa::clusters
