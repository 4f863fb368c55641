// What the controller-manager's /metrics reports (Prometheus text): reconcile latency, queue
// depth, writes to members by kind, member API errors by cluster, and each member's readiness.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace fedhpa::controller {

class ControllerMetrics {
 public:
  void observeReconcile(double seconds, bool failed);
  void countMemberWrite(const std::string& kind);  // create, update, delete, orphan
  void countMemberError(const std::string& cluster);
  void setClusterReady(const std::string& cluster, bool ready);
  std::string render(std::size_t queueDepth) const;

 private:
  static constexpr std::array<double, 10> kBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
  mutable std::mutex mutex_;
  std::array<std::uint64_t, kBuckets.size()> buckets_{};
  std::uint64_t reconciles_ = 0;
  std::uint64_t failures_ = 0;
  double seconds_ = 0;
  std::map<std::string, std::uint64_t> writes_;
  std::map<std::string, std::uint64_t> memberErrors_;
  std::map<std::string, bool> ready_;
};

}  // namespace fedhpa::controller
