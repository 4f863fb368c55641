#include "clusters/sim/member_simulator.h"

#include <algorithm>
#include <functional>

#include "clusters/sim/deployment_status.h"
#include "clusters/sim/member_metrics.h"

#include "federation/api/hpa_type.h"
#include "federation/api/served_types.h"
#include "federation/api/time.h"
#include "federation/apiserver/object_meta.h"
#include "federation/common/logging.h"
#include "federation/storage/sqlite_storage.h"

namespace fedhpa::sim {

using nlohmann::json;
using apiserver::Subresource;

namespace {

constexpr int kDefaultTargetUtilization = 80;  // kube-controller-manager's, for an HPA without metrics

std::vector<std::shared_ptr<const api::ResourceType>> memberResources() {
  auto resources = api::federationResources();
  std::erase_if(resources, [](const auto& type) { return type->names().resource == "clusters"; });
  // kube-apiserver's HPA table, without the federation's per-cluster column; Services whose
  // cluster IPs and node ports the member allocates (service_allocator.h).
  for (auto& type : resources) {
    if (type->names().resource == "horizontalpodautoscalers") type = api::horizontalPodAutoscalerType(false);
    if (type->names().resource == "services") type = api::serviceType(true);
  }
  resources.push_back(api::serviceAccountType());
  return resources;
}

apiserver::ResourceStore& storeOf(apiserver::ApiServer& server, const char* group, const char* resource) {
  apiserver::ResourceStore* store = server.store(group, resource);
  if (!store) throw std::logic_error(std::string("member-sim serves no ") + resource);
  return *store;
}

ScalingRules rulesFrom(const json& rules, ScalingRules defaults) {
  if (!rules.is_object()) return defaults;
  if (rules.contains("stabilizationWindowSeconds") && rules["stabilizationWindowSeconds"].is_number_integer())
    defaults.stabilizationWindow = std::chrono::seconds(rules["stabilizationWindowSeconds"].get<int>());
  const std::string select = rules.value("selectPolicy", "Max");
  defaults.select = select == "Min" ? SelectPolicy::Min : select == "Disabled" ? SelectPolicy::Disabled : SelectPolicy::Max;
  if (rules.contains("policies") && rules["policies"].is_array()) {
    defaults.policies.clear();
    for (const auto& policy : rules["policies"])
      defaults.policies.push_back({policy.value("type", "") == "Pods" ? ScalingPolicy::Type::Pods : ScalingPolicy::Type::Percent,
                                   policy.value("value", 0), std::chrono::seconds(policy.value("periodSeconds", 15))});
  }
  return defaults;
}

HpaSpec specOf(const json& hpa) {
  const json spec = hpa.value("spec", json::object());
  HpaSpec out;
  out.minReplicas = spec.value("minReplicas", 1);
  out.maxReplicas = spec.value("maxReplicas", 1);
  out.targetUtilization = kDefaultTargetUtilization;
  for (const auto& metric : spec.value("metrics", json::array()))
    if (metric.value("type", "") == "Resource" && metric.value("resource", json::object()).value("name", "") == "cpu") {
      out.targetUtilization = metric["resource"].value("target", json::object()).value("averageUtilization", kDefaultTargetUtilization);
      break;
    }
  // spec.behavior present, even `{}`: the behavior path with autoscaling/v2's defaults for what it
  // leaves out. Absent: kube's legacy path.
  if (const auto behavior = spec.find("behavior"); behavior != spec.end() && behavior->is_object())
    out.behavior = Behavior{rulesFrom(behavior->value("scaleUp", json()), defaultScaleUp()),
                            rulesFrom(behavior->value("scaleDown", json()), defaultScaleDown())};
  return out;
}

// The previous conditions with this sync's set over them (kube sets conditions on the HPA it read;
// a type this sync did not touch keeps its value). A condition keeps its lastTransitionTime while
// its status stays.
json conditionsJson(const std::vector<Condition>& conditions, const json& previous, const std::string& now) {
  json out = previous.is_array() ? previous : json::array();
  for (const auto& condition : conditions) {
    const std::string status = condition.status ? "True" : "False";
    json entry = {{"type", condition.type},
                  {"status", status},
                  {"lastTransitionTime", now},
                  {"reason", condition.reason},
                  {"message", condition.message}};
    auto old = std::find_if(out.begin(), out.end(), [&](const json& c) { return c.value("type", "") == condition.type; });
    if (old == out.end()) {
      out.push_back(std::move(entry));
      continue;
    }
    if (old->value("status", "") == status) entry["lastTransitionTime"] = old->value("lastTransitionTime", now);
    *old = std::move(entry);
  }
  return out;
}

apiserver::ApiServerOptions apiServerOptions(const MemberSimulatorOptions& options, std::shared_ptr<NetworkFaults> faults,
                                             ServiceAccountTokens& tokens) {
  apiserver::ApiServerOptions out;
  out.http = options.http;
  out.initialNamespaces = {"default", "kube-system", "kube-public"};
  out.security.mode = options.authorization;
  out.security.controllerManagerRoles = false;
  out.http.bearerTokenAuthenticator = [&tokens](const std::string& token) { return tokens.authenticate(token); };
  out.createSubresources.push_back({"", "serviceaccounts", "token",
                                    [&tokens](const std::string& ns, const std::string& name, json body) {
                                      return tokens.issue(ns, name, std::move(body));
                                    }});
  out.wrapHandler = [faults = std::move(faults)](std::shared_ptr<apiserver::http::Handler> api) {
    faults->setInner(std::move(api));
    return std::shared_ptr<apiserver::http::Handler>(faults);
  };
  return out;
}

}  // namespace

MemberSimulator::MemberSimulator(MemberSimulatorOptions options)
    : options_(std::move(options)),
      serviceAllocator_(options_.services, [this](const std::string& ns, const std::string& name) { return storedService(ns, name); }),
      tokens_(time_, [this](const std::string& ns, const std::string& name) { return serviceAccountUid(ns, name); },
              options_.tokenLifetimes),
      faults_(std::make_shared<NetworkFaults>(
          NetworkFaultOptions{options_.latency, options_.latencyJitter, std::max(1, options_.http.threads)})),
      server_(std::make_unique<apiserver::ApiServer>(storage::SqliteStorage::openInMemory({}), memberResources(),
                                                     apiServerOptions(options_, faults_, tokens_))),
      hpas_(storeOf(*server_, "autoscaling", "horizontalpodautoscalers")),
      deployments_(storeOf(*server_, "apps", "deployments")),
      events_(storeOf(*server_, "", "events")) {
  serviceAccounts_ = &storeOf(*server_, "", "serviceaccounts");
  services_ = &storeOf(*server_, "", "services");
  services_->setWriteHooks(serviceAllocator_.hooks());
}

std::optional<json> MemberSimulator::storedService(const std::string& namespaceName, const std::string& name) {
  try {
    return services_->get(namespaceName, name);
  } catch (const api::ApiError& error) {
    if (error.code() == 404) return std::nullopt;
    throw;
  }
}

std::optional<std::string> MemberSimulator::serviceAccountUid(const std::string& namespaceName, const std::string& name) {
  if (!serviceAccounts_) return std::nullopt;
  try {
    const json account = serviceAccounts_->get(namespaceName, name);
    if (account["metadata"].contains("deletionTimestamp")) return std::nullopt;
    return apiserver::metaString(account, "uid");
  } catch (const api::ApiError& error) {
    if (error.code() == 404) return std::nullopt;
    throw;
  }
}

MemberSimulator::~MemberSimulator() { stop(); }

std::uint16_t MemberSimulator::start() {
  const std::uint16_t port = server_->start();
  loop_ = std::thread([this] { run(); });
  return port;
}

void MemberSimulator::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (loop_.joinable()) loop_.join();
  // Before the server stops: what the faults hold or delay is let go while the server can still
  // answer it.
  faults_->shutdown();
  server_->stop();
  // The faults outlive the server (they were made first): the API handler they hold (and with it
  // RBAC's policy cache, which watches the server's storage) must go while the storage is there.
  faults_->setInner(nullptr);
}

