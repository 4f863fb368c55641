// Federation of the objects an application's Deployment uses (ConfigMaps, Services), kubefed v1's
// way: one copy per member the object is placed on, kept equal to the federated object, deleted
// (or orphaned) with it. What Deployments share with them lives here too: where a federated
// Deployment is placed, and how a deleted federated object's copies are finalized.
//
// Placement (docs/controller.md#configmaps-and-services): a ConfigMap or Service that a propagation
// policy governs goes where that policy places it (docs/karmada.md). Otherwise a ConfigMap goes to every member that
// runs a Deployment of its namespace whose pod template uses it (volumes, projected volumes,
// envFrom, env valueFrom); a Service to every member that runs a Deployment whose pod template
// labels its selector matches. When no Deployment uses the object, it goes where a Deployment
// without an HPA would: every healthy member its cluster-selector annotation selects.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clusters/client/informer.h"
#include "federation/controller/hpa_reconciler.h"

namespace fedhpa::controller {

extern const clusters::Resource kConfigMaps;
extern const clusters::Resource kServices;
// The simple objects the controller propagates; unjoin releases their copies with the others.
std::vector<clusters::Resource> propagatedObjects();

// The member's cache of fedhpa's copies of `resource` (nullptr: not watched there).
const clusters::Lister* copiesOf(const Member& member, const clusters::Resource& resource);

// The placement a federated Deployment follows: its governing policy's, else the one it retained
// from a policy since deleted (nullopt: none, or no policies).
std::optional<Placement> deploymentPolicy(const json& deployment, const PolicyCaches* policies);

// The members a federated Deployment is placed on: the HPA's clusters when one targets it (the
// HPA reconciler's annotation, which follows the HPA's policy), else every healthy member its
// cluster selector selects and `policy` (if any) places it on, less those its static weights
// weigh 0 (Karmada gives them no replicas); nullopt when that selector does not parse.
std::optional<std::set<std::string>> deploymentPlacement(const json& deployment, const std::vector<Member>& members,
                                                         const std::optional<Placement>& policy);
// The same, `policy` being deploymentPolicy(deployment, policies).
std::optional<std::set<std::string>> deploymentPlacement(const json& deployment, const std::vector<Member>& members,
                                                         const PolicyCaches* policies);

// The healthy members the object's cluster-selector annotation selects and `policy` (if any)
// places it on; nullopt when the selector does not parse (logged, naming `what`).
std::optional<std::set<std::string>> healthySelected(const json& object, const std::vector<Member>& members,
                                                     const std::optional<Placement>& policy, const std::string& what);

// fedhpa's copy of ns/name in the member's cache (nullopt: none there, or not fedhpa's).
std::optional<json> managedCopy(const Member& member, const clusters::Resource& resource, const std::string& ns,
                                const std::string& name);
// Throws the first failure among member calls (a NotFound answer counts as done).
void throwFirstMemberFailure(const std::vector<MemberCall>& calls, const std::vector<MemberCallOutcome>& outcomes,
                             ControllerMetrics& metrics);

// Whether the Deployment's pod template reads the ConfigMap `name`.
bool usesConfigMap(const json& deployment, const std::string& name);
// Whether the Service's (non-empty) selector matches the Deployment's pod template labels.
bool selectsPodsOf(const json& service, const json& deployment);

// A deleted federated object: every reachable copy deleted, or released with --cascade=orphan;
// the federation finalizer is kept (and this throws, so the key comes back) while a member that
// may hold a copy cannot be reached.
void finalizeCopies(ReconcilerContext& context, const clusters::Resource& resource, const json& federated,
                    const std::vector<Member>& members);

class ObjectPropagator {
 public:
  // `federated`: the federation's cache of `resource`; `deployments`: its federated Deployments.
  ObjectPropagator(ReconcilerContext context, clusters::Resource resource, const clusters::Lister& federated,
                   const clusters::Informer& deployments);
  // Throws when the key should come back later (a member write failed, a deletion waits).
  void reconcile(const std::string& key);

 private:
  std::optional<std::set<std::string>> placement(const json& federated, const std::vector<Member>& members) const;
  // The propagation policy that governs the object now, if any.
  std::optional<Placement> governing(const json& federated) const;
  // The copy to write: the federated object's content and labels (managed-by added), keeping
  // what the member allocated itself (a Service's cluster IPs and node ports).
  json desiredCopy(const json& federated, const std::optional<json>& local) const;

  ReconcilerContext context_;
  clusters::Resource resource_;
  const clusters::Lister& federated_;
  const clusters::Informer& deployments_;
};

}  // namespace fedhpa::controller
