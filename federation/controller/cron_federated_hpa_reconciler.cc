#include "federation/controller/cron_federated_hpa_reconciler.h"

#include <algorithm>
#include <cctype>

#include "federation/api/cron_schedule.h"
#include "federation/api/time.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/federated_hpa_reconciler.h"

namespace fedhpa::controller {

using clusters::ClientError;
using clusters::json;

const clusters::Resource kCronFederatedHpas{"autoscaling.karmada.io", "v1alpha1", "cronfederatedhpas", true};

namespace {

std::optional<SystemTime> timeAt(const json& object, const char* field) {
  if (!object.is_object() || !object.contains(field) || !object[field].is_string()) return std::nullopt;
  const auto parsed = api::parseRfc3339(object[field].get<std::string>());
  if (!parsed) return std::nullopt;
  return std::chrono::time_point_cast<SystemTime::duration>(*parsed);
}

// The last schedule time the rule was fired for, successfully or not: the status is the memory.
std::optional<SystemTime> lastScheduleTime(const json& history) {
  std::optional<SystemTime> last;
  for (const char* list : {"successfulExecutions", "failedExecutions"})
    for (const auto& execution : history.value(list, json::array()))
      if (const auto at = timeAt(execution, "scheduleTime"); at && (!last || *at > *last)) last = at;
  return last;
}

// Appends, keeping the newest `limit` entries (none when 0).
void appendTrimmed(json& history, const char* list, json entry, long long limit) {
  json entries = history.value(list, json::array());
  entries.push_back(std::move(entry));
  while (!entries.empty() && static_cast<long long>(entries.size()) > std::max(0LL, limit)) entries.erase(entries.begin());
  if (entries.empty()) history.erase(list);
  else history[list] = entries;
}

std::optional<long long> integerField(const json& object, const char* field) {
  if (!object.contains(field) || !object[field].is_number_integer()) return std::nullopt;
  return object[field].get<long long>();
}

std::string formatted(SystemTime at) { return api::formatRfc3339(at); }

}  // namespace

std::optional<api::TimeZone> CronFederatedHpaReconciler::zone(const std::string& name, std::string* error) {
  std::lock_guard lock(zonesMutex_);
  if (const auto it = zones_.find(name); it != zones_.end()) return it->second;
  auto loaded = api::TimeZone::load(name, error);
  if (loaded) zones_.emplace(name, *loaded);
  return loaded;
}

std::optional<SystemTime> CronFederatedHpaReconciler::firedHere(const std::string& rule) {
  std::lock_guard lock(firedMutex_);
  const auto it = fired_.find(rule);
  return it == fired_.end() ? std::nullopt : std::optional<SystemTime>(it->second);
}

CronFederatedHpaReconciler::Outcome CronFederatedHpaReconciler::apply(const json& cron, const json& rule) {
  const json ref = cron["spec"].value("scaleTargetRef", json::object());
  const std::string kind = ref.value("kind", "");
  const std::string ns = metaField(cron, "namespace");
  const std::string name = ref.value("name", "");
  const bool hpaLike = kind == "FederatedHPA" || kind == "HorizontalPodAutoscaler";
  if (!hpaLike && kind != "Deployment")
    return {false, json::object(), "scaleTargetRef kind " + kind + " is not supported: FederatedHPA, HorizontalPodAutoscaler or Deployment"};
  const auto minReplicas = integerField(rule, "targetMinReplicas");
  const auto maxReplicas = integerField(rule, "targetMaxReplicas");
  const auto replicas = integerField(rule, "targetReplicas");
  if (hpaLike && !minReplicas && !maxReplicas)
    return {false, json::object(), "targetMinReplicas or targetMaxReplicas is required for a " + kind};
  if (!hpaLike && !replicas) return {false, json::object(), "targetReplicas is required for a Deployment"};
  const clusters::Resource& resource = kind == "FederatedHPA" ? kFederatedHpas : kind == "Deployment" ? kDeployments : kHpas;
  json target;
  try {
    target = context_.federation.get(resource, ns, name);
  } catch (const ClientError& error) {
    if (error.kind() == ClientError::Kind::NotFound) return {false, json::object(), kind + " " + ns + "/" + name + " not found"};
    throw;
  }
  json applied = json::object();
  if (minReplicas) target["spec"]["minReplicas"] = applied["appliedMinReplicas"] = *minReplicas;
  if (maxReplicas) target["spec"]["maxReplicas"] = applied["appliedMaxReplicas"] = *maxReplicas;
  if (replicas) target["spec"]["replicas"] = applied["appliedReplicas"] = *replicas;
  try {
    context_.federation.update(resource, target);  // conditional on the resourceVersion just read
  } catch (const ClientError& error) {
    if (error.kind() == ClientError::Kind::Invalid || error.kind() == ClientError::Kind::Forbidden)
      return {false, json::object(), error.what()};
    throw;
  }
  std::string message = "set " + kind + " " + ns + "/" + name;
  for (const auto& [field, value] : applied.items()) {  // appliedMinReplicas -> minReplicas 3
    std::string name = field.substr(7);
    name.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(name.front())));
    message += ", " + name + " " + value.dump();
  }
  return {true, applied, message};
}

