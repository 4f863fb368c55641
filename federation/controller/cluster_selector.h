// kubefed v1's cluster selector annotation (federation.alpha.kubernetes.io/cluster-selector):
// a JSON list of {"key", "operator", "values"}, all of which a Cluster's labels must satisfy.
// Operators: In, NotIn, Exists, DoesNotExist, =, ==, !=, Gt, Lt.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace fedhpa::controller {

inline constexpr const char* kClusterSelectorAnnotation = "federation.alpha.kubernetes.io/cluster-selector";

class SelectorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An empty annotation selects every cluster. Throws SelectorError on a malformed one.
bool clusterSelected(const std::string& annotation, const std::map<std::string, std::string>& labels);

}  // namespace fedhpa::controller
