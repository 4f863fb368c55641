#include "federation/controller/hpa_reconciler.h"

#include <algorithm>
#include <numeric>

#include "federation/controller/hpa_decode.h"
#include "federation/controller/cluster_selector.h"
#include "federation/controller/hpa_status.h"
#include "federation/controller/member_classification.h"
#include "federation/controller/write_phases.h"
#include "federation/common/logging.h"
#include "partitioner/partition.h"
#include "partitioner/reasons.h"

namespace fedhpa::controller {

using clusters::ClientError;

const clusters::Resource kHpas{"autoscaling", "v2", "horizontalpodautoscalers", true};

namespace {

constexpr const char* kHpaTargetClusterList = "federation.kubernetes.io/hpa-target-cluster-list";
const clusters::Resource kNamespaces{"", "v1", "namespaces", false};
const clusters::Resource kFederatedDeployments{"apps", "v1", "deployments", true};
// This controller's own writes of the federated HPA are expected under this source (no member is
// named so: Cluster names are DNS labels).
const std::string kFederationSource = "(federation)";
// A create refused because the name is taken, while the cache shows no copy of fedhpa's there:
// for this long the copy may be fedhpa's own (a create the cache has not shown yet, its
// expectation gone), holding limits nobody knows, so the member blocks raises as an unread one
// does; if the cache still shows no copy of fedhpa's after it, the HPA is someone else's and keeps
// the member out until kForeignRecheck has passed since the refusal, when a create is tried again.
constexpr std::chrono::seconds kForeignConfirm{10};
constexpr std::chrono::minutes kForeignRecheck{5};
// A create or a raise the member did not answer may still be applied while the member holds the
// request; kube-apiserver gives up on a request after its --request-timeout, 1 min by default.
constexpr std::chrono::seconds kUnansweredWriteWindow{60};
partitioner::Limits limitsOf(const json& hpa) {
  const json spec = hpa.value("spec", json::object());
  return {spec.value("minReplicas", 1LL), spec.value("maxReplicas", 0LL)};
}

std::string describe(const partitioner::Plan& plan, const partitioner::Move& move) {
  const std::string reason = partitioner::reasonFor(plan, move);
  if (!move.after) return "removed from " + move.cluster + ": " + reason;
  const std::string limits = "min " + std::to_string(move.after->min) + ", max " + std::to_string(move.after->max);
  return (move.before ? move.cluster + " now " + limits : "placed on " + move.cluster + " (" + limits + ")") + ": " + reason;
}

// The per-cluster breakdown reconcile last wrote: what each member held then. It stands in for a
// member the controller has not been able to read since it started.
std::map<std::string, partitioner::Limits> recordedLimits(const json& federated) {
  std::map<std::string, partitioner::Limits> out;
  const json breakdown = json::parse(annotationOf(federated, kClusterStatusAnnotation), nullptr, false);
  if (!breakdown.is_object()) return out;
  for (const auto& [member, entry] : breakdown.items()) {
    if (!entry.is_object() || !entry.value("max", json()).is_number_integer()) continue;
    out[member] = {entry.value("min", 1LL), entry.value("max", 0LL)};
  }
  return out;
}

}  // namespace

bool maxInvariantHolds(partitioner::Replicas federatedMax, const std::vector<partitioner::Replicas>& localMaxima) {
  return std::accumulate(localMaxima.begin(), localMaxima.end(), partitioner::Replicas{0}) <= federatedMax;
}

HpaReconciler::HpaReconciler(ReconcilerContext context, partitioner::Policy policy)
    : context_(context), policy_(policy), expectations_(context.requeue) {}

json HpaReconciler::writeFederated(const std::string& key, const std::string& basedOn, const std::function<json()>& write) {
  const auto sentIn = expectations_.writing(kFederationSource, key);
  json written;
  try {
    written = write();
  } catch (...) {
    expectations_.notWritten(kFederationSource, key, sentIn);
    throw;
  }
  expectations_.written(kFederationSource, key, written, basedOn, sentIn);
  return written;
}

HpaReconciler::Refusal HpaReconciler::refusalOf(const std::string& member, const std::string& key, bool knowsOurCopy) {
  std::lock_guard lock(foreignMutex_);
  const auto it = foreign_.find({member, key});
  if (it == foreign_.end()) return Refusal::None;
  const auto since = context_.time.monotonicTime() - it->second;
  if (!knowsOurCopy && since < kForeignConfirm) return Refusal::Unconfirmed;
  if (!knowsOurCopy && since < kForeignRecheck) return Refusal::Foreign;
  foreign_.erase(it);
  return Refusal::None;
}

std::vector<HpaReconciler::MemberHpa> HpaReconciler::readMembers(const json& federated) {
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  const std::string key = ns + "/" + name;
  const auto recorded = recordedLimits(federated);
  auto members = context_.members.members();
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<MemberHpa> out;
  for (auto& member : members) {
    MemberHpa local{member, std::nullopt, std::nullopt, "", false, false};
    const bool synced = member.hpas && member.hpas->hasSynced();
    auto readCache = [&]() -> std::optional<json> {
      std::optional<json> cached = member.hpas ? member.hpas->get(ns, name) : std::nullopt;
      if (cached && !managedByUs(*cached)) cached.reset();
      return cached;
    };
    const auto unanswered = expectations_.unansweredWrite(member.name, key, readCache(), context_.time.monotonicTime(),
                                                         synced && member.health == MemberHealth::Healthy, kUnansweredWriteWindow);
    const bool unsettled = unanswered == WriteExpectations::Unanswered::Pending ||
                           (unanswered == WriteExpectations::Unanswered::Due && !settleByReading(member, ns, name));
    local.hpa = expectations_.current(member.name, key, [&] {
      std::optional<json> cached = readCache();
      if (cached) local.cacheVersion = metaField(*cached, "resourceVersion");
      return cached;
    });
    const Refusal refusal = refusalOf(member.name, key, local.hpa.has_value());
    local.foreign = refusal == Refusal::Foreign;
    local.unseen = refusal == Refusal::Unconfirmed || unsettled;
    if (local.hpa) {
      local.limits = limitsOf(*local.hpa);
    } else if (!synced) {
      // Never read since this process started: what the member held when status was last written.
      if (const auto it = recorded.find(member.name); it != recorded.end()) local.limits = it->second;
    }
    out.push_back(std::move(local));
  }
  return out;
}

bool HpaReconciler::settleByReading(const Member& member, const std::string& ns, const std::string& name) {
  const std::string key = ns + "/" + name;
  try {
    const json live = context_.calls.call(member.name, [&] { return member.client->get(kHpas, ns, name); });
    // Applied, and the cache is behind: the copy stands in for it until it catches up.
    if (managedByUs(live)) expectations_.written(member.name, key, live);
  } catch (const ClientError& error) {
    if (error.kind() != ClientError::Kind::NotFound) return false;  // still unknown: asked again next time
  }
  expectations_.settled(member.name, key);
  return true;
}

HpaReconciler::Inputs HpaReconciler::inputsOf(const json& federated, const std::vector<MemberHpa>& locals,
                                              const std::optional<Placement>& placement) {
  Inputs inputs{metaField(federated, "resourceVersion"), "", placement ? placement->policy + "@" + placement->resourceVersion : ""};
  for (const auto& local : locals)
    inputs.members += local.member.name + ":" + std::to_string(static_cast<int>(local.member.health)) + ":" +
                      (local.member.hpas && local.member.hpas->hasSynced() ? "synced" : "unsynced") + ":" +
                      (local.foreign ? "foreign" : local.hpa ? metaField(*local.hpa, "resourceVersion") : "-") + ";";
  return inputs;
}

void HpaReconciler::reconcile(const std::string& key, bool unlessUnchanged) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  // This controller's last write of it, until the cache has caught up with that write.
  bool gone = false;
  const auto cached = expectations_.current(kFederationSource, key, [&] {
    auto fromCache = context_.federatedHpas.get(ns, name);
    gone = !fromCache;
    return fromCache;
  });
  if (gone) {  // gone, and its finalizer did the cleanup
    // Its member copies are gone or no longer fedhpa's: what finalize expected of them (and
    // anything else expected of the key) would otherwise stay for the life of the process.
    expectations_.forgetKey(key);
    context_.metrics.forgetFederatedHpa(ns, name);
    std::lock_guard lock(reconciledMutex_);
    reconciled_.erase(key);
    return;
  }
  if (!cached) return;  // this controller deleted it, and the cache has yet to show that
  auto locals = readMembers(*cached);
  const auto governing =
      context_.policies ? context_.policies->hpaPlacement(*cached, context_.federatedDeployments) : std::nullopt;
  const auto placement = effectivePlacement(governing, *cached);
  {
    std::lock_guard lock(reconciledMutex_);
    const auto it = reconciled_.find(key);
    if (it != reconciled_.end()) {
      if (unlessUnchanged && it->second == inputsOf(*cached, locals, placement)) return;
      reconciled_.erase(it);  // until this reconcile succeeds
    }
  }
  if (!metaField(*cached, "deletionTimestamp").empty()) {
    finalize(*cached, locals);
    return;
  }
  const json& planned = *cached;
  const auto decoded = controller::decodeFederatedHpa(planned, "federated");
  // Members that may hold a copy but cannot be planned for keep what they hold: their share of
  // the federated limits is frozen, and the rest is partitioned over the healthy members.
  MemberClassification members;
  try {
    members = classifyMembers(locals, decoded, annotationOf(planned, kClusterSelectorAnnotation), placement);
  } catch (const SelectorError& error) {
    context_.events.record(planned, "Warning", "InvalidClusterSelector", error.what());
    return;
  }
  const partitioner::Limits& frozen = members.frozen;
  const auto& states = members.planned;
  std::string unread;  // nothing is raised until these have been read or released
  for (const auto& member : members.unread) unread += (unread.empty() ? "" : ", ") + member;

