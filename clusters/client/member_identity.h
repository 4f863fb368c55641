// The identity `fedhpa join` gives the federation in a member cluster, as kubefedctl join and
// karmadactl join do: a namespace, a ServiceAccount, a ClusterRole with exactly what fedhpa's
// controller-manager does in a member (and its binding), and a Role that lets the account ask for
// its own next token. The federation's Secret then holds a token of that account (TokenRequest,
// bounded lifetime) and never the operator's credential. unjoin removes the same objects, those
// join created (they carry fedhpa's label), which ends every token the federation held.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "clusters/client/kube_client.h"

namespace fedhpa::clusters {

inline constexpr const char* kMemberNamespace = "fedhpa-system";
inline constexpr const char* kMemberServiceAccount = "fedhpa-controller-manager";
inline constexpr const char* kMemberRoleName = "fedhpa:controller-manager";

extern const Resource kMemberNamespaces;
extern const Resource kServiceAccounts;
extern const Resource kClusterRoles;
extern const Resource kClusterRoleBindings;
extern const Resource kRoles;
extern const Resource kRoleBindings;

struct PlannedObject {
  Resource resource;
  json object;
};

// What join creates in a member, in the order it creates them (unjoin deletes in reverse).
std::vector<PlannedObject> memberIdentityPlan();

// Creates what is missing and brings roles and bindings that exist back to the plan (a re-join
// repairs them); an object that exists otherwise is left as it is. Throws ClientError.
void applyMemberIdentity(KubeClient& member, const std::vector<PlannedObject>& plan);

struct IssuedToken {
  std::string token;
  std::string expirationTimestamp;  // RFC 3339, as the member answered it
};

// A token of ServiceAccount namespaceName/name (TokenRequest), asked for `lifetime` (the member
// may cut it). Throws ClientError.
IssuedToken requestServiceAccountToken(KubeClient& member, const std::string& namespaceName, const std::string& name,
                                       std::chrono::seconds lifetime);
// The same for the member identity's ServiceAccount.
IssuedToken requestMemberToken(KubeClient& member, std::chrono::seconds lifetime);

// Checks that a client holding the member identity's credential may do what the controller needs
// (a SelfSubjectAccessReview for creating HPAs; where the member serves no such review, a list of
// HPAs). Throws ClientError: Unauthorized or Forbidden with why, when it may not.
void verifyMemberAccess(KubeClient& asFederation);

// What join creates carries this label (app.kubernetes.io/managed-by: fedhpa); what it found
// already there (a namespace the operator made) does not, and is not join's to delete.
inline constexpr const char* kIdentityManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kIdentityManagedByValue = "fedhpa";

struct IdentityRemoval {
  std::size_t removed = 0;
  std::vector<std::string> kept;  // "Namespace fedhpa-system", ...: there, but without fedhpa's label
};
// Deletes what the plan names and carries fedhpa's label, in reverse order (each delete conditional
// on the resourceVersion read; a part already gone is no error), and keeps what does not carry it.
// Throws ClientError.
IdentityRemoval removeMemberIdentity(KubeClient& member, const std::vector<PlannedObject>& plan);

}  // namespace fedhpa::clusters
