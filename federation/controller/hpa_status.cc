#include "federation/controller/hpa_status.h"

#include <algorithm>
#include <map>

#include "federation/api/machinery/canonical_quantity.h"
#include "federation/api/time.h"

namespace fedhpa::controller {

void keepTransitionTimes(json& conditions, const json& previous) {
  for (auto& condition : conditions)
    for (const auto& old : previous)
      if (old.value("type", "") == condition.value("type", "") && old.value("status", "") == condition.value("status", ""))
        condition["lastTransitionTime"] = old.value("lastTransitionTime", condition.value("lastTransitionTime", ""));
}

namespace {

const json kNoObject = json::object();
const json kNoArray = json::array();

// object.value(key, absent) without copying the member: reconcile reads every member's status on
// every pass, and a copied subtree is an allocation per node. Throws as value() does when
// `object` is no object.
const json& valueRef(const json& object, const char* key, const json& absent) {
  if (!object.is_object()) throw json::type_error::create(306, std::string("cannot use value() with ") + object.type_name(), &object);
  const auto it = object.find(key);
  return it != object.end() ? *it : absent;
}

std::optional<long long> cpuUtilizationOf(const json& status) {
  std::optional<long long> utilization;
  for (const auto& metric : valueRef(status, "currentMetrics", kNoArray))
    if (metric.value("type", "") == "Resource" && metric["resource"].value("name", "") == "cpu")
      utilization = valueRef(metric["resource"], "current", kNoObject).value("averageUtilization", 0LL);
  return utilization;
}

// The federation's view of the members' conditions: able to scale and active when every member
// holding the HPA is; limited when any member is (the reason names the members).
json aggregateConditions(const std::vector<MemberHpa>& locals, const json& previous, SystemTime now) {
  struct Verdict {
    bool all = true;
    bool any = false;
    std::string members;
  };
  std::map<std::string, Verdict> verdicts = {{"AbleToScale", {}}, {"ScalingActive", {}}, {"ScalingLimited", {}}};
  bool seen = false;
  for (const auto& local : locals) {
    if (!local.hpa) continue;
    seen = true;
    std::map<std::string, bool> memberStatus;
    for (const auto& condition : valueRef(valueRef(*local.hpa, "status", kNoObject), "conditions", kNoArray))
      memberStatus[condition.value("type", "")] = condition.value("status", "") == "True";
    for (auto& [type, verdict] : verdicts) {
      const bool isTrue = memberStatus.count(type) && memberStatus[type];
      verdict.all = verdict.all && isTrue;
      if (isTrue) {
        verdict.any = true;
        verdict.members += (verdict.members.empty() ? "" : ", ") + local.member.name;
      }
    }
  }
  json out = json::array();
  if (!seen) return out;
  const std::string nowText = api::formatRfc3339(now);
  auto condition = [&](const char* type, bool status, const char* reason, const std::string& message) {
    const std::string text = status ? "True" : "False";
    out.push_back({{"type", type}, {"status", text}, {"lastTransitionTime", nowText}, {"reason", reason}, {"message", message}});
  };
  condition("AbleToScale", verdicts["AbleToScale"].all, verdicts["AbleToScale"].all ? "SucceededGetScale" : "MemberUnableToScale",
            verdicts["AbleToScale"].all ? "every member cluster can scale its target" : "some member clusters cannot scale their target");
  condition("ScalingActive", verdicts["ScalingActive"].all, verdicts["ScalingActive"].all ? "ValidMetricFound" : "MemberScalingInactive",
            verdicts["ScalingActive"].all ? "every member cluster computes replicas from its metrics"
                                          : "some member clusters cannot compute replicas from their metrics");
  condition("ScalingLimited", verdicts["ScalingLimited"].any, verdicts["ScalingLimited"].any ? "MemberLimited" : "DesiredWithinRange",
            verdicts["ScalingLimited"].any ? "limited in " + verdicts["ScalingLimited"].members
                                           : "every member's desired count is within its range");
  keepTransitionTimes(out, previous);
  return out;
}

}  // namespace

json statusBreakdown(const std::vector<MemberHpa>& locals) {
  json breakdown = json::object();
  for (const auto& local : locals) {
    if (!local.hpa || local.member.health == MemberHealth::Released) continue;
    const json& spec = valueRef(*local.hpa, "spec", kNoObject);
    const json& status = valueRef(*local.hpa, "status", kNoObject);
    json entry = {{"min", spec.value("minReplicas", 1LL)}, {"max", spec.value("maxReplicas", 0LL)},
                  {"current", status.value("currentReplicas", 0LL)}, {"desired", status.value("desiredReplicas", 0LL)}};
    if (const auto utilization = cpuUtilizationOf(status)) entry["cpuUtilization"] = *utilization;
    breakdown[local.member.name] = entry;
  }
  return breakdown;
}

json aggregatedStatus(const std::vector<MemberHpa>& locals, long long observedGeneration, const json& previousConditions,
                      SystemTime now) {
  long long current = 0, desired = 0, weightedUtilization = 0, utilizationWeight = 0;
  std::string lastScaleTime;
  for (const auto& local : locals) {
    if (!local.hpa || local.member.health == MemberHealth::Released) continue;
    const json& status = valueRef(*local.hpa, "status", kNoObject);
    const long long memberCurrent = status.value("currentReplicas", 0LL);
    current += memberCurrent;
    desired += status.value("desiredReplicas", 0LL);
    if (const auto utilization = cpuUtilizationOf(status)) {
      weightedUtilization += *utilization * memberCurrent;
      utilizationWeight += memberCurrent;
    }
    lastScaleTime = std::max(lastScaleTime, status.value("lastScaleTime", std::string()));
  }
  json status = {{"observedGeneration", observedGeneration},
                 {"currentReplicas", current},
                 {"desiredReplicas", desired},
                 {"conditions", aggregateConditions(locals, previousConditions, now)}};
  if (utilizationWeight > 0) {
    const long long utilization = weightedUtilization / utilizationWeight;
    // The members' pods request 100m each: N % is N millicores. Written in the canonical text the
    // server stores ("0", "1"), so that an unchanged status compares equal to the stored one.
    const std::string millicores = *api::machinery::canonicalQuantity(std::to_string(utilization) + "m");
    status["currentMetrics"] = json::array(
        {{{"type", "Resource"},
          {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", utilization}, {"averageValue", millicores}}}}}}});
  }
  if (!lastScaleTime.empty()) status["lastScaleTime"] = lastScaleTime;
  return status;
}

}  // namespace fedhpa::controller
