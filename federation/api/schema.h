// A small description of a served type's fields, written once per type and version. From it come
// the unknown-field list (fieldValidation), the JSON type checks of request bodies, and the
// OpenAPI v3 schemas, so no field list is written twice.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fedhpa::api {

struct Schema {
  enum class Type { Object, Array, Map, String, Integer, Number, Boolean, IntOrString, Any };
  Type type = Type::Any;
  std::map<std::string, Schema> properties;  // Object
  std::vector<Schema> element;               // Array items / Map values: exactly one entry
  bool wide = false;                         // Integer: Go's int64 rather than int32
  std::string description;                   // what `kubectl explain` prints for this field (or type)
  // Array: how server-side apply merges it (Kubernetes' +listType). Atomic unless declared: a
  // list-map's entries are told apart by these fields (+listMapKey), a set's by their value.
  std::vector<std::string> listMapKeys = {};
  bool listSet = false;

  static Schema object(std::map<std::string, Schema> properties);
  static Schema arrayOf(Schema element);
  static Schema mapOf(Schema element);
  static Schema string();
  static Schema integer();  // int32, as almost every integer of the Kubernetes API
  static Schema int64();    // generation, observedGeneration, *GracePeriodSeconds
  static Schema number();
  static Schema boolean();
  static Schema intOrString();
  static Schema any();

  // Schema::integer().describe("..."): a copy carrying `text` as its description.
  Schema describe(std::string text) const;
  // Modifiers of an Array: Schema::arrayOf(container()).keyedBy({"name"}).
  Schema keyedBy(std::vector<std::string> keys) &&;
  Schema asSet() &&;
};

// The object every served type shares: apiVersion, kind, metadata (ObjectMeta), plus its own fields.
// Describe the type itself with .describe() on the result.
Schema topLevel(std::map<std::string, Schema> fields);
Schema labelSelectorSchema();
Schema conditionsSchema();

// "spec.foo", "spec.metrics[0].resource.foo": fields the schema does not declare.
std::vector<std::string> unknownFields(const nlohmann::json& value, const Schema& schema);
// Removes them.
void dropUnknownFields(nlohmann::json& value, const Schema& schema);
// "spec.maxReplicas: expected integer, got string": values of the wrong JSON type.
std::vector<std::string> typeErrors(const nlohmann::json& value, const Schema& schema);
nlohmann::json toOpenApi(const Schema& schema);

}  // namespace fedhpa::api