  partitioner::FederatedSpec available = decoded.spec;
  available.limits.max -= frozen.max;
  available.limits.min = std::clamp(decoded.spec.limits.min - frozen.min, partitioner::Replicas{1},
                                    std::max(partitioner::Replicas{1}, available.limits.max));
  partitioner::Plan plan;
  if (available.limits.max >= 1) {
    partitioner::Policy policy = policy_;
    if (placement && placement->staticWeights) policy.kind = partitioner::Policy::Kind::Static;
    plan = partitioner::partition(available, states, policy, context_.time.systemTime());
  } else {
    // Members that are not answering hold the whole federated max: nothing is left to place.
    for (const auto& state : states) {
      plan.clusters.push_back({state.name, std::nullopt});
      if (state.hpa) plan.moves.push_back({state.name, state.hpa->limits, std::nullopt, "members that are not answering hold the federated max"});
    }
  }
  // The finalizer goes on before any member write. Added now, it carries the per-cluster breakdown
  // the plan leads to (what each member may hold if its writes go through), so that the status
  // written after them is the placement's only other write to the federation. Once it is there,
  // as it is on every pass but the first, that breakdown is not worked out at all.
  const bool finalized = hasFinalizer(planned, kFederationFinalizer);
  const json federated = ensureFinalizer(planned, finalized ? json::object() : statusBreakdown(projected(plan, locals)),
                                         retainPlacementPatch(planned, governing));
  auto failure = applyPlan(federated, plan, locals, unread.empty());
  if (!failure && !unread.empty() && std::any_of(plan.moves.begin(), plan.moves.end(), [](const auto& move) {
        return move.after && (!move.before || move.after->max > move.before->max);
      }))
    failure = ClientError(ClientError::Kind::ConnectionFailure, 0, "", "raises wait until these members have been read: " + unread);
  // The Event tells what the members now hold: a move whose write failed or waits for the next
  // pass is not named, so that no Event announces limits a member never got.
  std::string message;
  for (const auto& move : plan.moves) {
    const auto local = std::find_if(locals.begin(), locals.end(), [&](const MemberHpa& l) { return l.member.name == move.cluster; });
    const bool holds = local != locals.end() && (move.after ? local->hpa && local->limits == move.after : !local->hpa);
    if (holds) message += (message.empty() ? "" : "; ") + describe(plan, move);
  }
  if (!message.empty()) {
    context_.events.record(federated, "Normal", "Rebalanced", message);
    context_.metrics.countRebalance(ns, name);
  }
  for (const auto& local : locals)
    if (local.foreign)
      context_.events.record(federated, "Warning", "ForeignHpa",
                             "member " + local.member.name + " has an HPA " + name + " that fedhpa did not create; left alone");
  // What did go out is recorded even when something failed: the per-cluster breakdown is what a
  // restarted controller knows of members it cannot read.
  std::vector<std::string> holders;
  for (const auto& local : locals)
    if (local.hpa && local.member.health != MemberHealth::Released) holders.push_back(local.member.name);
  markTargetDeployment(federated, holders);
  if (!failure) {  // before the status write is handed over, which moves the version it counts
    std::lock_guard lock(reconciledMutex_);
    reconciled_[key] = inputsOf(federated, locals, placement);
  }
  reportStatus(federated, locals);
  if (failure) throw *failure;
}

