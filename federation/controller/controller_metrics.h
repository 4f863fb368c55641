// What the controller-manager's /metrics reports (Prometheus text): reconcile latency, queue
// depth, writes to members by kind, member API errors by cluster, each member's health, each
// federated HPA's limits and replicas with every member's share, rebalances, and leadership.
// Labels are bounded by what the operator created: clusters, and namespace/name of federated HPAs
// (a deleted HPA's series go with it).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "federation/controller/member_hpa.h"

namespace fedhpa::controller {

// A federated HPA's own limits and summed replicas.
struct FederatedReplicas {
  long long min = 1, max = 0, current = 0, desired = 0;
};

class ControllerMetrics {
 public:
  void observeReconcile(double seconds, bool failed);
  void countMemberWrite(const std::string& kind);  // create, update, delete, orphan
  void countMemberError(const std::string& cluster);
  void setClusterHealth(const std::string& cluster, MemberHealth health);
  // Clusters no longer joined lose their series.
  void retainClusters(const std::set<std::string>& clusters);
  // breakdown: statusBreakdown's form, cluster -> {min, max, current, ...}.
  void setFederatedHpa(const std::string& namespaceName, const std::string& name, const FederatedReplicas& replicas,
                       const nlohmann::json& breakdown);
  void countRebalance(const std::string& namespaceName, const std::string& name);
  void forgetFederatedHpa(const std::string& namespaceName, const std::string& name);
  // Whether this process holds the controller-manager's Lease (always, without leader election).
  void setLeading(bool leading);
  std::string render(std::size_t queueDepth) const;

 private:
  using HpaKey = std::pair<std::string, std::string>;  // namespace, name
  struct MemberShare {
    long long min = 0, max = 0, current = 0;
  };
  struct HpaSeries {
    FederatedReplicas replicas;
    std::map<std::string, MemberShare> members;
    std::uint64_t rebalances = 0;
  };
  void renderHpas(std::ostream& out) const;

  static constexpr std::array<double, 10> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
  mutable std::mutex mutex_;
  std::array<std::uint64_t, kBuckets.size()> buckets_{};
  std::uint64_t reconciles_ = 0;
  std::uint64_t failures_ = 0;
  double seconds_ = 0;
  std::map<std::string, std::uint64_t> writes_;
  std::map<std::string, std::uint64_t> memberErrors_;
  std::map<std::string, MemberHealth> health_;
  std::map<HpaKey, HpaSeries> hpas_;
  bool leading_ = false;
};

}  // namespace fedhpa::controller