void MemberSimulator::run() {
  // Deployments catch up every second; HPAs sync every period, as kube-controller-manager's do.
  const auto tick = std::min<std::chrono::milliseconds>(options_.hpaSyncPeriod, std::chrono::seconds(1));
  auto nextHpaSync = std::chrono::steady_clock::now() + options_.hpaSyncPeriod;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, tick, [&] { return stopping_; })) {
    lock.unlock();
    try {
      syncDeployments(Clock::now());
      if (std::chrono::steady_clock::now() >= nextHpaSync) {
        nextHpaSync += options_.hpaSyncPeriod;
        syncOnce(Clock::now());
      }
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "member-sim " << options_.name << ": " << error.what();
    }
    lock.lock();
  }
}

void MemberSimulator::syncOnce(TimePoint now) {
  syncDeployments(now);
  for (const auto& hpa : hpas_.list({"", {}, std::nullopt, ""}).items) {
    try {
      syncHpa(hpa, now);
    } catch (const std::exception& error) {
      FEDHPA_LOG(warning) << "member-sim " << options_.name << ": HPA " << apiserver::metaString(hpa, "name") << ": "
                          << error.what();
    }
  }
}

// The Deployment controller: spec.replicas pods, each Ready podStartupDelay after its creation and
// available spec.minReadySeconds later; a scale-down removes the newest pods first (the least
// ready, as the ReplicaSet controller picks). The status is what kube's controller writes
// (deployment_status.h).
void MemberSimulator::syncDeployments(TimePoint now) {
  std::map<std::string, std::vector<TimePoint>> seen;
  for (const auto& deployment : deployments_.list({"", {}, std::nullopt, ""}).items) {
    const json spec = deployment.value("spec", json::object());
    const int replicas = std::max(0, spec.value("replicas", 1));
    std::vector<TimePoint>& created = seen[apiserver::metaString(deployment, "uid")];
    if (const auto known = podsCreated_.find(apiserver::metaString(deployment, "uid")); known != podsCreated_.end())
      created = std::move(known->second);
    if (created.size() > static_cast<std::size_t>(replicas)) created.resize(static_cast<std::size_t>(replicas));
    while (created.size() < static_cast<std::size_t>(replicas)) created.push_back(now);
    const auto minReady = std::chrono::seconds(std::max(0, spec.value("minReadySeconds", 0)));
    const auto readyBy = [&](std::chrono::system_clock::duration after) {
      return static_cast<int>(std::count_if(created.begin(), created.end(),
                                            [&](TimePoint at) { return at + options_.podStartupDelay + after <= now; }));
    };
    const json wanted = deploymentStatus(deployment, {replicas, readyBy({}), readyBy(minReady)}, now);
    if (deployment.value("status", json::object()) == wanted) continue;
    deployments_.update(apiserver::metaString(deployment, "namespace"), apiserver::metaString(deployment, "name"),
                        [&](const json& current) {
                          json next = current;
                          next["status"] = wanted;
                          next["metadata"].erase("resourceVersion");
                          return next;
                        },
                        Subresource::Status, false);
  }
  podsCreated_ = std::move(seen);
}

