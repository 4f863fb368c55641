// authorization.k8s.io/v1 SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview and
// LocalSubjectAccessReview: create-only, answered from the authorizer and never stored, as
// kube-apiserver serves them (what `kubectl auth can-i`, with --list and --as, sends).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "federation/apiserver/authz/authorizer.h"

namespace fedhpa::apiserver::authz {

inline constexpr const char* kAuthorizationGroup = "authorization.k8s.io";

// The review with its status filled in. `resource` is the URL's (selfsubjectaccessreviews, ...),
// `urlNamespace` the namespace of a LocalSubjectAccessReview's URL. Throws ApiError (400/422) for
// reviews kube-apiserver refuses.
nlohmann::json answerReview(const std::string& resource, nlohmann::json review, const UserIdentity& requester,
                            const std::string& urlNamespace, Authorizer& authorizer);

}  // namespace fedhpa::apiserver::authz
