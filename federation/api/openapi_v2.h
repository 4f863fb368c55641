// The OpenAPI v2 (Swagger 2.0) document at /openapi/v2, built from the served types, as JSON and as
// the protobuf kubectl asks for (gnostic's openapi.v2.Document). kubectl reads it when the v3
// document has no answer for a kind: to learn whether the server validates fields itself
// (fieldValidation on the PATCH operation, or on Namespace's for a kind it does not know), and for
// the schema it would validate locally with. Its paths and operations are kube-apiserver's; it
// carries no definitions (docs/apiserver.md says why), so kubectl skips local validation of a kind
// it cannot find and reports it per object ("no matches for kind"), as it does against kube.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "federation/api/discovery.h"

namespace fedhpa::api {

// What kubectl asks for, and what kube-apiserver answers with: the same type spelled without the
// '@', which Go's media type parser (kubectl's) refuses in a Content-Type.
inline constexpr const char* kOpenApiV2ProtobufAccept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
inline constexpr const char* kOpenApiV2ProtobufType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

nlohmann::json openApiV2Document(const Resources& resources);

// The document in gnostic's protobuf encoding. Reads the keys openApiV2Document writes (swagger,
// info, paths with their operations, parameters, responses and x- extensions); others are left out.
std::string encodeOpenApiV2(const nlohmann::json& document);

}  // namespace fedhpa::api
