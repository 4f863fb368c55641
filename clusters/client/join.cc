#include "clusters/client/join.h"

#include <yaml-cpp/yaml.h>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/rest_client.h"
#include "federation/api/machinery/base64.h"

namespace fedhpa::clusters {

std::string flattenedKubeconfig(const std::string& name, const RestConfig& member) {
  using api::machinery::encodeBase64;
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "apiVersion" << YAML::Value << "v1" << YAML::Key << "kind" << YAML::Value << "Config";
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap << YAML::Key << "server" << YAML::Value << member.server;
  if (!member.caPem.empty()) out << YAML::Key << "certificate-authority-data" << YAML::Value << encodeBase64(member.caPem);
  if (member.insecureSkipTlsVerify) out << YAML::Key << "insecure-skip-tls-verify" << YAML::Value << true;
  if (!member.tlsServerName.empty()) out << YAML::Key << "tls-server-name" << YAML::Value << member.tlsServerName;
  if (!member.proxyUrl.empty()) out << YAML::Key << "proxy-url" << YAML::Value << member.proxyUrl;
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "user" << YAML::Value << YAML::BeginMap;
  if (!member.clientCertPem.empty()) {
    out << YAML::Key << "client-certificate-data" << YAML::Value << encodeBase64(member.clientCertPem);
    out << YAML::Key << "client-key-data" << YAML::Value << encodeBase64(member.clientKeyPem);
  }
  if (!member.bearerToken.empty()) out << YAML::Key << "token" << YAML::Value << member.bearerToken;
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "context" << YAML::Value << YAML::BeginMap << YAML::Key << "cluster" << YAML::Value << name << YAML::Key
      << "user" << YAML::Value << name << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::Key << "current-context" << YAML::Value << name << YAML::EndMap;
  return out.c_str();
}

json kubeconfigSecret(const std::string& name, const RestConfig& stored, const std::map<std::string, std::string>& annotations) {
  json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", name}, {"namespace", kFederationNamespace}}},
                 {"type", "Opaque"},
                 {"data", {{kKubeconfigSecretKey, api::machinery::encodeBase64(flattenedKubeconfig(name, stored))}}}};
  if (!annotations.empty()) secret["metadata"]["annotations"] = annotations;
  return secret;
}

json clusterObject(const std::string& name, const std::string& server) {
  return {{"apiVersion", "federation/v1beta1"},
          {"kind", "Cluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server}}}},
            {"secretRef", {{"name", name}}}}}};
}

namespace {

struct Written {
  json object;  // as the server answered
  bool created = false;
};

// Creates `wanted`, or when it exists puts `fields` of it over the current object (an update
// conditional on the resourceVersion read).
Written createOrUpdate(KubeClient& client, const Resource& resource, const std::string& ns, const json& wanted,
                       std::initializer_list<const char*> fields) {
  try {
    return {client.create(resource, ns, wanted), true};
  } catch (const ClientError& error) {
    if (error.kind() != ClientError::Kind::AlreadyExists) throw;
  }
  json current = client.get(resource, ns, wanted["metadata"]["name"]);
  for (const char* field : fields) {
    if (wanted.contains(field)) current[field] = wanted[field];
    else current.erase(field);
  }
  if (wanted["metadata"].contains("annotations"))
    for (const auto& [key, value] : wanted["metadata"]["annotations"].items()) current["metadata"]["annotations"][key] = value;
  return {client.update(resource, current), false};
}

void emitYaml(YAML::Emitter& out, const json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      emitYaml(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : value) emitYaml(out, item);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    out << YAML::DoubleQuoted << value.get<std::string>();
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans as JSON writes them, which YAML reads alike
  }
}

}  // namespace

std::string yamlDocuments(const std::vector<json>& objects) {
  std::string text;
  for (const auto& object : objects) {
    YAML::Emitter out;
    emitYaml(out, object);
    text += std::string("---\n") + out.c_str() + "\n";
  }
  return text;
}

namespace {

json writeSecretAndCluster(KubeClient& federation, const json& secret, const json& cluster) {
  const bool createdSecret = createOrUpdate(federation, kSecrets, kFederationNamespace, secret, {"data", "type"}).created;
  try {
    return createOrUpdate(federation, kClusters, "", cluster, {"spec"}).object;
  } catch (const ClientError&) {
    if (createdSecret) federation.remove(kSecrets, kFederationNamespace, secret["metadata"]["name"]);  // nothing half-joined
    throw;
  }
}

}  // namespace

json joinCluster(KubeClient& federation, const std::string& name, const RestConfig& stored,
                 const std::map<std::string, std::string>& secretAnnotations) {
  return writeSecretAndCluster(federation, kubeconfigSecret(name, stored, secretAnnotations), clusterObject(name, stored.server));
}

RestConfig storedConfig(const RestConfig& member, const std::string& token) {
  RestConfig stored;
  stored.server = member.server;
  stored.caPem = member.caPem;
  stored.insecureSkipTlsVerify = member.insecureSkipTlsVerify;
  // How the member is reached, as the operator's cluster entry says: the name its certificate
  // holds (an address that is not in it: a load balancer's, a tunnel's) and the proxy on the way.
  stored.tlsServerName = member.tlsServerName;
  stored.proxyUrl = member.proxyUrl;
  stored.bearerToken = token;
  return stored;
}

IssuedToken joinMember(KubeClient& federation, const std::string& name, const RestConfig& memberAdmin,
                       std::chrono::seconds tokenLifetime, const ClientFactory& clients) {
  const auto open = [&clients](const RestConfig& config) -> std::shared_ptr<KubeClient> {
    return clients ? clients(config) : std::make_shared<RestClient>(config);
  };
  IssuedToken issued;
  json secret;
  json cluster;
  try {
    const auto member = open(memberAdmin);
    applyMemberIdentity(*member, memberIdentityPlan());
    issued = requestMemberToken(*member, tokenLifetime);
    std::map<std::string, std::string> annotations;
    if (!issued.expirationTimestamp.empty()) annotations[kTokenExpirationAnnotation] = issued.expirationTimestamp;
    secret = kubeconfigSecret(name, storedConfig(memberAdmin, issued.token), annotations);
    cluster = clusterObject(name, memberAdmin.server);
    // What the federation will hold must work before the federation is told of the member: the
    // client is the controller's, read from the very Secret about to be written.
    verifyMemberAccess(*open(memberRestConfig(cluster, secret)));
  } catch (const ClientError& error) {
    throw ClientError(error.kind(), error.code(), error.reason(), "member " + name + ": " + error.what());
  }
  writeSecretAndCluster(federation, secret, cluster);
  return issued;
}

void unjoinCluster(KubeClient& federation, const std::string& name) {
  bool found = false;
  for (const auto& [resource, ns] : {std::pair{kClusters, std::string()}, std::pair{kSecrets, std::string(kFederationNamespace)}}) {
    try {
      federation.remove(resource, ns, name);
      found = true;
    } catch (const ClientError& error) {
      if (error.kind() != ClientError::Kind::NotFound) throw;
    }
  }
  if (!found) throw ClientError(ClientError::Kind::NotFound, 404, "NotFound", "clusters.federation \"" + name + "\" not found");
}

}  // namespace fedhpa::clusters