// The target's pods as the HPA controller lists them: Pending until ready, then Running and Ready.
// Empty with instant pods: every replica is a ready pod with metrics.
std::vector<Pod> MemberSimulator::podsOf(const json& deployment, TimePoint now) {
  std::vector<Pod> pods;
  if (options_.podStartupDelay.count() == 0) return pods;
  const auto known = podsCreated_.find(apiserver::metaString(deployment, "uid"));
  if (known == podsCreated_.end()) return pods;
  for (const TimePoint created : known->second) {
    const TimePoint readyAt = created + options_.podStartupDelay;
    const bool ready = readyAt <= now;
    pods.push_back({ready ? Pod::Phase::Running : Pod::Phase::Pending, ready, false, created, ready ? readyAt : created});
  }
  return pods;
}

void MemberSimulator::syncHpa(const json& hpa, TimePoint now) {
  const std::string ns = apiserver::metaString(hpa, "namespace");
  const json ref = hpa.value("spec", json::object()).value("scaleTargetRef", json::object());
  const HpaSpec spec = specOf(hpa);
  std::optional<json> target;
  if (ref.value("kind", "") == "Deployment") {
    try {
      target = deployments_.get(ns, ref.value("name", ""));
    } catch (const api::ApiError& error) {
      if (error.code() != 404) throw;
    }
  }
  std::optional<int> current;
  std::optional<double> utilization;
  std::vector<MemberMetric> metrics;
  std::vector<Pod> pods;
  if (target) {
    current = target->value("spec", json::object()).value("replicas", 1);
    pods = podsOf(*target, now);
    // The load goes to the pods that are ready (a Service sends nothing to the others).
    const int serving = pods.empty() ? *current
                                     : static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const Pod& p) { return p.ready; }));
    metrics = memberMetrics(hpa.value("spec", json::object()).value("metrics", json::array()), *target, serving);
    // No metric list: kube's default, CPU at 80 %.
    if (metrics.empty() && serving > 0)
      utilization = utilizationFromDemand(demandFor(*target, kDemandAnnotation), serving, spec.targetUtilization);
  }
  SyncInput input{spec, current, utilization, now, {}};
  input.options = options_.controller;
  input.pods = pods;
  for (MemberMetric& metric : metrics) {
    const bool perPod = metric.input.source == MetricSource::Resource || metric.input.source == MetricSource::ContainerResource ||
                        metric.input.source == MetricSource::Pods;
    if (perPod && !pods.empty()) metric.input.perPod.assign(pods.size(), metric.input.current);
    input.metrics.push_back(metric.input);
  }
  const SyncResult result = sim::syncHpa(input, memories_[apiserver::metaString(hpa, "uid")]);

  if (result.rescaled && target)
    deployments_.update(ns, ref.value("name", ""),
                        [&](const json& deployment) {
                          json next = deployment;
                          next["spec"]["replicas"] = result.desiredReplicas;
                          next["metadata"].erase("resourceVersion");
                          return next;
                        },
                        Subresource::Main, false);

  const std::string stamp = api::formatRfc3339(now);
  hpas_.update(ns, apiserver::metaString(hpa, "name"),
               [&](const json& currentHpa) {
                 json next = currentHpa;
                 next["metadata"].erase("resourceVersion");
                 const json previous = currentHpa.value("status", json::object());
                 json status = {{"observedGeneration", currentHpa["metadata"].value("generation", 1)},
                                {"currentReplicas", result.currentReplicas},
                                {"desiredReplicas", result.desiredReplicas},
                                {"conditions", conditionsJson(result.conditions, previous.value("conditions", json::array()), stamp)}};
                 if (!metrics.empty())
                   status["currentMetrics"] = currentMetricsJson(metrics);
                 else if (result.currentUtilizationPercent)
                   status["currentMetrics"] = json::array(
                       {{{"type", "Resource"},
                         {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", *result.currentUtilizationPercent}}}}}}});
                 if (result.rescaled) status["lastScaleTime"] = stamp;
                 else if (previous.contains("lastScaleTime")) status["lastScaleTime"] = previous["lastScaleTime"];
                 next["status"] = status;
                 return next;
               },
               Subresource::Status, false);
  for (const SyncResult::Event& event : result.events) recordEvent(hpa, event, now);
}

// Like client-go's event recorder: the same reason and message on the same object count up.
void MemberSimulator::recordEvent(const json& object, const SyncResult::Event& event, TimePoint now) {
  const std::string ns = apiserver::metaString(object, "namespace");
  const std::string uid = apiserver::metaString(object, "uid");
  const std::size_t digest = std::hash<std::string>{}(uid + event.reason + event.message);
  char suffix[20];
  std::snprintf(suffix, sizeof suffix, "%016zx", digest);
  const std::string name = apiserver::metaString(object, "name") + "." + suffix;
  const std::string stamp = api::formatRfc3339(now);
  try {
    events_.update(ns, name,
                   [&](const json& current) {
                     json next = current;
                     next["metadata"].erase("resourceVersion");
                     next["count"] = current.value("count", 1) + 1;
                     next["lastTimestamp"] = stamp;
                     return next;
                   },
                   Subresource::Main, false);
    return;
  } catch (const api::ApiError& error) {
    if (error.code() != 404) throw;
  }
  events_.create(ns,
                 {{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", name}}},
                  {"involvedObject",
                   {{"kind", "HorizontalPodAutoscaler"},
                    {"namespace", ns},
                    {"name", apiserver::metaString(object, "name")},
                    {"uid", uid},
                    {"apiVersion", "autoscaling/v2"}}},
                  {"reason", event.reason},
                  {"message", event.message},
                  {"source", {{"component", "horizontal-pod-autoscaler"}}},
                  {"firstTimestamp", stamp},
                  {"lastTimestamp", stamp},
                  {"count", 1},
                  {"type", event.type},
                  {"reportingComponent", "horizontal-pod-autoscaler"},
                  {"reportingInstance", options_.name}},
                 false);
}

}  // namespace fedhpa::sim
