// `fedhpa join` / `unjoin`, like kubefed v1's `kubefed join`: register a member cluster with the
// federation as a Secret holding its kubeconfig (namespace federation-system) and a Cluster.
#pragma once

#include <string>

#include "clusters/client/kube_client.h"
#include "clusters/client/kubeconfig.h"

namespace fedhpa::clusters {

// A self-contained kubeconfig (certificates inline) with one context, for a member's Secret.
std::string flattenedKubeconfig(const std::string& name, const RestConfig& member);

// Creates the Secret and the Cluster; returns the Cluster. Throws ClientError (AlreadyExists ...).
json joinCluster(KubeClient& federation, const std::string& name, const RestConfig& member);
// Deletes the Cluster and its Secret; a part already gone is no error.
void unjoinCluster(KubeClient& federation, const std::string& name);

}  // namespace fedhpa::clusters
