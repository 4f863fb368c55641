#include "federation/api/machinery/patch.h"

#include <algorithm>

namespace fedhpa::api::machinery {

using nlohmann::json;

namespace {

constexpr const char* kPatchDirective = "$patch";
constexpr const char* kRetainKeys = "$retainKeys";
constexpr const char* kSetElementOrder = "$setElementOrder/";
constexpr const char* kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

std::string childPath(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

json strategicMerge(const json& original, const json& patch, const std::string& path, const PatchMeta& meta);

// A list element patch {"$patch": "delete", "name": "x"} removes the element with that key.
json mergeListByKey(const json& original, const json& patch, const std::string& key, const std::string& path,
                    const PatchMeta& meta) {
  json result = original.is_array() ? original : json::array();
  for (const auto& element : patch) {
    if (!element.is_object() || !element.contains(key)) {
      if (element.is_object() && element.value(kPatchDirective, "") == "replace") continue;
      throw PatchError("map: " + element.dump() + " does not contain declared merge key: " + key);
    }
    const auto existing = std::find_if(result.begin(), result.end(), [&](const json& item) {
      return item.is_object() && item.contains(key) && item[key] == element[key];
    });
    const std::string directive = element.value(kPatchDirective, "");
    if (directive == "delete") {
      if (existing != result.end()) result.erase(existing);
      continue;
    }
    if (!directive.empty() && directive != "merge" && directive != "replace")
      throw PatchError("Unknown patch type: " + directive);
    if (existing == result.end()) {
      result.push_back(strategicMerge(json::object(), element, path, meta));
    } else if (directive == "replace") {
      json replacement = element;
      replacement.erase(kPatchDirective);
      *existing = replacement;
    } else {
      *existing = strategicMerge(*existing, element, path, meta);
    }
  }
  return result;
}

// $setElementOrder/<field>: the merged list is put in the order the patch gives.
json reorder(const json& merged, const json& order, const std::string& key) {
  json result = json::array();
  std::vector<bool> taken(merged.size(), false);
  for (const auto& wanted : order) {
    for (std::size_t i = 0; i < merged.size(); ++i) {
      const bool same = key.empty() ? merged[i] == wanted
                                    : merged[i].is_object() && wanted.is_object() && merged[i].contains(key) &&
                                          wanted.contains(key) && merged[i][key] == wanted[key];
      if (!taken[i] && same) {
        result.push_back(merged[i]);
        taken[i] = true;
        break;
      }
    }
  }
  for (std::size_t i = 0; i < merged.size(); ++i)
    if (!taken[i]) result.push_back(merged[i]);
  return result;
}

json strategicMerge(const json& original, const json& patch, const std::string& path, const PatchMeta& meta) {
  if (!patch.is_object()) return patch;
  const std::string directive = patch.value(kPatchDirective, "");
  if (directive == "delete") return nullptr;
  if (directive == "replace") {
    json replacement = patch;
    replacement.erase(kPatchDirective);
    return replacement;
  }
  if (!directive.empty() && directive != "merge") throw PatchError("Unknown patch type: " + directive);
  json result = original.is_object() ? original : json::object();
  if (patch.contains(kRetainKeys)) {
    if (!patch[kRetainKeys].is_array()) throw PatchError("$retainKeys must be a list");
    for (auto it = result.begin(); it != result.end();) {
      const bool retained = std::find(patch[kRetainKeys].begin(), patch[kRetainKeys].end(), it.key()) !=
                            patch[kRetainKeys].end();
      it = retained ? std::next(it) : result.erase(it);
    }
  }
  for (const auto& [key, value] : patch.items()) {
    if (key == kPatchDirective || key == kRetainKeys || startsWith(key, kSetElementOrder)) continue;
    if (startsWith(key, kDeleteFromPrimitiveList)) {
      const std::string field = key.substr(std::string(kDeleteFromPrimitiveList).size());
      if (result.contains(field) && result[field].is_array() && value.is_array())
        for (const auto& doomed : value)
          result[field].erase(std::remove(result[field].begin(), result[field].end(), doomed), result[field].end());
      continue;
    }
    if (startsWith(key, "$")) throw PatchError("unknown patch directive: " + key);
    const std::string path2 = childPath(path, key);
    if (value.is_null()) {
      result.erase(key);
    } else if (value.is_object()) {
      json merged = strategicMerge(result.contains(key) ? result[key] : json(nullptr), value, path2, meta);
      if (merged.is_null()) result.erase(key);
      else result[key] = std::move(merged);
    } else if (value.is_array()) {
      const auto mergeKey = meta.mergeKeys.find(path2);
      const bool replaceList = !value.empty() && value.back().is_object() && value.back().value(kPatchDirective, "") == "replace";
      if (mergeKey != meta.mergeKeys.end() && !replaceList) {
        result[key] = mergeListByKey(result.contains(key) ? result[key] : json::array(), value, mergeKey->second, path2, meta);
      } else {
        json replacement = value;
        if (replaceList) replacement.erase(replacement.size() - 1);
        result[key] = replacement;  // lists without a merge key are atomic
      }
    } else {
      result[key] = value;
    }
  }
  for (const auto& [key, order] : patch.items()) {
    if (!startsWith(key, kSetElementOrder)) continue;
    const std::string field = key.substr(std::string(kSetElementOrder).size());
    if (!result.contains(field) || !result[field].is_array() || !order.is_array()) continue;
    const auto mergeKey = meta.mergeKeys.find(childPath(path, field));
    result[field] = reorder(result[field], order, mergeKey == meta.mergeKeys.end() ? "" : mergeKey->second);
  }
  return result;
}

}  // namespace

json applyMergePatch(const json& original, const json& patch) {
  json result = original;
  result.merge_patch(patch);
  return result;
}

json applyJsonPatch(const json& original, const json& patch, std::size_t maxCopyBytes) {
  if (!patch.is_array()) throw PatchError("json patch must be a list of operations");
  // One operation at a time, so that what each copy adds is counted before it is made: a short
  // patch of copies of an object into itself doubles the object each time (evanphx/json-patch's
  // AccumulatedCopySizeLimit, which kube-apiserver sets to JSONPatchMaxCopyBytes).
  json result = original;
  std::size_t copiedBytes = 0;
  try {
    for (const json& operation : patch) {
      const bool isCopy = operation.is_object() && operation.value("op", json()) == "copy" &&
                          operation.contains("from") && operation["from"].is_string();
      if (isCopy) {
        const json::json_pointer from(operation["from"].get<std::string>());
        // A "from" that does not exist is left to patch_inplace, which names it.
        if (result.contains(from)) copiedBytes += result.at(from).dump().size();
        if (copiedBytes > maxCopyBytes)
          throw PatchError("Unable to complete the copy, the accumulated size increase of copy is " +
                           std::to_string(copiedBytes) + ", exceeding the limit " + std::to_string(maxCopyBytes));
      }
      result.patch_inplace(json::array({operation}));
    }
  } catch (const json::exception& error) {
    throw PatchError(std::string("the json patch could not be applied: ") + error.what());
  }
  return result;
}

json applyStrategicMergePatch(const json& original, const json& patch, const PatchMeta& meta) {
  if (!patch.is_object()) throw PatchError("strategic merge patch must be a JSON object");
  json result = strategicMerge(original, patch, "", meta);
  return result.is_null() ? json::object() : result;
}

}  // namespace fedhpa::api::machinery
