#include "federation/api/schema.h"

#include <cstdint>

namespace fedhpa::api {

using nlohmann::json;

Schema Schema::object(std::map<std::string, Schema> properties) {
  Schema schema;
  schema.type = Type::Object;
  schema.properties = std::move(properties);
  return schema;
}
Schema Schema::arrayOf(Schema element) {
  Schema schema;
  schema.type = Type::Array;
  schema.element.push_back(std::move(element));
  return schema;
}
Schema Schema::mapOf(Schema element) {
  Schema schema;
  schema.type = Type::Map;
  schema.element.push_back(std::move(element));
  return schema;
}
Schema Schema::string() { return Schema{Type::String, {}, {}}; }
Schema Schema::integer() { return Schema{Type::Integer, {}, {}}; }
Schema Schema::int64() { return Schema{Type::Integer, {}, {}, true}; }
Schema Schema::number() { return Schema{Type::Number, {}, {}}; }
Schema Schema::boolean() { return Schema{Type::Boolean, {}, {}}; }
Schema Schema::intOrString() { return Schema{Type::IntOrString, {}, {}}; }
Schema Schema::any() { return Schema{Type::Any, {}, {}}; }
Schema Schema::keyedBy(std::vector<std::string> keys) && {
  listMapKeys = std::move(keys);
  return std::move(*this);
}
Schema Schema::asSet() && {
  listSet = true;
  return std::move(*this);
}

namespace {

Schema objectMeta() {
  const Schema ownerReference = Schema::object({{"apiVersion", Schema::string()},
                                                {"kind", Schema::string()},
                                                {"name", Schema::string()},
                                                {"uid", Schema::string()},
                                                {"controller", Schema::boolean()},
                                                {"blockOwnerDeletion", Schema::boolean()}});
  return Schema::object({{"name", Schema::string()},
                         {"generateName", Schema::string()},
                         {"namespace", Schema::string()},
                         {"selfLink", Schema::string()},
                         {"uid", Schema::string()},
                         {"resourceVersion", Schema::string()},
                         {"generation", Schema::int64()},
                         {"creationTimestamp", Schema::any()},
                         {"deletionTimestamp", Schema::any()},
                         {"deletionGracePeriodSeconds", Schema::int64()},
                         {"labels", Schema::mapOf(Schema::string())},
                         {"annotations", Schema::mapOf(Schema::string())},
                         {"ownerReferences", Schema::arrayOf(ownerReference).keyedBy({"uid"})},
                         {"finalizers", Schema::arrayOf(Schema::string()).asSet()},
                         {"managedFields", Schema::arrayOf(Schema::any())}});
}

std::string childPath(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

const char* jsonTypeName(const json& value) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_number()) return value.is_number_integer() ? "integer" : "number";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  return "null";
}

void walk(const json& value, const Schema& schema, const std::string& path, std::vector<std::string>* unknown,
          std::vector<std::string>* wrongType) {
  if (value.is_null()) return;  // null means "unset" for every field, as in Go's decoder
  auto expect = [&](bool ok, const char* wanted) {
    if (!ok && wrongType) wrongType->push_back(path + ": expected " + wanted + ", got " + jsonTypeName(value));
    return ok;
  };
  switch (schema.type) {
    case Schema::Type::Any:
      return;
    case Schema::Type::String:
      expect(value.is_string(), "string");
      return;
    case Schema::Type::Integer:
      // As Go's decoder: an integer literal (not 5.0, not 1e3) within the field's Go type.
      if (!expect(value.is_number_integer(), "integer")) return;
      if (schema.wide ? value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t{INT64_MAX}
                       : value.get<std::int64_t>() < INT32_MIN || value.get<std::int64_t>() > INT32_MAX ||
                             (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t{INT32_MAX}))
        if (wrongType) wrongType->push_back(path + ": " + value.dump() + " overflows " + (schema.wide ? "int64" : "int32"));
      return;
    case Schema::Type::Number:
      expect(value.is_number(), "number");
      return;
    case Schema::Type::Boolean:
      expect(value.is_boolean(), "boolean");
      return;
    case Schema::Type::IntOrString:
      expect(value.is_string() || value.is_number_integer(), "integer or string");
      return;
    case Schema::Type::Array:
      if (!expect(value.is_array(), "array")) return;
      for (std::size_t i = 0; i < value.size(); ++i)
        walk(value[i], schema.element.front(), path + "[" + std::to_string(i) + "]", unknown, wrongType);
      return;
    case Schema::Type::Map:
      if (!expect(value.is_object(), "object")) return;
      for (const auto& [key, item] : value.items()) walk(item, schema.element.front(), childPath(path, key), unknown, wrongType);
      return;
    case Schema::Type::Object:
      if (!expect(value.is_object(), "object")) return;
      for (const auto& [key, item] : value.items()) {
        const auto field = schema.properties.find(key);
        if (field == schema.properties.end()) {
          if (unknown) unknown->push_back(childPath(path, key));
          continue;
        }
        walk(item, field->second, childPath(path, key), unknown, wrongType);
      }
      return;
  }
}

}  // namespace

