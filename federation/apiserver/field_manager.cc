#include "federation/apiserver/field_manager.h"

#include <algorithm>
#include <tuple>

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

constexpr const char* kApply = "Apply";
constexpr const char* kUpdate = "Update";

std::string subresourceName(Subresource subresource) { return subresource == Subresource::Status ? "status" : ""; }

const json* managedFieldsOf(const json& object) {
  if (!object.is_object()) return nullptr;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return nullptr;
  const auto list = meta->find("managedFields");
  return list == meta->end() || list->is_null() ? nullptr : &*list;
}

std::vector<ManagedFieldsEntry> liveEntries(const json& live) {
  const json* list = managedFieldsOf(live);
  if (!list) return {};
  // Garbage in the stored entries is dropped, as kube-apiserver does when it cannot decode them.
  return decodeManagedFields(*list).value_or(std::vector<ManagedFieldsEntry>{});
}

// [{}]: the documented way to strip managedFields.
bool isReset(const json& list) {
  return list.is_array() && !list.empty() &&
         std::all_of(list.begin(), list.end(), [](const json& entry) { return entry.is_object() && entry.empty(); });
}

// kube-apiserver's decodeLiveOrNew.
std::vector<ManagedFieldsEntry> baseEntries(const json& live, const json& proposed, Subresource subresource) {
  const json* sent = managedFieldsOf(proposed);
  if (subresource != Subresource::Main || !sent) return liveEntries(live);
  if (isReset(*sent)) return {};
  auto decoded = decodeManagedFields(*sent);
  if (!decoded || decoded->empty()) return liveEntries(live);
  return std::move(*decoded);
}

ManagedFieldsEntry* findEntry(std::vector<ManagedFieldsEntry>& entries, const std::string& manager,
                              const std::string& operation, const std::string& apiVersion, const std::string& subresource) {
  for (auto& entry : entries)
    // An applier is one manager whatever version it applies in; an updater is one per version.
    if (entry.manager == manager && entry.operation == operation && entry.subresource == subresource &&
        (operation == kApply || entry.apiVersion == apiVersion))
      return &entry;
  return nullptr;
}

void dropEmpty(std::vector<ManagedFieldsEntry>& entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(), [](const auto& entry) { return entry.fields.empty(); }),
                entries.end());
}

void setManagedFields(json& object, std::vector<ManagedFieldsEntry> entries) {
  // An empty list tells the store to drop the field (a missing one keeps the stored entries).
  object["metadata"]["managedFields"] = encodeManagedFields(std::move(entries));
}

// kube-apiserver's printManager.
std::string describeManager(const ManagedFieldsEntry& entry) {
  std::string out = api::quoted(entry.manager);
  if (!entry.subresource.empty()) out += " with subresource " + api::quoted(entry.subresource);
  if (entry.operation == kUpdate) out += " using " + entry.apiVersion;
  return out;
}

struct Conflict {
  std::string manager;  // as described in messages
  FieldPath path;
};

api::ApiError conflictError(std::vector<Conflict> conflicts) {
  std::sort(conflicts.begin(), conflicts.end(), [](const Conflict& a, const Conflict& b) {
    return a.manager != b.manager ? a.manager < b.manager : pathString(a.path) < pathString(b.path);
  });
  json causes = json::array();
  for (const auto& conflict : conflicts)
    causes.push_back({{"reason", "FieldManagerConflict"},
                      {"message", "conflict with " + conflict.manager},
                      {"field", pathString(conflict.path)}});
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + conflicts.front().manager + ": " +
              pathString(conflicts.front().path);
  } else {
    std::string lines;
    std::string manager;
    for (const auto& conflict : conflicts) {
      if (conflict.manager != manager || lines.empty()) {
        manager = conflict.manager;
        lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + manager + ":";
      }
      lines += "\n- " + pathString(conflict.path);
    }
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
  }
  return api::ApiError(409, "Conflict", message, json{{"causes", causes}});
}

}  // namespace

