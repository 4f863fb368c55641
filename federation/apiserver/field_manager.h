// kube-apiserver's field manager: who set which field. Every write records its manager in
// metadata.managedFields (operation Update for create, update and patch, Apply for server-side
// apply), one entry per manager, operation, apiVersion (Update only) and subresource, each with
// the set of fields it owns. Apply merges a configuration into the live object, removes the
// fields its manager stopped applying (when no one else owns them) and refuses, with a 409, to
// change fields another manager owns, unless forced. Works on the stored form only.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "federation/api/resource.h"
#include "federation/apiserver/field_set.h"
#include "federation/apiserver/resource_store.h"

namespace fedhpa::apiserver {

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;   // "Apply" or "Update"
  std::string apiVersion;  // of the request that wrote these fields
  std::string subresource;  // "" or "status"
  std::string time;         // RFC 3339, of the last change this entry made
  FieldSet fields;
};

// Entries of metadata.managedFields; nullopt when one is malformed.
std::optional<std::vector<ManagedFieldsEntry>> decodeManagedFields(const nlohmann::json& list);
nlohmann::json encodeManagedFields(std::vector<ManagedFieldsEntry> entries);

struct WriteContext {
  std::string manager;
  std::string apiVersion;  // "autoscaling/v2": the version of the request
  Subresource subresource = Subresource::Main;
  std::string now;         // RFC 3339, recorded on the entries this write changes
};

class FieldManager {
 public:
  explicit FieldManager(const api::ResourceType& type);

  // A create (live = {}), update or non-apply patch: proposed, defaulted, with managedFields. The
  // managedFields a client sends replace the live ones when they decode (an entry list of one
  // empty entry, [{}], clears them); otherwise, and always on a subresource, the live ones count.
  nlohmann::json update(const nlohmann::json& live, nlohmann::json proposed, const WriteContext& context) const;
  // Apply of config (stored form) onto live ({} when the object does not exist). Throws a 409
  // Conflict naming the fields other managers own that config would change, unless force.
  nlohmann::json apply(const nlohmann::json& live, const nlohmann::json& config, const WriteContext& context,
                       bool force) const;

 private:
  // The part of an object whose fields are managed: without apiVersion, kind, the metadata the
  // server owns, and the status (main resource of a type with a status subresource) or everything
  // but the status (the status subresource).
  nlohmann::json managedView(const nlohmann::json& object, Subresource subresource) const;

  const api::ResourceType& type_;
  const api::Schema* schema_;
};

}  // namespace fedhpa::apiserver
