// `fedhpa simulate`'s engine: one federated HPA over the scenario's member clusters in virtual
// time. Each member runs the member-sim's HPA model on its own demand within its local limits;
// the real partitioner re-plans those limits every reconcile period. The reference is one shared
// pool: a single HPA with the federated limits acting on the summed demand of the clusters that
// are up. No sockets, no clock: the same scenario always gives the same outcome.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "federation/simulation/scenario.h"
#include "partitioner/types.h"

namespace fedhpa::simulation {

// One cluster at one step.
struct ClusterSample {
  double demand = 0;
  int replicas = 0;
  std::optional<int> max;  // its local HPA's max; none when it holds no HPA
  bool up = true;
};

struct Timeline {
  std::vector<double> seconds;                                 // one entry per step
  std::map<std::string, std::vector<ClusterSample>> clusters;  // by cluster, one sample per step
  std::vector<int> referenceReplicas;                          // the shared pool, per step
};

// A rise in one cluster's demand curve (a run of rising segments), and how long that cluster's local max fell short of what
// a perfect split would give it (its own need, up to what the others' needs leave of the
// federated max): the longest such stretch between this rise and the next (0 when it never fell
// short), nullopt when it was still short at the next rise or the end.
struct Adaptation {
  std::string cluster;
  double risesAt = 0;
  std::optional<double> seconds;
};

struct Outcome {
  partitioner::Policy::Kind policy = partitioner::Policy::Kind::Demand;
  double servedReplicaSeconds = 0;     // Σ over steps and up clusters of min(demand, replicas)
  double referenceReplicaSeconds = 0;  // the same for the shared pool
  double unmetReplicaSeconds = 0;      // Σ of demand the federation did not serve
  double peakUnmet = 0;                // the most demand left unserved at one step (replicas)
  long long limitChanges = 0;          // local HPAs created, changed or deleted
  std::vector<Adaptation> adaptations;
  Timeline timeline;

  // served ÷ reference: the headline "tracking" figure (1 when neither served anything).
  double tracking() const;
};

Outcome simulate(const Scenario& scenario, partitioner::Policy::Kind policy);

}  // namespace fedhpa::simulation
