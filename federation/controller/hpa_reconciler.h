// reconcile(namespace/name) for one federated HPA, in kubernetes/sample-controller's shape: read
// the federated HPA and every member's copy from the informer caches, classify the members, ask
// the partitioner for the plan, write the difference phase by phase (write_phases.h; each write
// conditional on the resourceVersion it was planned from), aggregate the members' status back,
// record one Event.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "clusters/client/informer.h"
#include "clusters/client/kube_client.h"
#include "federation/api/hpa_type.h"
#include "federation/common/time_source.h"
#include "federation/controller/controller_metrics.h"
#include "federation/controller/event_recorder.h"
#include "federation/controller/member_calls.h"
#include "federation/controller/member_hpa.h"
#include "federation/controller/object_fields.h"
#include "federation/controller/propagation_policy.h"
#include "federation/controller/status_writer.h"
#include "federation/controller/write_expectations.h"
#include "federation/controller/write_phases.h"
#include "partitioner/types.h"

namespace fedhpa::controller {

using nlohmann::json;

inline constexpr const char* kClusterStatusAnnotation = api::kClusterStatusAnnotation;

extern const clusters::Resource kHpas;

// The seam between reconcile and where members come from (the cluster registry in production).
class MemberClusters {
 public:
  virtual ~MemberClusters() = default;
  virtual std::vector<Member> members() = 0;
};

// Everything a reconciler reads and writes through, so that unit tests can supply each part.
struct ReconcilerContext {
  clusters::KubeClient& federation;          // writes to the federation API
  const clusters::Lister& federatedHpas;     // the federation's informer caches
  const clusters::Lister& federatedDeployments;
  MemberClusters& members;
  MemberCalls& calls;
  TimeSource& time;
  ControllerMetrics& metrics;
  EventRecorder& events;
  StatusWriter& status;  // status and the per-cluster annotation, written off the reconcile path
  // Puts a key back on the work queue: a watch event held back while a write of its object was
  // under way was not that write's echo. Without it, no event is held back.
  std::function<void(const std::string& key)> requeue = {};
  // Karmada's propagation policies (propagation_policy.h); none: every object placed as before.
  const PolicyCaches* policies = nullptr;
};

// The safety invariant, stated once: counting every member that may hold a local HPA (Healthy or
// Unknown), the local maxima never add up to more than the federated max. Unknown members keep
// their last known limits in the sum until they are Released; raises are written only after
// every lowering they depend on has been acknowledged.
bool maxInvariantHolds(partitioner::Replicas federatedMax, const std::vector<partitioner::Replicas>& localMaxima);

class HpaReconciler {
 public:
  HpaReconciler(ReconcilerContext context, partitioner::Policy policy);

  // Throws when a step failed and the key should come back later (a member write failed or
  // conflicted, the federation API refused a write); what did succeed is remembered. With
  // `unlessUnchanged`, returns at once when nothing it plans from has changed since its last
  // successful reconcile of the key, its own writes counted in (the watch events that echo them
  // bring nothing new); a periodic resync passes false, for what time alone changes.
  void reconcile(const std::string& key, bool unlessUnchanged = false);
  // A member left the federation: nothing this controller expected of it counts any more, so a
  // member that joins again under that name is planned from what its cache shows.
  void forgetMember(const std::string& member);
  // How many of its own writes it still expects the caches to show, unanswered writes counted
  // in: a deleted HPA leaves none behind.
  std::size_t pendingExpectations() const;
  // Whether `object`, delivered by the informer of `source` (a member's name, or "" for the
  // federation), is this controller's own last write of it and nothing more: reconciling for it
  // would plan from what the reconcile that wrote it already planned from.
  bool echoesOwnWrite(const std::string& source, const json& object);

  using MemberHpa = controller::MemberHpa;

 private:
  std::vector<MemberHpa> readMembers(const json& federated);
  // Reads the member's copy live to close an unanswered write that is due (the one read of a
  // member outside its cache); false when the member did not answer.
  bool settleByReading(const Member& member, const std::string& ns, const std::string& name);
  void finalize(const json& federated, const std::vector<MemberHpa>& locals);
  // Adds the finalizer (with `breakdown` as the per-cluster annotation) unless it is there, and
  // records the governing policy's placement (`retainPlacement`, a merge patch) when it changed.
  json ensureFinalizer(const json& federated, const json& breakdown, const std::optional<json>& retainPlacement);
  static std::vector<MemberHpa> projected(const partitioner::Plan& plan, std::vector<MemberHpa> locals);
  // Writes the plan phase by phase (write_phases.h), the raising phases only if raisesAllowed;
  // updates `locals` with what the members answered. Returns the first failure, if any.
  std::optional<clusters::ClientError> applyPlan(const json& federated, const partitioner::Plan& plan,
                                                 std::vector<MemberHpa>& locals, bool raisesAllowed);
  // One phase's writes, sent at once; the first failure, if any.
  std::optional<clusters::ClientError> writePhase(const json& federated, const std::string& key, const WritePhase& phase,
                                                  std::vector<MemberHpa>& locals);
  void forgetCopy(const std::string& key, MemberHpa& local);
  // A write of the federated HPA `key`, bracketed for WriteExpectations; returns its answer.
  json writeFederated(const std::string& key, const std::string& basedOn, const std::function<json()>& write);
  MemberCall writeCall(const json& federated, const MemberHpa& local, const std::optional<partitioner::Limits>& limits);
  // Hands the members' statuses, summed, and the per-cluster annotation to the status writer,
  // unless the federated HPA shows them already.
  void reportStatus(const json& federated, const std::vector<MemberHpa>& locals);
  // Names the members holding the HPA on its federated target Deployment (none: removes it).
  void markTargetDeployment(const json& federated, const std::vector<std::string>& clusters);
  // What a refused create (AlreadyExists) of this copy says now: nothing (none, or fedhpa's copy is
  // known there, from the cache or from its own acknowledged write, or the recheck is due), that it
  // may be fedhpa's, or that it is someone else's.
  enum class Refusal { None, Unconfirmed, Foreign };
  Refusal refusalOf(const std::string& member, const std::string& key, bool knowsOurCopy);

  // What a reconcile plans from, by resourceVersion: the federated HPA, each member's health and
  // copy, and the propagation policy that places it. Equal inputs make an equal plan (time aside:
  // resyncs are never skipped).
  struct Inputs {
    std::string federatedVersion;
    std::string members;
    std::string placement;
    bool operator==(const Inputs&) const = default;
  };
  static Inputs inputsOf(const json& federated, const std::vector<MemberHpa>& locals, const std::optional<Placement>& placement);

  ReconcilerContext context_;
  std::mutex reconciledMutex_;
  std::map<std::string, Inputs> reconciled_;  // by key: the inputs as its last successful reconcile left them
  partitioner::Policy policy_;
  WriteExpectations expectations_;
  std::mutex foreignMutex_;
  std::map<std::pair<std::string, std::string>, MonotonicTime> foreign_;  // (member, key) -> when seen
};

}  // namespace fedhpa::controller
