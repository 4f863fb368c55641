#include "partitioner/invariants.h"

namespace fedhpa::partitioner {

std::vector<std::string> invariantViolations(const FederatedSpec& spec,
                                             const std::vector<std::optional<Limits>>& result) {
  std::vector<std::string> violations;
  if (result.empty()) return violations;
  Replicas sumMax = 0;
  Replicas sumMin = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (!result[i]) continue;
    const Limits& l = *result[i];
    if (l.min < 1 || l.min > l.max) {
      violations.push_back("cluster #" + std::to_string(i) + " has min " + std::to_string(l.min) +
                           ", max " + std::to_string(l.max) + " (want 1 <= min <= max)");
    }
    sumMax += l.max;
    sumMin += l.min;
  }
  if (sumMax != spec.limits.max) {
    violations.push_back("sum of local max is " + std::to_string(sumMax) + ", federated max is " +
                         std::to_string(spec.limits.max));
  }
  if (sumMin < spec.limits.min) {
    violations.push_back("sum of local min is " + std::to_string(sumMin) +
                         ", below the federated min " + std::to_string(spec.limits.min));
  }
  return violations;
}

}  // namespace fedhpa::partitioner
