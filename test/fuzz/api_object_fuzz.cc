// A JSON body for every served type and version, through what create and update do with it:
// parse (depth-checked), admitBody (apiVersion/kind, nulls, fieldValidation), conversion to the
// stored form, type checks; and once accepted, defaulting, validation (create and update),
// table cells and conversion back to every served version. The first byte picks the type and
// version, the second the fieldValidation; the rest is the body.
//
// Before the object is accepted any exception is the server's 400 (rest_handler.cc turns client
// input errors into BadRequest); after it, only ApiError may be thrown: anything else would be a
// 500 for an object the server took.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "federation/api/served_types.h"
#include "federation/apiserver/request_decoding.h"
#include "test/fuzz/fuzz_checks.h"

using namespace fedhpa;
using nlohmann::json;

namespace {

using TypeVersion = std::pair<std::shared_ptr<const api::ResourceType>, std::string>;

std::vector<TypeVersion> servedTypeVersions() {
  const auto types = api::federationResources();
  std::vector<TypeVersion> out;
  for (const auto& type : types)
    for (const auto& version : type->names().versions) out.emplace_back(type, version);
  return out;
}

// The stored form the REST layer hands to the store (rest_handler.cc's toInternal).
json toInternal(const api::ResourceType& type, const json& served, const std::string& version) {
  json internal = type.toInternal(served, version);
  if (version != type.names().storageVersion && !type.typeErrors(internal, type.names().storageVersion).empty())
    throw api::ApiError::badRequest("wrong types after conversion");
  return internal;
}

void afterAcceptance(const api::ResourceType& type, json internal) {
  type.applyDefaults(internal);
  if (!internal.contains("metadata") || !internal["metadata"].is_object()) internal["metadata"] = json::object();
  type.validate(internal, nullptr);
  type.validate(internal, &internal);
  fuzz::requireSerialisable(type.tableCells(internal, api::Clock::now()), "table cells");
  for (const auto& version : type.names().versions) fuzz::requireSerialisable(type.fromInternal(internal, version), "served object");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<TypeVersion> typeVersions = servedTypeVersions();
  if (size < 2) return 0;
  const auto& [typePointer, version] = typeVersions[data[0] % typeVersions.size()];
  const api::ResourceType& type = *typePointer;
  const auto validation = static_cast<apiserver::FieldValidation>(data[1] % 3);
  const std::string body(fuzz::asText(data + 2, size - 2));

  json internal;
  try {
    json served = apiserver::parseRequestJson(body);
    type.unknownFields(served, version);
    type.typeErrors(served, version);
    apiserver::admitBody(served, type, version, validation);
    internal = toInternal(type, served, version);
  } catch (const std::exception&) {
    return 0;
  }
  try {
    afterAcceptance(type, std::move(internal));
  } catch (const api::ApiError& error) {
    if (error.code() >= 500) fuzz::finding(type.names().kind + " " + version + ": " + error.what());
  } catch (const std::exception& error) {
    fuzz::finding(type.names().kind + " " + version + ": an accepted object made the server throw " + error.what());
  }
  return 0;
}