bool HpaReconciler::echoesOwnWrite(const std::string& source, const json& object) {
  return expectations_.cacheShows(source.empty() ? kFederationSource : source, clusters::objectKey(object),
                                  metaField(object, "resourceVersion"));
}

// The plan's writes, phase by phase (write_phases.h says why in this order): each phase goes out
// only once every write of the one before was acknowledged, and no phase that may raise what a
// member holds goes out while !raisesAllowed.
std::optional<ClientError> HpaReconciler::applyPlan(const json& federated, const partitioner::Plan& plan,
                                                    std::vector<MemberHpa>& locals, bool raisesAllowed) {
  const std::string key = metaField(federated, "namespace") + "/" + metaField(federated, "name");
  for (const WritePhase& phase : writePhases(federated, plan, locals)) {
    if (phase.mayRaise() && !raisesAllowed) break;  // a raise may depend on any of the lowerings
    if (phase.writes.empty()) continue;
    if (auto failure = writePhase(federated, key, phase, locals)) return failure;
  }
  return std::nullopt;
}

// The member no longer holds the copy `local` knew: expected gone until the cache agrees.
void HpaReconciler::forgetCopy(const std::string& key, MemberHpa& local) {
  expectations_.deleted(local.member.name, key, metaField(*local.hpa, "resourceVersion"));
  local.hpa.reset();
  local.limits.reset();
}

