#include "clusters/client/kubeconfig.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "federation/api/machinery/base64.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/machinery/yaml_json.h"

namespace fedhpa::clusters {

namespace {

using nlohmann::json;

std::string readFile(const std::filesystem::path& path, const std::string& what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw KubeconfigError(what + ": cannot read " + path.string());
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// A field's text, as kubectl reads one: absent and null are the same; a number or boolean is its
// YAML text; a list or map where text belongs is an error.
std::optional<std::string> text(const json& node, const std::string& field, const std::string& where) {
  if (!node.is_object() || !node.contains(field) || node[field].is_null()) return std::nullopt;
  const json& value = node[field];
  if (value.is_string()) return value.get<std::string>();
  if (value.is_structured()) throw KubeconfigError(where + "." + field + ": want a string");
  return value.dump();
}

bool flag(const json& node, const std::string& field, const std::string& where) {
  if (!node.is_object() || !node.contains(field) || node[field].is_null()) return false;
  if (!node[field].is_boolean()) throw KubeconfigError(where + "." + field + ": want true or false");
  return node[field].get<bool>();
}

// A field holding either inline base64 data ("...-data") or a file path, resolved against the
// kubeconfig's own directory as kubectl does.
std::string pemField(const json& node, const std::string& field, const std::optional<std::filesystem::path>& base,
                     const std::string& where) {
  if (const auto data = text(node, field + "-data", where)) {
    const auto decoded = api::machinery::decodeBase64(*data);
    if (!decoded) throw KubeconfigError(where + "." + field + "-data: not base64");
    return *decoded;
  }
  const auto file = text(node, field, where);
  if (!file) return "";
  std::filesystem::path path = *file;
  if (path.is_relative()) {
    if (!base) throw KubeconfigError(where + "." + field + ": a relative path needs a kubeconfig file");
    path = *base / path;
  }
  return readFile(path, where + "." + field);
}

// A cluster's extensions[client.authentication.k8s.io/exec].extension: handed to exec plugins as
// spec.cluster.config.
std::optional<std::string> execExtension(const json& cluster, const std::string& where) {
  if (!cluster.is_object() || !cluster.contains("extensions") || cluster["extensions"].is_null()) return std::nullopt;
  if (!cluster["extensions"].is_array()) throw KubeconfigError(where + ".extensions: want a list");
  for (const auto& extension : cluster["extensions"])
    if (text(extension, "name", where + ".extensions") == std::optional<std::string>(kExecExtensionName))
      return extension.value("extension", json()).dump();
  return std::nullopt;
}

// client-go dials http, https and socks5 proxies; cpprestsdk only http ones (CONNECT for https servers).
void checkProxyUrl(const std::string& url, const std::string& where) {
  if (url.empty() || url.rfind("http://", 0) == 0) return;
  const auto colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
  if (scheme == "socks5" || scheme == "https")
    throw KubeconfigError(where + ": " + scheme + " proxies are not supported (fedhpa reaches clusters through http:// proxies only)");
  throw KubeconfigError(where + ": \"" + url + "\" is not an http:// URL");
}

ExecConfig::InteractiveMode interactiveMode(const std::string& value, const std::string& where) {
  if (value == "Never") return ExecConfig::InteractiveMode::Never;
  if (value == "IfAvailable") return ExecConfig::InteractiveMode::IfAvailable;
  if (value == "Always") return ExecConfig::InteractiveMode::Always;
  throw KubeconfigError(where + ": invalid interactiveMode \"" + value + "\" (want Never, IfAvailable or Always)");
}

// users[].user.exec, checked as clientcmd's validation and client-go's exec authenticator check it.
ExecConfig execConfig(const json& node, const std::filesystem::path& base, const std::string& where, const std::string& user) {
  if (!node.is_object()) throw KubeconfigError(where + ": want a map");
  ExecConfig out;
  out.source = where;
  out.apiVersion = text(node, "apiVersion", where).value_or("");
  if (out.apiVersion != kExecApiV1 && out.apiVersion != kExecApiV1beta1)
    throw KubeconfigError(where + ": exec plugin: invalid apiVersion \"" + out.apiVersion + "\" (fedhpa, as client-go 1.24 and later, runs " +
                          kExecApiV1 + " and " + kExecApiV1beta1 + " plugins)");
  out.command = text(node, "command", where).value_or("");
  if (out.command.empty()) throw KubeconfigError(where + ": command must be specified for " + user + " to use exec authentication plugin");
  // A command with a slash is a path, relative to the kubeconfig's directory; a bare name is looked up on PATH.
  if (out.command.find('/') != std::string::npos && std::filesystem::path(out.command).is_relative())
    out.command = (base / out.command).lexically_normal().string();
  if (node.contains("args") && !node["args"].is_null()) {
    if (!node["args"].is_array()) throw KubeconfigError(where + ".args: want a list");
    for (std::size_t i = 0; i < node["args"].size(); ++i) {
      const json wrapped = {{"arg", node["args"][i]}};
      out.args.push_back(text(wrapped, "arg", where + ".args[" + std::to_string(i) + "]").value_or(""));
    }
  }
  if (node.contains("env") && !node["env"].is_null()) {
    if (!node["env"].is_array()) throw KubeconfigError(where + ".env: want a list");
    for (std::size_t i = 0; i < node["env"].size(); ++i) {
      const std::string at = where + ".env[" + std::to_string(i) + "]";
      const auto name = text(node["env"][i], "name", at);
      if (!name || name->empty()) throw KubeconfigError(at + ": env variable name must be specified for " + user + " to use exec authentication plugin");
      out.env.emplace_back(*name, text(node["env"][i], "value", at).value_or(""));
    }
  }
  out.installHint = text(node, "installHint", where).value_or("");
  if (const auto mode = text(node, "interactiveMode", where); mode && !mode->empty()) {
    out.interactiveMode = interactiveMode(*mode, where);
  } else if (out.apiVersion == kExecApiV1) {
    throw KubeconfigError(where + ": interactiveMode must be specified for " + user + " to use exec authentication plugin");
  }
  out.provideClusterInfo = flag(node, "provideClusterInfo", where);
  return out;
}

void mergeDocument(Kubeconfig& config, const json& root, const std::string& source,
                   const std::optional<std::filesystem::path>& base) {
  if (!root.is_object()) throw KubeconfigError(source + ": not a kubeconfig (want a YAML map)");
  auto list = [&](const char* key) {
    const json node = root.value(key, json());
    if (node.is_null()) return json::array();
    if (!node.is_array()) throw KubeconfigError(source + ": " + key + ": want a list");
    return node;
  };
  auto nameOf = [&](const json& entry, const std::string& where) {
    const auto name = text(entry, "name", source + ": " + where);
    if (!name || name->empty()) throw KubeconfigError(source + ": " + where + ": name is missing");
    return *name;
  };
  auto section = [](const json& entry, const char* key) { return entry.is_object() ? entry.value(key, json()) : json(); };
  int index = 0;
  for (const auto& entry : list("clusters")) {
    const std::string where = source + ": clusters[" + std::to_string(index++) + "]";
    const std::string name = nameOf(entry, "clusters[" + std::to_string(index - 1) + "]");
    if (config.clusters.count(name)) continue;  // the first file to name it wins
    const json cluster = section(entry, "cluster");
    const auto server = text(cluster, "server", where + ".cluster");
    if (!server) throw KubeconfigError(where + " (" + name + "): cluster.server is missing");
    KubeconfigCluster out{*server, pemField(cluster, "certificate-authority", base, where + ".cluster"),
                          flag(cluster, "insecure-skip-tls-verify", where + ".cluster"),
                          text(cluster, "tls-server-name", where + ".cluster").value_or(""),
                          text(cluster, "proxy-url", where + ".cluster").value_or(""), execExtension(cluster, where + ".cluster"),
                          source};
    checkProxyUrl(out.proxyUrl, where + ".cluster.proxy-url");
    config.clusters[name] = out;
  }
  index = 0;
  for (const auto& entry : list("users")) {
    const std::string where = source + ": users[" + std::to_string(index++) + "]";
    const std::string name = nameOf(entry, "users[" + std::to_string(index - 1) + "]");
    if (config.users.count(name)) continue;
    const json user = section(entry, "user");
    KubeconfigUser out{pemField(user, "client-certificate", base, where + ".user"),
                       pemField(user, "client-key", base, where + ".user"), "", "", std::nullopt, source};
    if (const auto tokenFile = text(user, "tokenFile", where + ".user")) {
      if (!base) throw KubeconfigError(where + ".user.tokenFile: not allowed in a kubeconfig that is not a file");
      std::filesystem::path path = *tokenFile;
      if (path.is_relative()) path = *base / path;
      out.tokenFile = path.string();
    }
    // As client-go: an inline token is sent as it is; a token file is read now (a missing one is
    // an error at once) and again as it rotates, and wins over the inline token when both are set.
    if (const auto token = text(user, "token", where + ".user")) {
      out.token = *token;
    } else if (!out.tokenFile.empty()) {
      try {
        out.token = readTokenFile(out.tokenFile);
      } catch (const KubeconfigError& error) {
        throw KubeconfigError(where + ".user.tokenFile: " + error.what());
      }
    }
    if (user.is_object() && user.contains("exec") && !user["exec"].is_null()) {
      if (!base) throw KubeconfigError(where + ".user.exec: not allowed in a kubeconfig that is not a file");
      out.exec = execConfig(user["exec"], *base, where + ".user.exec", name);
    }
    if (out.clientCertPem.empty() != out.clientKeyPem.empty())
      throw KubeconfigError(where + " (" + name + "): client-certificate and client-key go together");
    config.users[name] = out;
  }
  index = 0;
  for (const auto& entry : list("contexts")) {
    const std::string where = source + ": contexts[" + std::to_string(index++) + "]";
    const std::string name = nameOf(entry, "contexts[" + std::to_string(index - 1) + "]");
    if (config.contexts.count(name)) continue;
    const json context = section(entry, "context");
    const auto cluster = text(context, "cluster", where + ".context");
    if (!cluster) throw KubeconfigError(where + " (" + name + "): context.cluster is missing");
    config.contexts[name] = {*cluster, text(context, "user", where + ".context").value_or(""),
                             text(context, "namespace", where + ".context").value_or(""), source};
  }
  if (config.currentContext.empty()) config.currentContext = text(root, "current-context", source).value_or("");
}

Kubeconfig parse(const std::string& yaml, const std::string& source, const std::optional<std::filesystem::path>& base) {
  // A kubeconfig may come from a Secret anyone with write access to it wrote: bounded as a request body is.
  const auto limits = api::machinery::YamlLimits::forUntrusted(yaml.size());
  std::vector<std::string> documents;
  try {
    documents = api::machinery::yamlToJsonDocuments(yaml, limits);
  } catch (const api::machinery::YamlError& error) {
    throw KubeconfigError(source + ": " + error.what());
  }
  Kubeconfig config;
  // An empty file is an empty kubeconfig (kubectl's view); a second document is ignored, as kubectl does.
  json root = json::object();
  try {
    if (!documents.empty()) root = api::machinery::parseUntrustedJson(documents.front());
  } catch (const api::machinery::JsonInputError& error) {
    throw KubeconfigError(source + ": " + error.what());
  }
  mergeDocument(config, root, source, base);
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
  out.tlsServerName = cluster->second.tlsServerName;
  out.proxyUrl = cluster->second.proxyUrl;
  out.execClusterInfo = {out.server, out.tlsServerName, out.caPem, out.insecureSkipTlsVerify, out.proxyUrl,
                         cluster->second.execConfigJson};
  if (!context->second.user.empty()) {
    const auto user = users.find(context->second.user);
    if (user == users.end())
      throw KubeconfigError(context->second.source + ": context \"" + name + "\": user \"" + context->second.user + "\" not found");
    out.clientCertPem = user->second.clientCertPem;
    out.clientKeyPem = user->second.clientKeyPem;
    out.bearerToken = user->second.token;
    out.tokenFile = user->second.tokenFile;
    out.exec = user->second.exec;
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

std::string readTokenFile(const std::string& path) {
  std::string token = readFile(path, "token file");
  const auto end = token.find_last_not_of(" \t\r\n");
  token.erase(end == std::string::npos ? 0 : end + 1);
  const auto begin = token.find_first_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : token.substr(begin);
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