std::optional<std::vector<ManagedFieldsEntry>> decodeManagedFields(const json& list) {
  if (!list.is_array()) return std::nullopt;
  std::vector<ManagedFieldsEntry> out;
  const auto text = [](const json& entry, const char* field) -> std::optional<std::string> {
    const auto it = entry.find(field);
    if (it == entry.end() || it->is_null()) return std::string();
    if (!it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  for (const auto& item : list) {
    if (!item.is_object()) return std::nullopt;
    ManagedFieldsEntry entry;
    const auto manager = text(item, "manager"), operation = text(item, "operation"),
               apiVersion = text(item, "apiVersion"), subresource = text(item, "subresource"),
               time = text(item, "time"), fieldsType = text(item, "fieldsType");
    if (!manager || !operation || !apiVersion || !subresource || !time || !fieldsType) return std::nullopt;
    if (*operation != kApply && *operation != kUpdate) return std::nullopt;
    if (!fieldsType->empty() && *fieldsType != "FieldsV1") return std::nullopt;
    entry.manager = *manager;
    entry.operation = *operation;
    entry.apiVersion = *apiVersion;
    entry.subresource = *subresource;
    entry.time = *time;
    if (item.contains("fieldsV1") && !item["fieldsV1"].is_null()) {
      try {
        entry.fields = FieldSet::fromFieldsV1(item["fieldsV1"]);
      } catch (const std::invalid_argument&) {
        return std::nullopt;
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json encodeManagedFields(std::vector<ManagedFieldsEntry> entries) {
  // kube-apiserver's order: appliers first, then by time, manager, apiVersion, subresource.
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.operation, a.time, a.manager, a.apiVersion, a.subresource) <
           std::tie(b.operation, b.time, b.manager, b.apiVersion, b.subresource);
  });
  json out = json::array();
  for (const auto& entry : entries) {
    json item = {{"manager", entry.manager},
                 {"operation", entry.operation},
                 {"apiVersion", entry.apiVersion},
                 {"fieldsType", "FieldsV1"},
                 {"fieldsV1", entry.fields.toFieldsV1()}};
    if (!entry.time.empty()) item["time"] = entry.time;
    if (!entry.subresource.empty()) item["subresource"] = entry.subresource;
    out.push_back(std::move(item));
  }
  return out;
}

FieldManager::FieldManager(const api::ResourceType& type) : type_(type), schema_(type.storageSchema()) {}

json FieldManager::managedView(const json& object, Subresource subresource) const {
  json out = json::object();
  if (!object.is_object()) return out;
  if (subresource == Subresource::Status) {
    if (object.contains("status")) out["status"] = object["status"];
    return out;
  }
  out = object;
  out.erase("apiVersion");
  out.erase("kind");
  if (type_.hasStatusSubresource()) out.erase("status");
  if (out.contains("metadata") && out["metadata"].is_object()) {
    json& meta = out["metadata"];
    for (const char* field : {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                              "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "managedFields"})
      meta.erase(field);
    if (meta.empty()) out.erase("metadata");
  }
  return out;
}

json FieldManager::update(const json& live, json proposed, const WriteContext& context) const {
  if (!proposed.is_object()) return proposed;  // the store refuses it
  if (!proposed["metadata"].is_object()) proposed["metadata"] = json::object();
  type_.applyDefaults(proposed);
  auto entries = baseEntries(live, proposed, context.subresource);
  const auto comparison =
      compareFields(managedView(live, context.subresource), managedView(proposed, context.subresource), schema_);
  const FieldSet changed = comparison.modified.unite(comparison.added);
  for (auto& entry : entries) entry.fields = entry.fields.minus(changed).minus(comparison.removed);
  if (!changed.empty()) {
    const std::string subresource = subresourceName(context.subresource);
    ManagedFieldsEntry* mine = findEntry(entries, context.manager, kUpdate, context.apiVersion, subresource);
    if (!mine) {
      entries.push_back({context.manager, kUpdate, context.apiVersion, subresource, "", {}});
      mine = &entries.back();
    }
    mine->fields = mine->fields.unite(changed);
    mine->time = context.now;
  }
  dropEmpty(entries);
  setManagedFields(proposed, std::move(entries));
  return proposed;
}

json FieldManager::apply(const json& live, const json& config, const WriteContext& context, bool force) const {
  const std::string subresource = subresourceName(context.subresource);
  auto entries = liveEntries(live);
  const FieldSet applied = fieldsOf(managedView(config, context.subresource), schema_);
  json merged = mergeApplied(live.is_object() ? live : json::object(), config, schema_);
  if (!merged["metadata"].is_object()) merged["metadata"] = json::object();

  ManagedFieldsEntry* self = findEntry(entries, context.manager, kApply, "", subresource);
  const bool firstApply = self == nullptr;
  const FieldSet previous = self ? self->fields : FieldSet{};
  // What the applier no longer applies goes, unless another manager (or this apply) holds it or
  // something under it.
  FieldSet owned = applied;
  for (const auto& entry : entries)
    if (&entry != self) owned = owned.unite(entry.fields);
  for (const auto& path : previous.minus(applied).members())
    if (!owned.hasAtOrBelow(path)) removeField(merged, path);
  type_.applyDefaults(merged);

  const json liveView = managedView(live, context.subresource);
  const json mergedView = managedView(merged, context.subresource);
  const auto comparison = compareFields(liveView, mergedView, schema_);
  const FieldSet changed = comparison.modified.unite(comparison.added);
  std::vector<Conflict> conflicts;
  for (const auto& entry : entries) {
    if (&entry == self) continue;
    for (const auto& path : entry.fields.intersect(changed).members()) conflicts.push_back({describeManager(entry), path});
  }
  if (!force && !conflicts.empty()) throw conflictError(std::move(conflicts));
  // Forced (or uncontested): the fields this apply changed are its own now, and removed ones no one's.
  for (auto& entry : entries)
    if (&entry != self) entry.fields = entry.fields.minus(changed).minus(comparison.removed);
  if (!self) {
    entries.push_back({context.manager, kApply, context.apiVersion, subresource, "", {}});
    self = &entries.back();
  }
  // An apply that changes nothing keeps its entry's time, so that the object is not rewritten.
  if (firstApply || liveView != mergedView || !(previous == applied)) self->time = context.now;
  self->fields = applied;
  self->apiVersion = context.apiVersion;
  dropEmpty(entries);
  setManagedFields(merged, std::move(entries));
  return merged;
}

}  // namespace fedhpa::apiserver