std::optional<ClientError> HpaReconciler::writePhase(const json& federated, const std::string& key, const WritePhase& phase,
                                                     std::vector<MemberHpa>& locals) {
  std::vector<MemberCall> calls;
  std::vector<WriteExpectations::Membership> sentIn(phase.writes.size());
  for (std::size_t n = 0; n < phase.writes.size(); ++n) {
    const MemberWrite& write = phase.writes[n];
    calls.push_back(writeCall(federated, locals[write.local], write.limits));
    if (write.limits) sentIn[n] = expectations_.writing(locals[write.local].member.name, key);  // a create or an update: echoed by the cache
  }
  std::vector<MemberCallOutcome> outcomes;
  try {
    outcomes = context_.calls.callAll(calls);
  } catch (...) {  // no outcomes to record: nothing may stay announced
    for (std::size_t n = 0; n < phase.writes.size(); ++n)
      if (phase.writes[n].limits) expectations_.notWritten(locals[phase.writes[n].local].member.name, key, sentIn[n]);
    throw;
  }
  std::optional<ClientError> failure;
  for (std::size_t n = 0; n < phase.writes.size(); ++n) {
    const MemberWrite& write = phase.writes[n];
    MemberHpa& local = locals[write.local];
    const auto& outcome = outcomes[n];
    if (write.limits && !outcome.ok()) expectations_.notWritten(local.member.name, key, sentIn[n]);
    const bool gone = !outcome.ok() && outcome.error->kind() == ClientError::Kind::NotFound && local.hpa;
    if (gone) {
      // The copy was deleted under the controller (by someone, or by its own delete whose answer
      // was lost): what it expected of that copy will never show in the cache.
      forgetCopy(key, local);
      if (!write.limits) continue;  // a delete that found it gone has what it wanted
    }
    if (!outcome.ok()) {
      if (outcome.error->kind() == ClientError::Kind::AlreadyExists) {
        // An HPA of that name that the cache does not show: fedhpa's own, not shown yet, or
        // someone else's (kForeignConfirm tells them apart).
        std::lock_guard lock(foreignMutex_);
        foreign_.try_emplace({local.member.name, key}, context_.time.monotonicTime());
        local.unseen = true;
      } else if (phase.mayRaise() && outcome.mayHaveApplied()) {
        // Held or applied with its answer lost: the member may come to hold more than the
        // cache shows, so nothing else is raised until that is settled.
        expectations_.unanswered(local.member.name, key, local.hpa ? metaField(*local.hpa, "resourceVersion") : local.cacheVersion,
                                 context_.time.monotonicTime(), sentIn[n]);
        local.unseen = true;
      }
      context_.metrics.countMemberError(local.member.name);
      FEDHPA_LOG(warning) << "member " << local.member.name << ": writing HPA " << key << ": " << outcome.error->what();
      if (!failure) failure = outcome.error;
      continue;
    }
    if (!write.limits) {
      forgetCopy(key, local);
    } else {
      expectations_.written(local.member.name, key, *outcome.object, "", sentIn[n]);
      local.hpa = *outcome.object;
      local.limits = limitsOf(*outcome.object);
    }
  }
  return failure;
}

