#include "federation/controller/controller_metrics.h"

#include <sstream>

#include "federation/common/prometheus_text.h"

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

void ControllerMetrics::setClusterHealth(const std::string& cluster, MemberHealth health) {
  std::lock_guard lock(mutex_);
  health_[cluster] = health;
}

void ControllerMetrics::retainClusters(const std::set<std::string>& clusters) {
  std::lock_guard lock(mutex_);
  for (auto it = health_.begin(); it != health_.end();) it = clusters.count(it->first) ? std::next(it) : health_.erase(it);
  for (auto it = memberErrors_.begin(); it != memberErrors_.end();)
    it = clusters.count(it->first) ? std::next(it) : memberErrors_.erase(it);
}

void ControllerMetrics::setFederatedHpa(const std::string& namespaceName, const std::string& name,
                                        const FederatedReplicas& replicas, const nlohmann::json& breakdown) {
  std::map<std::string, MemberShare> members;
  for (const auto& [cluster, share] : breakdown.items())
    members[cluster] = {share.value("min", 0LL), share.value("max", 0LL), share.value("current", 0LL)};
  std::lock_guard lock(mutex_);
  HpaSeries& series = hpas_[{namespaceName, name}];
  series.replicas = replicas;
  series.members = std::move(members);
}

void ControllerMetrics::countRebalance(const std::string& namespaceName, const std::string& name) {
  std::lock_guard lock(mutex_);
  ++hpas_[{namespaceName, name}].rebalances;
}

void ControllerMetrics::forgetFederatedHpa(const std::string& namespaceName, const std::string& name) {
  std::lock_guard lock(mutex_);
  hpas_.erase({namespaceName, name});
}

void ControllerMetrics::setLeading(bool leading) {
  std::lock_guard lock(mutex_);
  leading_ = leading;
}

namespace {

const char* healthState(MemberHealth health) {
  switch (health) {
    case MemberHealth::Healthy:
      return "healthy";
    case MemberHealth::Unknown:
      return "unknown";
    case MemberHealth::Released:
      return "released";
  }
  return "unknown";
}

}  // namespace

void ControllerMetrics::renderHpas(std::ostream& out) const {
  auto hpaLabels = [](const HpaKey& key) {
    return "namespace=\"" + prometheusLabelValue(key.first) + "\",name=\"" + prometheusLabelValue(key.second) + "\"";
  };
  auto federated = [&](const char* metric, const char* help, long long FederatedReplicas::*field) {
    out << "# HELP " << metric << " " << help << "\n# TYPE " << metric << " gauge\n";
    for (const auto& [key, series] : hpas_) out << metric << "{" << hpaLabels(key) << "} " << series.replicas.*field << "\n";
  };
  federated("fedhpa_federated_hpa_min_replicas", "A federated HPA's spec.minReplicas.", &FederatedReplicas::min);
  federated("fedhpa_federated_hpa_max_replicas", "A federated HPA's spec.maxReplicas.", &FederatedReplicas::max);
  federated("fedhpa_federated_hpa_current_replicas", "A federated HPA's status.currentReplicas: its members' summed.", &FederatedReplicas::current);
  federated("fedhpa_federated_hpa_desired_replicas", "A federated HPA's status.desiredReplicas: its members' summed.", &FederatedReplicas::desired);
  auto member = [&](const char* metric, const char* help, long long MemberShare::*field) {
    out << "# HELP " << metric << " " << help << "\n# TYPE " << metric << " gauge\n";
    for (const auto& [key, series] : hpas_)
      for (const auto& [cluster, share] : series.members)
        out << metric << "{" << hpaLabels(key) << ",cluster=\"" << prometheusLabelValue(cluster) << "\"} " << share.*field << "\n";
  };
  member("fedhpa_federated_hpa_member_min_replicas", "The minReplicas of a member's copy of a federated HPA: its share of the federated min.",
         &MemberShare::min);
  member("fedhpa_federated_hpa_member_max_replicas", "The maxReplicas of a member's copy of a federated HPA: its share of the federated max.",
         &MemberShare::max);
  member("fedhpa_federated_hpa_member_current_replicas", "The currentReplicas of a member's copy of a federated HPA.", &MemberShare::current);
  out << "# HELP fedhpa_federated_hpa_rebalances_total Passes that moved a federated HPA's limits between members.\n"
         "# TYPE fedhpa_federated_hpa_rebalances_total counter\n";
  for (const auto& [key, series] : hpas_)
    out << "fedhpa_federated_hpa_rebalances_total{" << hpaLabels(key) << "} " << series.rebalances << "\n";
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
  for (const auto& [kind, count] : writes_) out << "fedhpa_member_writes_total{kind=\"" << prometheusLabelValue(kind) << "\"} " << count << "\n";
  out << "# HELP fedhpa_member_api_errors_total Failed calls to member clusters.\n"
         "# TYPE fedhpa_member_api_errors_total counter\n";
  for (const auto& [cluster, count] : memberErrors_)
    out << "fedhpa_member_api_errors_total{cluster=\"" << prometheusLabelValue(cluster) << "\"} " << count << "\n";
  out << "# HELP fedhpa_cluster_ready Whether a member cluster is eligible (1) or not (0).\n# TYPE fedhpa_cluster_ready gauge\n";
  for (const auto& [cluster, health] : health_)
    out << "fedhpa_cluster_ready{cluster=\"" << prometheusLabelValue(cluster) << "\"} " << (health == MemberHealth::Healthy ? 1 : 0) << "\n";
  out << "# HELP fedhpa_cluster_health A member's state, one series per state, 1 for the current one: healthy; unknown (its "
         "share of every federated HPA is frozen); released (NotReady past the grace, its share given to the others).\n"
         "# TYPE fedhpa_cluster_health gauge\n";
  for (const auto& [cluster, health] : health_)
    for (const auto state : {MemberHealth::Healthy, MemberHealth::Unknown, MemberHealth::Released})
      out << "fedhpa_cluster_health{cluster=\"" << prometheusLabelValue(cluster) << "\",state=\"" << healthState(state) << "\"} "
          << (health == state ? 1 : 0) << "\n";
  renderHpas(out);
  // client-go's leader election metric, under its name, so existing alerts on it apply.
  out << "# HELP leader_election_master_status Whether this process holds the Lease (1) or not (0).\n"
         "# TYPE leader_election_master_status gauge\n"
      << "leader_election_master_status{name=\"fedhpa-controller-manager\"} " << (leading_ ? 1 : 0) << "\n";
  return out.str();
}

}  // namespace fedhpa::controller
