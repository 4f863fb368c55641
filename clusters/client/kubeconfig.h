// Kubeconfig files as kubectl reads them: clusters, users, contexts, current-context, several
// files merged like KUBECONFIG=a:b (the first file to name an entry wins), paths relative to the
// file that holds them. resolve() gives what a client needs to reach one context's server.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedhpa::clusters {

class KubeconfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Everything a REST client needs; PEM contents, never file names.
struct RestConfig {
  std::string server;             // https://10.0.0.1:6443
  std::string caPem;              // empty: the system's trust store
  std::string clientCertPem;
  std::string clientKeyPem;
  std::string bearerToken;
  bool insecureSkipTlsVerify = false;
  std::string namespaceName = "default";
};

struct KubeconfigCluster {
  std::string server;
  std::string caPem;
  bool insecureSkipTlsVerify = false;
  std::string source;  // the file it came from, for errors
};

struct KubeconfigUser {
  std::string clientCertPem;
  std::string clientKeyPem;
  std::string token;
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
// From text (a kubeconfig stored in a Secret); relative paths are refused there.
Kubeconfig parseKubeconfig(const std::string& yaml, const std::string& source);
// $KUBECONFIG split on ':' or ~/.kube/config.
std::vector<std::filesystem::path> defaultKubeconfigFiles();

}  // namespace fedhpa::clusters
