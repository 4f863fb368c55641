// The served types, one factory each; federationResources() (resource.h) lists them all.
#pragma once

#include <memory>
#include <vector>

#include "federation/api/hpa_type.h"
#include "federation/api/resource.h"

namespace fedhpa::api {

std::shared_ptr<const ResourceType> deploymentType();
std::shared_ptr<const ResourceType> clusterType();
std::shared_ptr<const ResourceType> namespaceType();
std::shared_ptr<const ResourceType> secretType();
std::shared_ptr<const ResourceType> eventType();
// core v1 ConfigMap and Service, federated with the Deployments that use them.
std::shared_ptr<const ResourceType> configMapType();
// allocatedAddresses: a member cluster's Services (the member-sim's), whose cluster IP the
// cluster allocates (clusterIP may be set, then immutable); else the federation's, which has none.
std::shared_ptr<const ResourceType> serviceType(bool allocatedAddresses = false);
std::shared_ptr<const ResourceType> leaseType();
// core/v1 ServiceAccount with its token subresource; the member-sim serves it, the federation does not.
std::shared_ptr<const ResourceType> serviceAccountType();
std::shared_ptr<const ResourceType> roleType();
std::shared_ptr<const ResourceType> clusterRoleType();
std::shared_ptr<const ResourceType> roleBindingType();
std::shared_ptr<const ResourceType> clusterRoleBindingType();
// apiextensions.k8s.io/v1, read-only and empty: what kubectl asks before it reports an unknown kind.
std::shared_ptr<const ResourceType> customResourceDefinitionType();
// SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview, LocalSubjectAccessReview.
std::vector<std::shared_ptr<const ResourceType>> authorizationReviewTypes();

}  // namespace fedhpa::api
