// `fedhpa join` / `unjoin`, like kubefed v1's `kubefed join`: register a member cluster with the
// federation as a Secret holding its kubeconfig (namespace federation-system) and a Cluster. The
// credential in that kubeconfig is the member identity's (member_identity.h), never the operator's.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "clusters/client/cluster_registry.h"  // ClientFactory
#include "clusters/client/kube_client.h"
#include "clusters/client/kubeconfig.h"
#include "clusters/client/member_identity.h"
#include "clusters/client/stored_token.h"  // kTokenExpirationAnnotation

namespace fedhpa::clusters {

// A self-contained kubeconfig (certificates inline) with one context, for a member's Secret.
std::string flattenedKubeconfig(const std::string& name, const RestConfig& member);

// The Secret and the Cluster join writes in the federation.
json kubeconfigSecret(const std::string& name, const RestConfig& stored, const std::map<std::string, std::string>& annotations);
json clusterObject(const std::string& name, const std::string& server);

// Creates the Secret and the Cluster, or brings them to these contents when they exist (a re-join
// replaces the stored credential); returns the Cluster. A Secret it created is removed again when
// the Cluster cannot be written. Throws ClientError.
json joinCluster(KubeClient& federation, const std::string& name, const RestConfig& stored,
                 const std::map<std::string, std::string>& secretAnnotations = {});
// The member's address, CA, tls-server-name and proxy-url from the operator's context, with `token`
// and no other credential.
RestConfig storedConfig(const RestConfig& member, const std::string& token);

// `fedhpa join` whole: with the operator's credential for the member (memberAdmin) creates the
// member identity there, takes a token of it for tokenLifetime, checks that token works through a
// client read from the Secret's kubeconfig as the controller will read it, and only then writes
// that Secret (the token, the member's CA) and the Cluster. Returns the token taken. `clients`
// opens the member clients (RestClient when empty). Throws ClientError; one from the member has a
// message that starts "member NAME: ".
IssuedToken joinMember(KubeClient& federation, const std::string& name, const RestConfig& memberAdmin,
                       std::chrono::seconds tokenLifetime, const ClientFactory& clients = {});

// Deletes the Cluster and its Secret; a part already gone is no error.
void unjoinCluster(KubeClient& federation, const std::string& name);

// Objects as YAML documents separated by "---", as `kubectl get -o yaml` prints them one by one.
std::string yamlDocuments(const std::vector<json>& objects);

}  // namespace fedhpa::clusters
