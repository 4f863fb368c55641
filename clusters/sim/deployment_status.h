// The status kube's deployment controller writes for a Deployment, from its pods' counts: the
// replica counts (each left out at 0, as kube's omitempty fields are) and the Available and
// Progressing conditions. The member-sim runs no ReplicaSets and no rollouts: every pod is of the
// current template, so the messages name the Deployment, as kube's do when it has no new ReplicaSet.
#pragma once

#include <chrono>

#include <nlohmann/json.hpp>

namespace fedhpa::sim {

struct DeploymentPods {
  int pods = 0;       // created, ready or not
  int ready = 0;      // Ready
  int available = 0;  // Ready for at least spec.minReadySeconds
};

// kube's deploymentutil.MaxUnavailable: 0 for Recreate or 0 replicas; for RollingUpdate,
// maxUnavailable (a number, or a percentage of spec.replicas rounded down; 25 % when left out),
// 1 when it and maxSurge (rounded up) both come to 0, at most spec.replicas.
int maxUnavailable(const nlohmann::json& deployment);

// The next status from the Deployment (spec, metadata.generation, its current status) and its
// pods at `now`. A condition whose status and reason stay is left as it was (times included).
nlohmann::json deploymentStatus(const nlohmann::json& deployment, const DeploymentPods& pods,
                                std::chrono::system_clock::time_point now);

}  // namespace fedhpa::sim
