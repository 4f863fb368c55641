// The three patch formats kube-apiserver accepts: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902) and strategic merge patch (merge patch whose lists with a merge key merge by that key).
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace fedhpa::api::machinery {

class PatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Lists that merge by key, by their path without indices: "spec.template.spec.containers" -> "name".
struct PatchMeta {
  std::map<std::string, std::string> mergeKeys;
};

nlohmann::json applyMergePatch(const nlohmann::json& original, const nlohmann::json& patch);
// The JSON merge patch that turns `original` into `modified` (RFC 7386, as jsonpatch's
// CreateMergePatch): members that vanished are null, objects are diffed member by member, anything
// else that changed (lists included) is replaced whole. {} when they are equal. A null in
// `modified` cannot be said in a merge patch: it is taken as absent.
nlohmann::json createMergePatch(const nlohmann::json& original, const nlohmann::json& modified);
// What the "copy" operations of one JSON patch may add in all, as the JSON of the values copied:
// kube-apiserver's JSONPatchMaxCopyBytes (twice etcd's recommended 1.5 MB request size).
inline constexpr std::size_t kJsonPatchMaxCopyBytes = 3 * 1024 * 1024;

// Throws PatchError when an operation fails or the copies would add more than maxCopyBytes.
nlohmann::json applyJsonPatch(const nlohmann::json& original, const nlohmann::json& patch,
                              std::size_t maxCopyBytes = kJsonPatchMaxCopyBytes);
nlohmann::json applyStrategicMergePatch(const nlohmann::json& original, const nlohmann::json& patch,
                                        const PatchMeta& meta);

}  // namespace fedhpa::api::machinery