MemberCall HpaReconciler::writeCall(const json& federated, const MemberHpa& local, const std::optional<partitioner::Limits>& limits) {
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  auto client = local.member.client;
  ControllerMetrics& metrics = context_.metrics;
  if (!limits) {
    const std::string version = metaField(*local.hpa, "resourceVersion");
    return {local.member.name, [=, &metrics] {
              json answer = client->remove(kHpas, ns, name, "", version);
              metrics.countMemberWrite("delete");
              return answer;
            }};
  }
  if (local.hpa) {
    // Conditional on the resourceVersion the plan was made from.
    const json patch = specPatch(*local.hpa, localSpec(federated, *limits));
    return {local.member.name, [=, &metrics] {
              json answer = client->mergePatch(kHpas, ns, name, patch);
              metrics.countMemberWrite("update");
              return answer;
            }};
  }
  json labels = federated["metadata"].value("labels", json::object());
  labels[kManagedByLabel] = kManagedByValue;
  const json hpa = {{"apiVersion", "autoscaling/v2"},
                    {"kind", "HorizontalPodAutoscaler"},
                    {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
                    {"spec", localSpec(federated, *limits)}};
  return {local.member.name, [=, &metrics] {
            json answer;
            try {
              answer = client->create(kHpas, ns, hpa);
            } catch (const ClientError& error) {
              if (error.kind() != ClientError::Kind::NotFound) throw;
              // The member lacks the namespace: make it, as kubefed v1 propagated namespaces.
              try {
                client->create(kNamespaces, "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
              } catch (const ClientError& namespaceError) {
                if (namespaceError.kind() != ClientError::Kind::AlreadyExists) throw;
              }
              answer = client->create(kHpas, ns, hpa);
            }
            metrics.countMemberWrite("create");
            return answer;
          }};
}

// Deleting (or orphaning) every copy, then releasing the federated HPA. The finalizer stays while
// any member that may hold a copy cannot be reached, as kube's garbage collector waits for
// dependents it cannot see: a member that comes back must not keep a copy nobody manages.
void HpaReconciler::finalize(const json& federated, const std::vector<MemberHpa>& locals) {
  if (!hasFinalizer(federated, kFederationFinalizer)) return;
  const bool orphan = hasFinalizer(federated, "orphan");
  const std::string ns = metaField(federated, "namespace");
  const std::string name = metaField(federated, "name");
  const std::string key = ns + "/" + name;
  std::vector<MemberCall> calls;
  std::vector<std::string> waitingFor;
  for (const auto& local : locals) {
    if (local.foreign) continue;
    const bool mayHoldCopy = local.hpa || local.limits || !(local.member.hpas && local.member.hpas->hasSynced());
    if (local.member.health != MemberHealth::Healthy) {
      if (mayHoldCopy) waitingFor.push_back(local.member.name);
      continue;
    }
    // A create or raise went unanswered: the member may yet apply it, and a copy created after the
    // finalizer went would have no federated HPA to delete it. Its cache or a read settles it.
    if (local.unseen) {
      waitingFor.push_back(local.member.name + " (a write not answered)");
      continue;
    }
    if (!local.hpa) continue;
    auto client = local.member.client;
    const std::string version = metaField(*local.hpa, "resourceVersion");
    if (orphan) {  // left in place, and no longer ours
      const json released = releasedPatch(*local.hpa);
      calls.push_back({local.member.name, [=] { return client->mergePatch(kHpas, ns, name, released); }});
    } else {
      calls.push_back({local.member.name, [=] { return client->remove(kHpas, ns, name, "", version); }});
    }
  }
  const auto outcomes = context_.calls.callAll(calls);
  std::optional<ClientError> failure;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].ok() || outcomes[i].error->kind() == ClientError::Kind::NotFound) {
      context_.metrics.countMemberWrite(orphan ? "orphan" : "delete");
      // Orphaned or deleted, the copy is no longer one fedhpa manages: the cache will drop it.
      expectations_.deleted(calls[i].member, key, "");
    } else if (!failure) {
      failure = outcomes[i].error;
    }
  }
  if (failure) throw *failure;
  if (!waitingFor.empty()) {
    std::string members;
    for (const auto& member : waitingFor) members += (members.empty() ? "" : ", ") + member;
    context_.events.record(federated, "Warning", "WaitingForMembers",
                           "deletion waits until these members can be reached: " + members);
    throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "deletion of " + key + " waits for " + members);
  }
  markTargetDeployment(federated, {});
  context_.federation.mergePatch(kHpas, ns, name, withoutFederationFinalizer(federated));
}

