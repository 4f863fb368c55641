#include "clusters/sim/model/hpa_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedhpa::sim {

namespace {

constexpr double kTolerance = 0.1;

// Step 1 (replica_calculator.go): the raw proposal from one metric's usage ratio.
int proposeReplicas(int current, double reading, double target) {
  const double ratio = reading / target;
  if (std::abs(ratio - 1.0) <= kTolerance) return current;
  const double proposal = std::ceil(ratio * current);
  return proposal >= std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(proposal);
}

// Step 1 over every metric (horizontal.go computeReplicasForMetrics): the largest proposal, and
// the metric it came from. A metric that cannot be read is skipped; when some are missing the
// HPA does not scale down on the others. Empty when none can be read.
struct Proposal {
  int replicas;
  const MetricInput* decidedBy;
};
std::optional<Proposal> proposeOverMetrics(int current, const std::vector<MetricInput>& metrics) {
  std::optional<Proposal> best;
  bool someMissing = false;
  for (const MetricInput& metric : metrics) {
    if (!metric.current || !(metric.target > 0)) {
      someMissing = true;
      continue;
    }
    const int replicas = proposeReplicas(current, *metric.current, metric.target);
    if (!best || replicas > best->replicas) best = Proposal{replicas, &metric};
  }
  if (best && someMissing && best->replicas < current) best->replicas = current;
  return best;
}

// Step 2: stabilisation. Scale up to the lowest recommendation of the up-window, down to the
// highest of the down-window, so that short spikes and dips do not move the replicas.
int stabilize(int current, int proposal, const HpaSpec& spec, HpaMemory& memory, TimePoint now, bool& heldDown) {
  int upRecommendation = proposal;
  int downRecommendation = proposal;
  for (const auto& recommendation : memory.recommendations) {
    if (recommendation.time > now - spec.scaleUp.stabilizationWindow)
      upRecommendation = std::min(upRecommendation, recommendation.replicas);
    if (recommendation.time > now - spec.scaleDown.stabilizationWindow)
      downRecommendation = std::max(downRecommendation, recommendation.replicas);
  }
  const auto longest = std::max(spec.scaleUp.stabilizationWindow, spec.scaleDown.stabilizationWindow);
  while (!memory.recommendations.empty() && memory.recommendations.front().time <= now - longest)
    memory.recommendations.pop_front();
  memory.recommendations.push_back({now, proposal});
  int recommendation = current;
  if (recommendation < upRecommendation) recommendation = upRecommendation;
  if (recommendation > downRecommendation) recommendation = downRecommendation;
  heldDown = recommendation > proposal && proposal < current;
  return recommendation;
}

int changeWithin(const HpaMemory& memory, TimePoint now, std::chrono::seconds period, bool additions) {
  int total = 0;
  for (const auto& event : memory.scaleEvents)
    if (event.time > now - period && (additions ? event.change > 0 : event.change < 0)) total += std::abs(event.change);
  return total;
}

// Step 3: rate limits from the policies (horizontal.go calculateScale{Up,Down}LimitWithScalingRules).
int scaleUpLimit(int current, const ScalingRules& rules, const HpaMemory& memory, TimePoint now) {
  if (rules.select == SelectPolicy::Disabled || rules.policies.empty()) return current;
  int result = rules.select == SelectPolicy::Max ? std::numeric_limits<int>::min() : std::numeric_limits<int>::max();
  for (const auto& policy : rules.policies) {
    const int periodStart = current - changeWithin(memory, now, policy.period, true);
    const int proposed = policy.type == ScalingPolicy::Type::Pods
                             ? periodStart + policy.value
                             : static_cast<int>(std::ceil(periodStart * (1.0 + policy.value / 100.0)));
    result = rules.select == SelectPolicy::Max ? std::max(result, proposed) : std::min(result, proposed);
  }
  return std::max(result, current);
}

int scaleDownLimit(int current, const ScalingRules& rules, const HpaMemory& memory, TimePoint now) {
  if (rules.select == SelectPolicy::Disabled || rules.policies.empty()) return current;
  int result = rules.select == SelectPolicy::Max ? std::numeric_limits<int>::max() : std::numeric_limits<int>::min();
  for (const auto& policy : rules.policies) {
    const int periodStart = current + changeWithin(memory, now, policy.period, false);
    const int proposed = policy.type == ScalingPolicy::Type::Pods
                             ? periodStart - policy.value
                             : static_cast<int>(periodStart * (1.0 - policy.value / 100.0));
    // "Max" selects the policy allowing the biggest change, which for scaling down is the lowest limit.
    result = rules.select == SelectPolicy::Max ? std::min(result, proposed) : std::max(result, proposed);
  }
  return std::min(result, current);
}

Condition condition(const char* type, bool status, const char* reason, std::string message) {
  return {type, status, reason, std::move(message)};
}

}  // namespace

ScalingRules defaultScaleUp() {
  return {std::chrono::seconds(0),
          SelectPolicy::Max,
          {{ScalingPolicy::Type::Pods, 4, std::chrono::seconds(15)}, {ScalingPolicy::Type::Percent, 100, std::chrono::seconds(15)}}};
}

