#include "clusters/sim/model/hpa_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace fedhpa::sim {

namespace {

// The legacy path's rate limit (horizontal.go scaleUpLimitFactor, scaleUpLimitMinimum).
constexpr int kScaleUpLimitFactor = 2;
constexpr int kScaleUpLimitMinimum = 4;

void setCondition(SyncResult& result, const char* type, bool status, std::string reason, std::string message) {
  for (Condition& condition : result.conditions)
    if (condition.type == type) {
      condition = {type, status, std::move(reason), std::move(message)};
      return;
    }
  result.conditions.push_back({type, status, std::move(reason), std::move(message)});
}

// Replicas added (or removed) within the last `period`.
int changeWithin(const std::vector<HpaMemory::ScaleEvent>& events, TimePoint now, std::chrono::seconds period) {
  int total = 0;
  for (const auto& event : events)
    if (event.time > now - period) total += event.change;
  return total;
}

// Behavior path: how far up the policies let it go (calculateScaleUpLimitWithScalingRules). The
// period's start counts moves both ways: current - added + removed.
int scaleUpLimit(int current, const ScalingRules& rules, const HpaMemory& memory, TimePoint now) {
  if (rules.select == SelectPolicy::Disabled) return current;
  const bool max = rules.select == SelectPolicy::Max;
  long long result = max ? std::numeric_limits<int>::min() : std::numeric_limits<int>::max();
  for (const auto& policy : rules.policies) {
    const long long periodStart = static_cast<long long>(current) - changeWithin(memory.scaleUpEvents, now, policy.period) +
                                  changeWithin(memory.scaleDownEvents, now, policy.period);
    const long long proposed = policy.type == ScalingPolicy::Type::Pods
                                   ? periodStart + policy.value
                                   : static_cast<long long>(std::ceil(static_cast<double>(periodStart) * (1.0 + policy.value / 100.0)));
    result = max ? std::max(result, proposed) : std::min(result, proposed);
  }
  return static_cast<int>(std::clamp<long long>(result, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

// Behavior path: how far down (calculateScaleDownLimitWithBehaviors). "Max" is the policy allowing
// the biggest change, which going down is the lowest limit.
int scaleDownLimit(int current, const ScalingRules& rules, const HpaMemory& memory, TimePoint now) {
  if (rules.select == SelectPolicy::Disabled) return current;
  const bool max = rules.select == SelectPolicy::Max;
  long long result = max ? std::numeric_limits<int>::max() : std::numeric_limits<int>::min();
  for (const auto& policy : rules.policies) {
    const long long periodStart = static_cast<long long>(current) - changeWithin(memory.scaleUpEvents, now, policy.period) +
                                  changeWithin(memory.scaleDownEvents, now, policy.period);
    const long long proposed = policy.type == ScalingPolicy::Type::Pods
                                   ? periodStart - policy.value
                                   : static_cast<long long>(static_cast<double>(periodStart) * (1.0 - policy.value / 100.0));
    result = max ? std::min(result, proposed) : std::max(result, proposed);
  }
  return static_cast<int>(std::clamp<long long>(result, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

std::chrono::seconds longestPeriod(const ScalingRules& rules) {
  std::chrono::seconds longest{0};
  for (const auto& policy : rules.policies) longest = std::max(longest, policy.period);
  return longest;
}

// storeScaleEvent: only an HPA with behavior remembers its moves; events older than every
// policy's period no longer limit anything.
void storeScaleEvent(const Behavior& behavior, int current, int desired, TimePoint now, HpaMemory& memory) {
  const bool up = desired > current;
  auto& events = up ? memory.scaleUpEvents : memory.scaleDownEvents;
  const auto longest = longestPeriod(up ? behavior.scaleUp : behavior.scaleDown);
  std::erase_if(events, [&](const HpaMemory::ScaleEvent& event) { return event.time <= now - longest; });
  events.push_back({now, std::abs(desired - current)});
}

struct MetricsProposal {
  int replicas = 0;
  std::string decidedBy;
};

// computeReplicasForMetrics: the largest proposal over the readable metrics. Every metric
// unreadable, or some unreadable while the rest would scale down: no proposal, and ScalingActive
// False with the first failure's reason.
std::optional<MetricsProposal> proposeOverMetrics(const SyncInput& input, int current, SyncResult& result) {
  std::vector<MetricInput> cpuOnly;
  if (input.metrics.empty()) {
    cpuOnly.push_back({static_cast<double>(input.spec.targetUtilization), input.utilizationPercent,
                       "cpu resource utilization (percentage of request)"});
    // With pods listed, each one with metrics reads the utilisation given.
    if (!input.pods.empty() && input.utilizationPercent) cpuOnly.back().perPod.assign(input.pods.size(), input.utilizationPercent);
    if (input.utilizationPercent) result.currentUtilizationPercent = static_cast<int>(std::floor(*input.utilizationPercent + 1e-9));
  }
  const std::vector<MetricInput>& metrics = input.metrics.empty() ? cpuOnly : input.metrics;
  const MetricSample sample{input.now, input.metricWindow};
  std::optional<MetricsProposal> best;
  std::optional<MetricError> firstError;
  int invalid = 0;
  for (const MetricInput& metric : metrics) {
    const auto proposal = proposeReplicas(metric, current, input.pods, sample, input.options);
    if (const auto* error = std::get_if<MetricError>(&proposal)) {
      result.events.push_back({"Warning", error->reason, error->message});
      if (!firstError) firstError = *error;
      ++invalid;
      continue;
    }
    const int replicas = std::get<ReplicaProposal>(proposal).replicas;
    if (!best || replicas > best->replicas) best = MetricsProposal{replicas, metric.description};
  }
  if (invalid > 0 && (invalid >= static_cast<int>(metrics.size()) || (best && best->replicas < current))) {
    setCondition(result, "ScalingActive", false, firstError->reason,
                 "the HPA was unable to compute the replica count: " + firstError->message);
    result.events.push_back({"Warning", "FailedComputeMetricsReplicas",
                             "invalid metrics (" + std::to_string(invalid) + " invalid out of " + std::to_string(metrics.size()) +
                                 "), first error is: " + firstError->message});
    return std::nullopt;
  }
  setCondition(result, "ScalingActive", true, "ValidMetricFound",
               "the HPA was able to successfully calculate a replica count from " + best->decidedBy);
  return best;
}

}  // namespace

ScalingRules defaultScaleUp() {
  return {std::chrono::seconds(0),
          SelectPolicy::Max,
          {{ScalingPolicy::Type::Pods, 4, std::chrono::seconds(15)}, {ScalingPolicy::Type::Percent, 100, std::chrono::seconds(15)}}};
}

ScalingRules defaultScaleDown() {
  return {std::nullopt, SelectPolicy::Max, {{ScalingPolicy::Type::Percent, 100, std::chrono::seconds(15)}}};
}

double metricFromDemand(double demandReplicas, int replicas, double target) {
  if (replicas <= 0) return 0;
  return demandReplicas / replicas * target;
}

double utilizationFromDemand(double demandReplicas, int replicas, int targetUtilization) {
  return metricFromDemand(demandReplicas, replicas, targetUtilization);
}

int stabilizeLegacy(int prenormalized, std::chrono::seconds window, TimePoint now, HpaMemory& memory) {
  auto& recommendations = memory.recommendations ? *memory.recommendations : memory.recommendations.emplace();
  int highest = prenormalized;
  std::optional<std::size_t> oldSample;
  for (std::size_t i = 0; i < recommendations.size(); ++i) {
    if (recommendations[i].time < now - window) oldSample = i;
    else highest = std::max(highest, recommendations[i].replicas);
  }
  if (oldSample) recommendations[*oldSample] = {now, prenormalized};
  else recommendations.push_back({now, prenormalized});
  return highest;
}

Normalized limitLegacy(int current, int desired, int minReplicas, int maxReplicas) {
  const long long rateLimit = std::max<long long>(static_cast<long long>(kScaleUpLimitFactor) * current, kScaleUpLimitMinimum);
  int allowedMax = maxReplicas;
  std::string reason = "TooManyReplicas";
  std::string message = "the desired replica count is more than the maximum replica count";
  if (maxReplicas > rateLimit) {
    allowedMax = static_cast<int>(rateLimit);
    reason = "ScaleUpLimit";
    message = "the desired replica count is increasing faster than the maximum scale rate";
  }
  if (desired < minReplicas)
    return {minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"};
  if (desired > allowedMax) return {allowedMax, reason, message};
  return {desired, "DesiredWithinRange", "the desired count is within the acceptable range"};
}

Normalized stabilizeWithBehavior(int current, int prenormalized, std::chrono::seconds upWindow, std::chrono::seconds downWindow,
                                 TimePoint now, HpaMemory& memory) {
  auto& recommendations = memory.recommendations ? *memory.recommendations : memory.recommendations.emplace();
  const TimePoint upCutoff = now - upWindow;
  const TimePoint downCutoff = now - downWindow;
  int upRecommendation = prenormalized;
  int downRecommendation = prenormalized;
  std::optional<std::size_t> oldSample;
  for (std::size_t i = 0; i < recommendations.size(); ++i) {
    const auto& recommendation = recommendations[i];
    if (recommendation.time > upCutoff) upRecommendation = std::min(upRecommendation, recommendation.replicas);
    if (recommendation.time > downCutoff) downRecommendation = std::max(downRecommendation, recommendation.replicas);
    if (recommendation.time < upCutoff && recommendation.time < downCutoff) oldSample = i;
  }
  int recommendation = std::max(current, upRecommendation);
  recommendation = std::min(recommendation, downRecommendation);
  if (oldSample) recommendations[*oldSample] = {now, prenormalized};
  else recommendations.push_back({now, prenormalized});
  if (prenormalized >= current)
    return {recommendation, "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"};
  return {recommendation, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"};
}

Normalized limitWithBehavior(int current, int desired, int minReplicas, int maxReplicas, const Behavior& behavior,
                             const HpaMemory& memory, TimePoint now) {
  if (desired > current) {
    // Past scale-ups may put the limit below current: then no further scale-up until they age out.
    const int limit = std::max(scaleUpLimit(current, behavior.scaleUp, memory, now), current);
    if (maxReplicas > limit) {
      if (desired > limit)
        return {limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"};
    } else if (desired > maxReplicas) {
      return {maxReplicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"};
    }
  } else if (desired < current) {
    const int limit = std::min(scaleDownLimit(current, behavior.scaleDown, memory, now), current);
    if (minReplicas < limit) {
      if (desired < limit)
        return {limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"};
    } else if (desired < minReplicas) {
      return {minReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"};
    }
  }
  return {desired, "DesiredWithinRange", "the desired count is within the acceptable range"};
}

SyncResult syncHpa(const SyncInput& input, HpaMemory& memory) {
  const HpaSpec& spec = input.spec;
  SyncResult result;
  if (!input.currentReplicas) {
    setCondition(result, "AbleToScale", false, "FailedGetScale",
                 "the HPA controller was unable to get the target's current scale: deployments/scale.apps not found");
    result.events.push_back({"Warning", "FailedGetScale", "deployments/scale.apps not found"});
    return result;
  }
  const int current = *input.currentReplicas;
  result.currentReplicas = current;
  setCondition(result, "AbleToScale", true, "SucceededGetScale", "the HPA controller was able to get the target's current scale");
  // A new HPA's first recommendation is the size it found, so that a scale-down waits the window.
  if (!memory.recommendations) memory.recommendations = std::vector<HpaMemory::Recommendation>{{input.now, current}};

  int desired = current;
  std::string rescaleReason;
  if (current == 0 && spec.minReplicas != 0) {
    setCondition(result, "ScalingActive", false, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero");
  } else if (current > spec.maxReplicas) {
    // Out of bounds: to the bound, before (and without) reading any metric.
    desired = spec.maxReplicas;
    rescaleReason = "Current number of replicas above Spec.MaxReplicas";
  } else if (current < spec.minReplicas) {
    desired = spec.minReplicas;
    rescaleReason = "Current number of replicas below Spec.MinReplicas";
  } else {
    const std::optional<MetricsProposal> proposed = proposeOverMetrics(input, current, result);
    if (!proposed) {
      result.desiredReplicas = current;
      return result;
    }
    const int prenormalized = std::max(0, proposed->replicas);
    if (prenormalized > current) rescaleReason = proposed->decidedBy + " above target";
    if (prenormalized < current) rescaleReason = "All metrics below target";
    if (!spec.behavior) {
      const int stabilized = stabilizeLegacy(prenormalized, input.options.downscaleStabilization, input.now, memory);
      if (stabilized != prenormalized)
        setCondition(result, "AbleToScale", true, "ScaleDownStabilized",
                     "recent recommendations were higher than current one, applying the highest recent recommendation");
      else
        setCondition(result, "AbleToScale", true, "ReadyForNewScale", "recommended size matches current size");
      const Normalized limited = limitLegacy(current, stabilized, spec.minReplicas, spec.maxReplicas);
      setCondition(result, "ScalingLimited", limited.replicas != stabilized, limited.reason, limited.message);
      desired = limited.replicas;
    } else {
      const Behavior& behavior = *spec.behavior;
      const Normalized stabilized =
          stabilizeWithBehavior(current, prenormalized, behavior.scaleUp.stabilizationWindow.value_or(std::chrono::seconds(0)),
                                behavior.scaleDown.stabilizationWindow.value_or(input.options.downscaleStabilization), input.now,
                                memory);
      if (stabilized.replicas != prenormalized)
        setCondition(result, "AbleToScale", true, stabilized.reason, stabilized.message);
      else
        setCondition(result, "AbleToScale", true, "ReadyForNewScale", "recommended size matches current size");
      const Normalized limited =
          limitWithBehavior(current, stabilized.replicas, spec.minReplicas, spec.maxReplicas, behavior, memory, input.now);
      setCondition(result, "ScalingLimited", limited.replicas != stabilized.replicas, limited.reason, limited.message);
      desired = limited.replicas;
    }
  }
  result.rescaled = desired != current;
  result.desiredReplicas = result.rescaled ? desired : current;
  if (result.rescaled) {
    setCondition(result, "AbleToScale", true, "SucceededRescale",
                 "the HPA controller was able to update the target scale to " + std::to_string(desired));
    result.events.push_back({"Normal", "SuccessfulRescale", "New size: " + std::to_string(desired) + "; reason: " + rescaleReason});
    if (spec.behavior) storeScaleEvent(*spec.behavior, current, desired, input.now, memory);
  }
  return result;
}

}  // namespace fedhpa::sim