void HpaReconciler::forgetMember(const std::string& member) { expectations_.forgetMember(member); }

std::size_t HpaReconciler::pendingExpectations() const { return expectations_.pending(); }

json HpaReconciler::ensureFinalizer(const json& federated, const json& breakdown, const std::optional<json>& retainPlacement) {
  const bool finalized = hasFinalizer(federated, kFederationFinalizer);
  if (finalized && !retainPlacement) return federated;
  json patch = retainPlacement.value_or(json::object());
  if (!finalized) {
    patch.merge_patch(finalizerPatch(federated, kFederationFinalizer, true));
    if (!breakdown.empty()) patch["metadata"]["annotations"][kClusterStatusAnnotation] = breakdown.dump();
  }
  const std::string ns = metaField(federated, "namespace"), name = metaField(federated, "name");
  // 409 when the cache was stale: requeued
  return writeFederated(ns + "/" + name, metaField(federated, "resourceVersion"),
                        [&] { return context_.federation.mergePatch(kHpas, ns, name, patch); });
}

// The members as they will be once the plan's writes have gone through, where that is more than
// they hold now: a create holds the planned limits, an update the larger of old and new, a delete
// or a member not written keeps what it has. Recorded before the writes, this never understates
// what a member may hold, whichever writes fail.
std::vector<HpaReconciler::MemberHpa> HpaReconciler::projected(const partitioner::Plan& plan, std::vector<MemberHpa> locals) {
  std::map<std::string, std::optional<partitioner::Limits>> wanted;
  for (const auto& cluster : plan.clusters) wanted[cluster.name] = cluster.limits;
  for (auto& local : locals) {
    if (local.foreign || local.member.health != MemberHealth::Healthy) continue;
    const auto it = wanted.find(local.member.name);
    if (it == wanted.end() || !it->second) continue;
    const partitioner::Limits& target = *it->second;
    if (!local.hpa) {
      local.hpa = json{{"spec", {{"minReplicas", target.min}, {"maxReplicas", target.max}}}};
      continue;
    }
    json& spec = (*local.hpa)["spec"];
    spec["minReplicas"] = std::max<partitioner::Replicas>(spec.value("minReplicas", 1LL), target.min);
    spec["maxReplicas"] = std::max<partitioner::Replicas>(spec.value("maxReplicas", 0LL), target.max);
  }
  return locals;
}

