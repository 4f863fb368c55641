// Sets of fields of an object, as server-side apply records them in metadata.managedFields: a tree
// of path elements ("f:spec", "k:{\"type\":\"Ready\"}" for a list-map entry, "v:\"foo\"" for a set
// member), each node either a member of the set (a field someone owns) or only the way to one.
// The fields of a value, and the difference of two values, are read off the type's Schema.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "federation/api/schema.h"

namespace fedhpa::apiserver {

// Encoded path elements, as fieldsV1 spells them: "f:name", "k:{...}", "v:...", "i:0".
using FieldPath = std::vector<std::string>;

class FieldSet {
 public:
  bool empty() const;
  void insert(const FieldPath& path);
  bool has(const FieldPath& path) const;
  // The path or any field under it is a member.
  bool hasAtOrBelow(const FieldPath& path) const;

  // Member by member, as structured-merge-diff's set operations: removing a node leaves its
  // children.
  FieldSet unite(const FieldSet& other) const;
  FieldSet minus(const FieldSet& other) const;
  FieldSet intersect(const FieldSet& other) const;
  std::vector<FieldPath> members() const;  // in key order
  bool operator==(const FieldSet& other) const;

  // metadata.managedFields[].fieldsV1: a member with children is written as ".".
  nlohmann::json toFieldsV1() const;
  // Throws std::invalid_argument on anything but a well-formed fieldsV1 object.
  static FieldSet fromFieldsV1(const nlohmann::json& fields);

 private:
  void collect(FieldPath& prefix, std::vector<FieldPath>& out) const;
  void prune();

  bool member_ = false;
  std::map<std::string, FieldSet> children_;
};

// ".spec.maxReplicas", ".status.conditions[type=\"Ready\"]": a path as kube-apiserver's conflict
// messages and causes name it.
std::string pathString(const FieldPath& path);

// What structured-merge-diff's ToFieldSet gives: every leaf, list-map entry and set member the
// value sets (an object's own node only when it is empty; a map's entries each).
FieldSet fieldsOf(const nlohmann::json& value, const api::Schema* schema);

struct FieldComparison {
  FieldSet added, modified, removed;
  bool same() const { return added.empty() && modified.empty() && removed.empty(); }
};
// The fields that differ between two values of the same type.
FieldComparison compareFields(const nlohmann::json& before, const nlohmann::json& after, const api::Schema* schema);

// Apply's merge: config's fields over live's, list-maps and sets entry by entry, everything
// else (atomic lists included) replaced whole.
nlohmann::json mergeApplied(const nlohmann::json& live, const nlohmann::json& config, const api::Schema* schema);
// Removes the field at path from value, if it is there.
void removeField(nlohmann::json& value, const FieldPath& path);

}  // namespace fedhpa::apiserver