void CronFederatedHpaReconciler::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const auto cron = context_.cronFederatedHpas.get(key.substr(0, slash), key.substr(slash + 1));
  if (!cron || !metaField(*cron, "deletionTimestamp").empty()) {
    std::lock_guard lock(firedMutex_);
    const std::string prefix = key + "/";
    for (auto it = fired_.lower_bound(prefix); it != fired_.end() && it->first.rfind(prefix, 0) == 0;) it = fired_.erase(it);
    return;
  }
  const SystemTime now = context_.time.systemTime();
  const SystemTime floor = now - context_.catchUpWindow;
  const json previous = cron->value("status", json::object());
  std::map<std::string, json> byRule;
  for (const auto& history : previous.value("executionHistories", json::array()))
    if (history.is_object()) byRule[history.value("ruleName", "")] = history;
  const auto created = timeAt((*cron)["metadata"], "creationTimestamp");
  json histories = json::array();
  for (const auto& rule : cron->value("spec", json::object()).value("rules", json::array())) {
    const std::string ruleName = rule.value("name", "");
    json history = byRule.count(ruleName) ? byRule[ruleName] : json{{"ruleName", ruleName}};
    history.erase("nextExecutionTime");  // none while suspended or unschedulable
    std::string error;
    const auto schedule = api::CronSchedule::parse(rule.value("schedule", ""), &error);
    const auto ruleZone = zone(rule.value("timeZone", ""), &error);
    if (!schedule || !ruleZone || rule.value("suspend", false)) {
      histories.push_back(history);
      continue;
    }
    const std::string ruleKey = key + "/" + metaField(*cron, "uid") + "/" + ruleName;
    auto last = lastScheduleTime(history);
    if (const auto here = firedHere(ruleKey); here && (!last || *here > *last)) last = here;
    SystemTime from = std::max(last.value_or(created.value_or(now)), floor);
    std::optional<SystemTime> due;
    for (auto next = schedule->nextAfter(from, *ruleZone); next && *next <= now; next = schedule->nextAfter(*next, *ruleZone)) due = next;
    if (due) {
      if (last) {
        const auto firstMissed = schedule->nextAfter(*last, *ruleZone);
        if (firstMissed && *firstMissed < *due)
          context_.events.record(*cron, "Warning", "MissedSchedule",
                                 "rule " + ruleName + ": schedule times from " + formatted(*firstMissed) + " to before " +
                                     formatted(*due) + " were missed; fired once for " + formatted(*due));
      }
      const Outcome outcome = apply(*cron, rule);
      {
        std::lock_guard lock(firedMutex_);
        fired_[ruleKey] = *due;
      }
      json entry = {{"scheduleTime", formatted(*due)}, {"executionTime", formatted(now)}};
      if (outcome.succeeded) {
        entry.update(outcome.applied);
        appendTrimmed(history, "successfulExecutions", entry, rule.value("successfulHistoryLimit", 3LL));
        context_.events.record(*cron, "Normal", "ScaleSucceeded", "rule " + ruleName + ": " + outcome.message);
      } else {
        entry["message"] = outcome.message;
        appendTrimmed(history, "failedExecutions", entry, rule.value("failedHistoryLimit", 3LL));
        context_.events.record(*cron, "Warning", "ScaleFailed", "rule " + ruleName + ": " + outcome.message);
      }
    }
    if (const auto next = schedule->nextAfter(std::max(now, due.value_or(now)), *ruleZone)) history["nextExecutionTime"] = formatted(*next);
    histories.push_back(history);
  }
  json status = previous.is_object() ? previous : json::object();
  if (histories.empty()) status.erase("executionHistories");
  else status["executionHistories"] = histories;
  if (status == previous) return;
  json updated = *cron;
  updated["status"] = status;
  context_.federation.update(kCronFederatedHpas, updated, "status");
}

}  // namespace fedhpa::controller