Schema topLevel(std::map<std::string, Schema> fields) {
  fields["apiVersion"] = Schema::string();
  fields["kind"] = Schema::string();
  fields["metadata"] = objectMeta();
  return Schema::object(std::move(fields));
}

Schema labelSelectorSchema() {
  return Schema::object(
      {{"matchLabels", Schema::mapOf(Schema::string())},
       {"matchExpressions", Schema::arrayOf(Schema::object({{"key", Schema::string()},
                                                            {"operator", Schema::string()},
                                                            {"values", Schema::arrayOf(Schema::string())}}))}});
}

Schema conditionsSchema() {
  return Schema::arrayOf(Schema::object({{"type", Schema::string()},
                                         {"status", Schema::string()},
                                         {"lastProbeTime", Schema::any()},
                                         {"lastUpdateTime", Schema::any()},
                                         {"lastTransitionTime", Schema::any()},
                                         {"reason", Schema::string()},
                                         {"message", Schema::string()}}))
      .keyedBy({"type"});
}

std::vector<std::string> unknownFields(const json& value, const Schema& schema) {
  std::vector<std::string> unknown;
  walk(value, schema, "", &unknown, nullptr);
  return unknown;
}

void dropUnknownFields(json& value, const Schema& schema) {
  switch (schema.type) {
    case Schema::Type::Array:
    case Schema::Type::Map:
      if ((schema.type == Schema::Type::Array && value.is_array()) || (schema.type == Schema::Type::Map && value.is_object()))
        for (auto it = value.begin(); it != value.end(); ++it) dropUnknownFields(*it, schema.element.front());
      return;
    case Schema::Type::Object:
      if (!value.is_object()) return;
      for (auto it = value.begin(); it != value.end();) {
        const auto field = schema.properties.find(it.key());
        if (field == schema.properties.end()) {
          it = value.erase(it);
        } else {
          dropUnknownFields(*it, field->second);
          ++it;
        }
      }
      return;
    default:
      return;
  }
}

std::vector<std::string> typeErrors(const json& value, const Schema& schema) {
  std::vector<std::string> errors;
  walk(value, schema, "", nullptr, &errors);
  return errors;
}

json toOpenApi(const Schema& schema) {
  switch (schema.type) {
    case Schema::Type::Object: {
      json properties = json::object();
      for (const auto& [name, field] : schema.properties) properties[name] = toOpenApi(field);
      return {{"type", "object"}, {"properties", properties}};
    }
    case Schema::Type::Array:
      return {{"type", "array"}, {"items", toOpenApi(schema.element.front())}};
    case Schema::Type::Map:
      return {{"type", "object"}, {"additionalProperties", toOpenApi(schema.element.front())}};
    case Schema::Type::String:
      return {{"type", "string"}};
    case Schema::Type::Integer:
      return {{"type", "integer"}, {"format", schema.wide ? "int64" : "int32"}};
    case Schema::Type::Number:
      return {{"type", "number"}};
    case Schema::Type::Boolean:
      return {{"type", "boolean"}};
    case Schema::Type::IntOrString:
      return {{"x-kubernetes-int-or-string", true}};
    case Schema::Type::Any:
      return {{"x-kubernetes-preserve-unknown-fields", true}};
  }
  return json::object();
}

}  // namespace fedhpa::api
