// Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown) for the objects kubectl's typed
// clients POST: autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers (kubectl autoscale),
// core v1 Secrets and Namespaces (kubectl create secret / namespace), RBAC objects (kubectl create
// role/rolebinding/...) and authorization reviews (kubectl auth can-i).
// Decoded into the JSON kubectl would have sent, so the rest of the server sees one format.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

namespace fedhpa::api::machinery {

class ProtobufError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json decodeKubernetesProtobuf(std::string_view body);

}  // namespace fedhpa::api::machinery