// The members' statuses summed onto the federated HPA, and each one in an annotation. Each is
// written only when it changed, by update with the resourceVersion read (replace semantics: a
// field that vanished from the members vanishes here too).
void HpaReconciler::reportStatus(const json& federated, const std::vector<MemberHpa>& locals) {
  const json shares = statusBreakdown(locals);
  const std::string breakdown = shares.dump();
  json status = aggregatedStatus(locals, federated["metadata"].value("generation", 1LL),
                                 federated.value("status", json::object()).value("conditions", json::array()), context_.time.systemTime());
  const json spec = federated.value("spec", json::object());
  context_.metrics.setFederatedHpa(metaField(federated, "namespace"), metaField(federated, "name"),
                                   {spec.value("minReplicas", 1LL), spec.value("maxReplicas", 0LL),
                                    status.value("currentReplicas", 0LL), status.value("desiredReplicas", 0LL)},
                                   shares);
  if (annotationOf(federated, kClusterStatusAnnotation) == breakdown && federated.value("status", json::object()) == status) return;
  const std::string key = metaField(federated, "namespace") + "/" + metaField(federated, "name");
  context_.status.submit(key, [this, key, federated, breakdown, status]() mutable {
    // Planned from a version this controller has since written over itself (the status writer's
    // last write of this key, say): that write is the base, as the cache will soon show.
    const std::string base = metaField(federated, "resourceVersion");
    json written = expectations_.ownWriteOver(kFederationSource, key, base).value_or(federated);
    keepTransitionTimes(status["conditions"], written.value("status", json::object()).value("conditions", json::array()));
    if (annotationOf(written, kClusterStatusAnnotation) != breakdown) {
      const json patch = annotationPatch(written, kClusterStatusAnnotation, breakdown);
      written = writeFederated(key, base, [&] {
        return context_.federation.mergePatch(kHpas, metaField(written, "namespace"), metaField(written, "name"), patch);
      });
    }
    if (written.value("status", json::object()) != status) {
      // A write to /status changes the status alone: what the cache left out of `written` stays.
      written["status"] = status;
      written = writeFederated(key, base, [&] { return context_.federation.update(kHpas, written, "status"); });
    }
    // The reconcile that handed this over counted the version it planned from; this write's is
    // the same inputs, status aside.
    std::lock_guard lock(reconciledMutex_);
    const auto it = reconciled_.find(key);
    if (it != reconciled_.end() && it->second.federatedVersion == base)
      it->second.federatedVersion = metaField(written, "resourceVersion");
  });
}

void HpaReconciler::markTargetDeployment(const json& federated, const std::vector<std::string>& clusters) {
  const json ref = federated.value("spec", json::object()).value("scaleTargetRef", json::object());
  if (ref.value("kind", "") != "Deployment") return;
  auto deployment = context_.federatedDeployments.get(metaField(federated, "namespace"), ref.value("name", ""));
  if (!deployment) return;  // not federated: nothing to place
  const std::string wanted = clusters.empty() ? "" : json{{"Names", clusters}}.dump();
  if (annotationOf(*deployment, kHpaTargetClusterList) == wanted) return;
  context_.federation.mergePatch(kFederatedDeployments, metaField(*deployment, "namespace"), metaField(*deployment, "name"),
                                 annotationPatch(*deployment, kHpaTargetClusterList,
                                                 wanted.empty() ? std::nullopt : std::optional<std::string>(wanted)));
}

}  // namespace fedhpa::controller
