#include "federation/api/machinery/patch.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

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
// Elements are found through an index by merge key (json's ordering agrees with its ==), and a
// deleted one is only marked until the end, so that a position in the index never moves: a patch
// of m elements against a list of n is O((n + m) log n), not O(n·m) on an I/O thread.
json mergeListByKey(const json& original, const json& patch, const std::string& key, const std::string& path,
                    const PatchMeta& meta) {
  std::vector<json> items;
  if (original.is_array()) items.assign(original.begin(), original.end());
  std::vector<bool> deleted(items.size(), false);
  // The positions of the elements not deleted, by their merge key; the first is the one a patch
  // element with that key merges into.
  std::map<json, std::set<std::size_t>> positionsByKey;
  const auto index = [&](std::size_t position) {
    if (items[position].is_object() && items[position].contains(key))
      positionsByKey[items[position][key]].insert(position);
  };
  const auto unindex = [&](std::size_t position) {
    if (!items[position].is_object() || !items[position].contains(key)) return;
    const auto found = positionsByKey.find(items[position][key]);
    found->second.erase(position);
    if (found->second.empty()) positionsByKey.erase(found);
  };
  for (std::size_t position = 0; position < items.size(); ++position) index(position);

  for (const auto& element : patch) {
    if (!element.is_object() || !element.contains(key)) {
      if (element.is_object() && element.value(kPatchDirective, "") == "replace") continue;
      throw PatchError("map: " + element.dump() + " does not contain declared merge key: " + key);
    }
    const auto found = positionsByKey.find(element[key]);
    const bool exists = found != positionsByKey.end();
    const std::size_t existing = exists ? *found->second.begin() : 0;
    const std::string directive = element.value(kPatchDirective, "");
    if (directive == "delete") {
      if (exists) {
        unindex(existing);
        deleted[existing] = true;
      }
      continue;
    }
    if (!directive.empty() && directive != "merge" && directive != "replace")
      throw PatchError("Unknown patch type: " + directive);
    if (!exists) {
      items.push_back(strategicMerge(json::object(), element, path, meta));
      deleted.push_back(false);
      index(items.size() - 1);
      continue;
    }
    // Merging may change the element's key (a null key is dropped), so it is indexed anew.
    unindex(existing);
    if (directive == "replace") {
      json replacement = element;
      replacement.erase(kPatchDirective);
      items[existing] = std::move(replacement);
    } else {
      items[existing] = strategicMerge(items[existing], element, path, meta);
    }
    index(existing);
  }
  json result = json::array();
  for (std::size_t position = 0; position < items.size(); ++position)
    if (!deleted[position]) result.push_back(std::move(items[position]));
  return result;
}

// $setElementOrder/<field>: the merged list is put in the order the patch gives. Each wanted
// element takes the first merged one not yet taken that matches it (the same value, or for a
// list with a merge key the same key), found through an index rather than a scan.
json reorder(const json& merged, const json& order, const std::string& key) {
  const auto identity = [&](const json& element) -> const json* {
    if (key.empty()) return &element;
    return element.is_object() && element.contains(key) ? &element[key] : nullptr;
  };
  // For each identity, the merged positions holding it in order, and how many are taken.
  std::map<json, std::pair<std::vector<std::size_t>, std::size_t>> positionsByIdentity;
  for (std::size_t i = 0; i < merged.size(); ++i)
    if (const json* id = identity(merged[i])) positionsByIdentity[*id].first.push_back(i);
  json result = json::array();
  std::vector<bool> taken(merged.size(), false);
  for (const auto& wanted : order) {
    const json* id = identity(wanted);
    if (!id) continue;
    const auto found = positionsByIdentity.find(*id);
    if (found == positionsByIdentity.end()) continue;
    auto& [positions, used] = found->second;
    if (used == positions.size()) continue;
    const std::size_t position = positions[used++];
    result.push_back(merged[position]);
    taken[position] = true;
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
    const std::set<json> retainedKeys(patch[kRetainKeys].begin(), patch[kRetainKeys].end());
    for (auto it = result.begin(); it != result.end();)
      it = retainedKeys.count(json(it.key())) != 0 ? std::next(it) : result.erase(it);
  }
  for (const auto& [key, value] : patch.items()) {
    if (key == kPatchDirective || key == kRetainKeys || startsWith(key, kSetElementOrder)) continue;
    if (startsWith(key, kDeleteFromPrimitiveList)) {
      const std::string field = key.substr(std::string(kDeleteFromPrimitiveList).size());
      if (result.contains(field) && result[field].is_array() && value.is_array()) {
        // One pass with a set of the values to delete, not one pass per value.
        const std::set<json> doomed(value.begin(), value.end());
        json& list = result[field];
        list.erase(std::remove_if(list.begin(), list.end(), [&](const json& item) { return doomed.count(item) != 0; }),
                   list.end());
      }
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

json createMergePatch(const json& original, const json& modified) {
  if (!original.is_object() || !modified.is_object()) return modified;
  json patch = json::object();
  for (const auto& [key, value] : original.items())
    if (!modified.contains(key) || modified[key].is_null()) patch[key] = nullptr;
  for (const auto& [key, value] : modified.items()) {
    if (value.is_null()) continue;
    const auto before = original.find(key);
    if (before == original.end()) {
      patch[key] = value;
    } else if (*before != value) {
      json inner = before->is_object() && value.is_object() ? createMergePatch(*before, value) : value;
      patch[key] = std::move(inner);
    }
  }
  return patch;
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