ScalingRules defaultScaleDown() {
  return {std::chrono::seconds(300), SelectPolicy::Max, {{ScalingPolicy::Type::Percent, 100, std::chrono::seconds(15)}}};
}

double metricFromDemand(double demandReplicas, int replicas, double target) {
  if (replicas <= 0) return 0;
  return demandReplicas / replicas * target;
}

double utilizationFromDemand(double demandReplicas, int replicas, int targetUtilization) {
  return metricFromDemand(demandReplicas, replicas, targetUtilization);
}

SyncResult syncHpa(const SyncInput& input, HpaMemory& memory) {
  const HpaSpec& spec = input.spec;
  SyncResult result;
  if (!input.currentReplicas) {
    result.conditions = {
        condition("AbleToScale", false, "FailedGetScale", "the HPA controller was unable to get the target's current scale"),
        condition("ScalingActive", false, "FailedGetScale", "the HPA controller was unable to get the target's current scale")};
    result.event = SyncResult::Event{"Warning", "FailedGetScale", "deployments/scale.apps not found"};
    return result;
  }
  const int current = *input.currentReplicas;
  result.currentReplicas = current;
  if (current == 0 && spec.minReplicas != 0) {
    result.conditions = {condition("AbleToScale", true, "SucceededGetScale", "the HPA controller was able to get the target's current scale"),
                         condition("ScalingActive", false, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")};
    return result;
  }
  std::vector<MetricInput> cpuOnly;
  if (input.metrics.empty()) {
    cpuOnly.push_back({static_cast<double>(spec.targetUtilization), input.utilizationPercent,
                       "cpu resource utilization (percentage of request)"});
    if (input.utilizationPercent) result.currentUtilizationPercent = static_cast<int>(*input.utilizationPercent);
  }
  const std::vector<MetricInput>& metrics = input.metrics.empty() ? cpuOnly : input.metrics;
  const std::optional<Proposal> proposed = proposeOverMetrics(current, metrics);
  if (!proposed) {
    result.desiredReplicas = current;
    result.conditions = {condition("AbleToScale", true, "SucceededGetScale", "the HPA controller was able to get the target's current scale"),
                         condition("ScalingActive", false, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: no metrics returned")};
    return result;
  }
  const int proposal = proposed->replicas;

  bool heldDown = false;
  int desired = stabilize(current, proposal, spec, memory, input.now, heldDown);
  const char* limitedReason = nullptr;
  std::string limitedMessage;
  if (desired > current) {
    const int limit = scaleUpLimit(current, spec.scaleUp, memory, input.now);
    if (desired > limit) {
      desired = limit;
      limitedReason = "ScaleUpLimit";
      limitedMessage = "the desired replica count is increasing faster than the maximum scale rate";
    }
  } else if (desired < current) {
    const int limit = scaleDownLimit(current, spec.scaleDown, memory, input.now);
    if (desired < limit) {
      desired = limit;
      limitedReason = "ScaleDownLimit";
      limitedMessage = "the desired replica count is decreasing faster than the maximum scale rate";
    }
  }
  if (desired > spec.maxReplicas) {
    desired = spec.maxReplicas;
    limitedReason = "TooManyReplicas";
    limitedMessage = "the desired replica count is more than the maximum replica count";
  } else if (desired < spec.minReplicas) {
    desired = spec.minReplicas;
    limitedReason = "TooFewReplicas";
    limitedMessage = "the desired replica count is less than the minimum replica count";
  }
  result.desiredReplicas = desired;
  result.rescaled = desired != current;

  if (result.rescaled) {
    memory.scaleEvents.push_back({input.now, desired - current});
    const std::string why = desired > current ? proposed->decidedBy->description + " above target"
                                              : "All metrics below target";
    result.event = SyncResult::Event{"Normal", "SuccessfulRescale", "New size: " + std::to_string(desired) + "; reason: " + why};
    result.conditions.push_back(condition("AbleToScale", true, "SucceededRescale",
                                          "the HPA controller was able to update the target scale to " + std::to_string(desired)));
  } else if (heldDown) {
    result.conditions.push_back(condition("AbleToScale", true, "ScaleDownStabilized",
                                          "recent recommendations were higher than current one, applying the highest recent recommendation"));
  } else {
    result.conditions.push_back(condition("AbleToScale", true, "ReadyForNewScale", "recommended size matches current size"));
  }
  // Scale events older than every policy's period no longer limit anything.
  while (!memory.scaleEvents.empty() && memory.scaleEvents.front().time <= input.now - std::chrono::minutes(30))
    memory.scaleEvents.pop_front();
  result.conditions.push_back(condition("ScalingActive", true, "ValidMetricFound",
                                        "the HPA was able to successfully calculate a replica count from " +
                                            proposed->decidedBy->description));
  if (limitedReason)
    result.conditions.push_back(condition("ScalingLimited", true, limitedReason, limitedMessage));
  else
    result.conditions.push_back(condition("ScalingLimited", false, "DesiredWithinRange", "the desired count is within the acceptable range"));
  return result;
}

}  // namespace fedhpa::sim
