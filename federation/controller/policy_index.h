// Which propagation policy governs each federated object, kept as objects and policies change, so
// that the policy-status loop does work in proportion to what changed (an informer's index, in
// client-go's terms):
//   - an object's change judges that object again (one match against its namespace's policies and
//     the cluster-scoped ones) and concerns at most two policies: the one that governed it and the
//     one that does now; a Deployment's change judges the HPAs targeting it too (a policy may
//     place an HPA by its target's labels), a FederatedHPA's the HPA it owns;
//   - a policy's change (created, spec edited, deleted) judges again the objects it governed and
//     those it selects now (one selector match per object in its scope to find them), and
//     concerns the policies those objects move between;
//   - a policy's status is built from the objects the index says it governs, never from a scan of
//     every object.
// The rule is propagation_policy.h's (governingPolicy, governingHpaPolicy): placement and status
// judge alike.
#pragma once

#include <compare>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fedhpa::controller {

// The kinds a policy governs, as the index and the statuses name them.
inline constexpr const char* kGovernedKinds[] = {"Deployment", "Service", "ConfigMap", "HorizontalPodAutoscaler", "FederatedHPA"};

// The apiVersion a policy's resourceSelector names a kind of kGovernedKinds by (an HPA's: autoscaling/v2).
std::string governedApiVersion(const std::string& kind);

// Whether an update changes what a policy's status reads of an object: which policy governs it
// (labels, owners, an HPA's target, deletion) and where it is placed (annotations: the cluster
// selector, a Deployment's HPA clusters). A status write (the HPAs' and Deployments' most frequent
// update) changes none of it, and needs no judging.
bool policyRelevantChange(const nlohmann::json& before, const nlohmann::json& after);

// Where the index reads policies and objects: the federation's informer caches (a test's lists).
struct PolicySources {
  std::function<std::vector<nlohmann::json>(const std::string& namespaceName)> propagationPolicies;  // one namespace's
  std::function<std::vector<nlohmann::json>()> clusterPropagationPolicies;
  // A federated object of one of kGovernedKinds; nullopt when the cache has none.
  std::function<std::optional<nlohmann::json>(const std::string& kind, const std::string& namespaceName, const std::string& name)> get;
  // Every cached object of a kind, in one namespace ("": all of them).
  std::function<std::vector<nlohmann::json>(const std::string& kind, const std::string& namespaceName)> list;
};

struct GovernedObject {
  std::string kind;
  std::string namespaceName;
  std::string name;
  auto operator<=>(const GovernedObject&) const = default;
};

class PolicyIndex {
 public:
  explicit PolicyIndex(PolicySources sources) : sources_(std::move(sources)) {}

  // The object (one of kGovernedKinds) was added, changed or deleted: judged again from the
  // caches. Returns the keys ("namespace/name" of a PropagationPolicy, "name" of a
  // ClusterPropagationPolicy) of the policies whose status this may change.
  std::set<std::string> objectChanged(const std::string& kind, const std::string& namespaceName, const std::string& name);
  // The policy `key` was created, its spec changed, or it was deleted (or is being deleted).
  // Returns the keys whose status this may change, `key`'s own among them.
  std::set<std::string> policyChanged(const std::string& key);
  // The objects `key` governs, as the caches hold them now, with their kind.
  std::vector<std::pair<std::string, nlohmann::json>> governedBy(const std::string& key) const;

 private:
  // The key of the policy that governs the object now; "" when none does (or it is being deleted).
  std::string judge(const std::string& kind, const nlohmann::json& object) const;
  // Judges one object again (absent from the caches: governed by nothing), adding to `affected`
  // the policies it left and joined. Under mutex_.
  void rejudge(const GovernedObject& object, std::set<std::string>& affected);
  // Whether `policy` selects the object at all (an HPA: itself, its owner or its target).
  bool selects(const nlohmann::json& policy, const std::string& kind, const nlohmann::json& object) const;

  // Records which Deployment an HPA targets ("": none, or the HPA is gone). Under mutex_.
  void recordTarget(const std::string& namespaceName, const std::string& hpa, const std::string& deployment);

  PolicySources sources_;
  mutable std::mutex mutex_;  // every judgement and record, so that the last one reads the newest caches
  std::map<GovernedObject, std::string> governor_;
  std::map<std::string, std::set<GovernedObject>> governed_;
  // The HPAs targeting each Deployment (namespace, Deployment -> HPA names), and the reverse, so
  // that a Deployment's change finds them without reading every HPA of its namespace.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> hpasByTarget_;
  std::map<std::pair<std::string, std::string>, std::string> targetOfHpa_;
};

}  // namespace fedhpa::controller
