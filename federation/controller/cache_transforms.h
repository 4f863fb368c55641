// What the controllers' informers keep of each object (clusters::ObjectTransform, client-go's
// SetTransform): the fields some controller or status writer reads, the resourceVersion writes are
// made conditional on, and nothing else. Every write built from a cached object is a merge patch
// of the fields its writer owns (object_fields.h) or a write to /status, so what is dropped here
// is never written back as missing.
//
// Read, and therefore kept:
//  - federation objects (HPAs, Deployments, FederatedHPAs, CronFederatedHPAs): everything but
//    metadata.managedFields, metadata.selfLink and annotations outside the federation's own
//    prefixes (kubectl's last-applied-configuration, above all). Their spec is copied to the
//    members or to the HPA, their status compared whole with what the controllers would write,
//    their labels copied to member copies, uid/generation/creationTimestamp/ownerReferences/
//    finalizers/deletionTimestamp read by the reconcilers and Events.
//  - a member's HPA: metadata name, namespace, resourceVersion, labels (managed-by); the spec (its
//    owned fields are compared and rewritten); of the status the replica counts, lastScaleTime,
//    currentMetrics and each condition's type, status and reason (hpa_decode.h, hpa_status.h).
//  - a member's Deployment: the same metadata; the spec (compared with the federated one, its
//    replicas kept under an HPA); of the status the four replica counts the federated status sums.
//  - a member's copy of a ConfigMap or Service: the same metadata; the content (data,
//    binaryData, immutable; a Service's spec, whose allocated cluster IPs and node ports the
//    copy keeps); no status. A copy is written as a merge patch of the content and labels, so
//    what other controllers set on it (annotations above all) stays in the member.
#pragma once

#include <string>

#include "clusters/client/informer.h"

namespace fedhpa::controller {

// Whether an annotation is one the federation's controllers read or write
// (federation.kubernetes.io/, federation.alpha.kubernetes.io/, federation.fedhpa.io/).
bool isFederationAnnotation(const std::string& key);

// For the federation's SharedInformers: one transform for every resource served there.
clusters::ObjectTransform federationObjectTransform();
clusters::SharedInformers::TransformFor federationTransforms();

// For a member's informers on managed HPAs and on managed Deployments.
void trimMemberHpa(clusters::json& hpa);
void trimMemberDeployment(clusters::json& deployment);
// For a member's informers on fedhpa's copies of ConfigMaps and Services.
void trimMemberCopy(clusters::json& object);

}  // namespace fedhpa::controller
