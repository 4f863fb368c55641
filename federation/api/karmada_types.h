// Karmada's autoscaling.karmada.io/v1alpha1 and policy.karmada.io/v1alpha1 types, served as another front door to the federation.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "federation/api/resource.h"

namespace fedhpa::api {

std::shared_ptr<const ResourceType> federatedHpaType();
std::shared_ptr<const ResourceType> cronFederatedHpaType();
// policy.karmada.io/v1alpha1: where objects go (propagation_policy_type.cc).
std::shared_ptr<const ResourceType> propagationPolicyType();
std::shared_ptr<const ResourceType> clusterPropagationPolicyType();

// Fields directly under a FederatedHPA's spec that an autoscaling/v2 HPA has no place for: kept
// in storage, reported by the controller, never federated.
std::vector<std::string> karmadaOnlySpecFields(const nlohmann::json& federatedHpa);

}  // namespace fedhpa::api
