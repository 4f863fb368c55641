#include "clusters/client/join.h"

#include <yaml-cpp/yaml.h>

#include "clusters/client/cluster_registry.h"
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

json joinCluster(KubeClient& federation, const std::string& name, const RestConfig& member) {
  const json secret = {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", name}, {"namespace", kFederationNamespace}}},
                       {"type", "Opaque"},
                       {"data", {{kKubeconfigSecretKey, api::machinery::encodeBase64(flattenedKubeconfig(name, member))}}}};
  const json cluster = {{"apiVersion", "federation/v1beta1"},
                        {"kind", "Cluster"},
                        {"metadata", {{"name", name}}},
                        {"spec",
                         {{"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", member.server}}}},
                          {"secretRef", {{"name", name}}}}}};
  federation.create(kSecrets, kFederationNamespace, secret);
  try {
    return federation.create(kClusters, "", cluster);
  } catch (const ClientError&) {
    federation.remove(kSecrets, kFederationNamespace, name);  // leave nothing half-joined
    throw;
  }
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
