#include "clusters/client/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "federation/api/machinery/base64.h"

namespace fedhpa::clusters {

namespace {

std::string readFile(const std::filesystem::path& path, const std::string& what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw KubeconfigError(what + ": cannot read " + path.string());
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// A field holding either inline base64 data ("...-data") or a file path, resolved against the
// kubeconfig's own directory as kubectl does.
std::string pemField(const YAML::Node& node, const std::string& field, const std::optional<std::filesystem::path>& base,
                     const std::string& where) {
  if (node[field + "-data"]) {
    const auto decoded = api::machinery::decodeBase64(node[field + "-data"].as<std::string>());
    if (!decoded) throw KubeconfigError(where + "." + field + "-data: not base64");
    return *decoded;
  }
  if (!node[field]) return "";
  std::filesystem::path path = node[field].as<std::string>();
  if (path.is_relative()) {
    if (!base) throw KubeconfigError(where + "." + field + ": a relative path needs a kubeconfig file");
    path = *base / path;
  }
  return readFile(path, where + "." + field);
}

void mergeDocument(Kubeconfig& config, const YAML::Node& root, const std::string& source,
                   const std::optional<std::filesystem::path>& base) {
  if (!root.IsMap()) throw KubeconfigError(source + ": not a kubeconfig (want a YAML map)");
  auto list = [&](const char* key) {
    const YAML::Node node = root[key];
    if (node && !node.IsNull() && !node.IsSequence()) throw KubeconfigError(source + ": " + key + ": want a list");
    return node;
  };
  auto nameOf = [&](const YAML::Node& entry, const std::string& where) {
    if (!entry["name"] || entry["name"].as<std::string>().empty()) throw KubeconfigError(source + ": " + where + ": name is missing");
    return entry["name"].as<std::string>();
  };
  int index = 0;
  for (const auto& entry : list("clusters")) {
    const std::string where = source + ": clusters[" + std::to_string(index++) + "]";
    const std::string name = nameOf(entry, "clusters[" + std::to_string(index - 1) + "]");
    if (config.clusters.count(name)) continue;  // the first file to name it wins
    const YAML::Node cluster = entry["cluster"];
    if (!cluster || !cluster["server"]) throw KubeconfigError(where + " (" + name + "): cluster.server is missing");
    config.clusters[name] = {cluster["server"].as<std::string>(), pemField(cluster, "certificate-authority", base, where + ".cluster"),
                             cluster["insecure-skip-tls-verify"] && cluster["insecure-skip-tls-verify"].as<bool>(), source};
  }
  index = 0;
  for (const auto& entry : list("users")) {
    const std::string where = source + ": users[" + std::to_string(index++) + "]";
    const std::string name = nameOf(entry, "users[" + std::to_string(index - 1) + "]");
    if (config.users.count(name)) continue;
    const YAML::Node user = entry["user"] ? entry["user"] : YAML::Node(YAML::NodeType::Map);
    KubeconfigUser out{pemField(user, "client-certificate", base, where + ".user"),
                       pemField(user, "client-key", base, where + ".user"), "", source};
    if (user["token"]) {
      out.token = user["token"].as<std::string>();
    } else if (user["tokenFile"]) {
      std::filesystem::path path = user["tokenFile"].as<std::string>();
      if (path.is_relative() && base) path = *base / path;
      out.token = readFile(path, where + ".user.tokenFile");
      while (!out.token.empty() && (out.token.back() == '\n' || out.token.back() == '\r')) out.token.pop_back();
    }
    if (out.clientCertPem.empty() != out.clientKeyPem.empty())
      throw KubeconfigError(where + " (" + name + "): client-certificate and client-key go together");
    config.users[name] = out;
  }
  index = 0;
  for (const auto& entry : list("contexts")) {
    const std::string name = nameOf(entry, "contexts[" + std::to_string(index++) + "]");
    if (config.contexts.count(name)) continue;
    const YAML::Node context = entry["context"];
    if (!context || !context["cluster"])
      throw KubeconfigError(source + ": contexts[" + std::to_string(index - 1) + "] (" + name + "): context.cluster is missing");
    config.contexts[name] = {context["cluster"].as<std::string>(), context["user"] ? context["user"].as<std::string>() : "",
                             context["namespace"] ? context["namespace"].as<std::string>() : "", source};
  }
  if (config.currentContext.empty() && root["current-context"]) config.currentContext = root["current-context"].as<std::string>();
}

Kubeconfig parse(const std::string& yaml, const std::string& source, const std::optional<std::filesystem::path>& base) {
  Kubeconfig config;
  try {
    mergeDocument(config, YAML::Load(yaml), source, base);
  } catch (const YAML::Exception& error) {
    throw KubeconfigError(source + ": " + error.what());
  }
  return config;
}

}  // namespace

RestConfig Kubeconfig::resolve(const std::string& contextName) const {
  const std::string name = contextName.empty() ? currentContext : contextName;
  if (name.empty()) throw KubeconfigError("kubeconfig: no context given and current-context is not set");
  const auto context = contexts.find(name);
  if (context == contexts.end()) throw KubeconfigError("kubeconfig: context \"" + name + "\" not found");
  const auto cluster = clusters.find(context->second.cluster);
  if (cluster == clusters.end())
    throw KubeconfigError(context->second.source + ": context \"" + name + "\": cluster \"" + context->second.cluster + "\" not found");
  RestConfig out;
  out.server = cluster->second.server;
  out.caPem = cluster->second.caPem;
  out.insecureSkipTlsVerify = cluster->second.insecureSkipTlsVerify;
  if (!context->second.user.empty()) {
    const auto user = users.find(context->second.user);
    if (user == users.end())
      throw KubeconfigError(context->second.source + ": context \"" + name + "\": user \"" + context->second.user + "\" not found");
    out.clientCertPem = user->second.clientCertPem;
    out.clientKeyPem = user->second.clientKeyPem;
    out.bearerToken = user->second.token;
  }
  if (!context->second.namespaceName.empty()) out.namespaceName = context->second.namespaceName;
  return out;
}

Kubeconfig loadKubeconfig(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) throw KubeconfigError("kubeconfig: no file given");
  Kubeconfig merged;
  for (const auto& file : files) {
    const Kubeconfig one = parse(readFile(file, "kubeconfig"), file.string(), file.parent_path());
    for (const auto& [name, cluster] : one.clusters) merged.clusters.emplace(name, cluster);
    for (const auto& [name, user] : one.users) merged.users.emplace(name, user);
    for (const auto& [name, context] : one.contexts) merged.contexts.emplace(name, context);
    if (merged.currentContext.empty()) merged.currentContext = one.currentContext;
  }
  return merged;
}

Kubeconfig parseKubeconfig(const std::string& yaml, const std::string& source) { return parse(yaml, source, std::nullopt); }

std::vector<std::filesystem::path> defaultKubeconfigFiles() {
  std::vector<std::filesystem::path> files;
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    std::stringstream list(env);
    std::string item;
    while (std::getline(list, item, ':'))
      if (!item.empty()) files.emplace_back(item);
    return files;
  }
  if (const char* home = std::getenv("HOME")) files.push_back(std::filesystem::path(home) / ".kube" / "config");
  return files;
}

}  // namespace fedhpa::clusters
