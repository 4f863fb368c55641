#include "federation/controller/controller_metrics.h"

#include <sstream>

namespace fedhpa::controller {

void ControllerMetrics::observeReconcile(double seconds, bool failed) {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) ++buckets_[i];
  ++reconciles_;
  seconds_ += seconds;
  if (failed) ++failures_;
}

void ControllerMetrics::countMemberWrite(const std::string& kind) {
  std::lock_guard lock(mutex_);
  ++writes_[kind];
}

void ControllerMetrics::countMemberError(const std::string& cluster) {
  std::lock_guard lock(mutex_);
  ++memberErrors_[cluster];
}

void ControllerMetrics::setClusterReady(const std::string& cluster, bool ready) {
  std::lock_guard lock(mutex_);
  ready_[cluster] = ready;
}

std::string ControllerMetrics::render(std::size_t queueDepth) const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "# HELP fedhpa_reconcile_duration_seconds Time one reconcile of a federated HPA took.\n"
         "# TYPE fedhpa_reconcile_duration_seconds histogram\n";
  for (std::size_t i = 0; i < kBuckets.size(); ++i)
    out << "fedhpa_reconcile_duration_seconds_bucket{le=\"" << kBuckets[i] << "\"} " << buckets_[i] << "\n";
  out << "fedhpa_reconcile_duration_seconds_bucket{le=\"+Inf\"} " << reconciles_ << "\n"
      << "fedhpa_reconcile_duration_seconds_sum " << seconds_ << "\n"
      << "fedhpa_reconcile_duration_seconds_count " << reconciles_ << "\n"
      << "# HELP fedhpa_reconcile_errors_total Reconciles that failed and were queued again.\n"
         "# TYPE fedhpa_reconcile_errors_total counter\n"
      << "fedhpa_reconcile_errors_total " << failures_ << "\n"
      << "# HELP fedhpa_workqueue_depth Federated HPAs waiting for a worker.\n# TYPE fedhpa_workqueue_depth gauge\n"
      << "fedhpa_workqueue_depth " << queueDepth << "\n"
      << "# HELP fedhpa_member_writes_total Local HPA writes by kind.\n# TYPE fedhpa_member_writes_total counter\n";
  for (const auto& [kind, count] : writes_) out << "fedhpa_member_writes_total{kind=\"" << kind << "\"} " << count << "\n";
  out << "# HELP fedhpa_member_api_errors_total Failed calls to member clusters.\n"
         "# TYPE fedhpa_member_api_errors_total counter\n";
  for (const auto& [cluster, count] : memberErrors_)
    out << "fedhpa_member_api_errors_total{cluster=\"" << cluster << "\"} " << count << "\n";
  out << "# HELP fedhpa_cluster_ready Whether a member cluster is eligible (1) or not (0).\n# TYPE fedhpa_cluster_ready gauge\n";
  for (const auto& [cluster, ready] : ready_) out << "fedhpa_cluster_ready{cluster=\"" << cluster << "\"} " << (ready ? 1 : 0) << "\n";
  return out.str();
}

}  // namespace fedhpa::controller
