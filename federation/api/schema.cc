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
namespace {

// By assignment rather than aggregate initialization, so that a new member needs no edit here.
Schema scalar(Schema::Type type, bool wide = false) {
  Schema schema;
  schema.type = type;
  schema.wide = wide;
  return schema;
}

}  // namespace

Schema Schema::string() { return scalar(Type::String); }
Schema Schema::integer() { return scalar(Type::Integer); }
Schema Schema::int64() { return scalar(Type::Integer, true); }
Schema Schema::number() { return scalar(Type::Number); }
Schema Schema::boolean() { return scalar(Type::Boolean); }
Schema Schema::intOrString() { return scalar(Type::IntOrString); }
Schema Schema::any() { return scalar(Type::Any); }

Schema Schema::describe(std::string text) const {
  Schema described = *this;
  described.description = std::move(text);
  return described;
}
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
  const Schema ownerReference = Schema::object(
      {{"apiVersion", Schema::string().describe("API group and version of the owner.")},
       {"kind", Schema::string().describe("Kind of the owner.")},
       {"name", Schema::string().describe("Name of the owner, in this object's namespace (or cluster-wide).")},
       {"uid", Schema::string().describe("UID of the owner; the reference is to that one incarnation of the name.")},
       {"controller", Schema::boolean().describe("Whether the owner is the object's managing controller (at most one is).")},
       {"blockOwnerDeletion",
        Schema::boolean().describe("With foreground deletion, the owner is not removed before this object is gone.")}});
  return Schema::object(
      {{"name", Schema::string().describe("Name, unique per kind within the namespace (or the cluster for cluster-wide kinds).")},
       {"generateName",
        Schema::string().describe("When name is empty, the server makes one from this prefix plus a random suffix.")},
       {"namespace", Schema::string().describe("Namespace the object lives in; empty for cluster-wide kinds.")},
       {"selfLink", Schema::string().describe("Deprecated and never set by this server.")},
       {"uid", Schema::string().describe("Set by the server at creation; tells apart objects that reused a name.")},
       {"resourceVersion",
        Schema::string().describe("Opaque version of this object, changed by every write; send it back to update only "
                                  "what you read (optimistic concurrency).")},
       {"generation", Schema::int64().describe("Counts changes to the desired state (spec); status writes leave it alone.")},
       {"creationTimestamp", Schema::any().describe("When the server created the object (RFC 3339, UTC). Read-only.")},
       {"deletionTimestamp",
        Schema::any().describe("Set when deletion was requested; the object goes once its finalizers are all removed.")},
       {"deletionGracePeriodSeconds", Schema::int64().describe("Grace period, in seconds, the pending deletion was given.")},
       {"labels", Schema::mapOf(Schema::string()).describe("Key/value pairs that label and field selectors filter on.")},
       {"annotations",
        Schema::mapOf(Schema::string()).describe("Free-form key/value data kept with the object; not used for selection.")},
       {"ownerReferences",
        Schema::arrayOf(ownerReference)
            .keyedBy({"uid"})
            .describe("Objects this one depends on; deleting them cascades to it unless orphaned.")},
       {"finalizers",
        Schema::arrayOf(Schema::string())
            .asSet()
            .describe("Names of cleanups that must finish before a deleted object disappears; each is removed by its owner.")},
       {"managedFields", Schema::arrayOf(Schema::any()).describe("Which manager (client) set which fields, by operation.")}});
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
  fields["apiVersion"] = Schema::string().describe("Group and version of this representation, e.g. autoscaling/v2.");
  fields["kind"] = Schema::string().describe("The object's type, in CamelCase (e.g. HorizontalPodAutoscaler).");
  fields["metadata"] =
      objectMeta().describe("Name, namespace, labels, annotations and what the server tracks about every object.");
  return Schema::object(std::move(fields));
}

Schema labelSelectorSchema() {
  const Schema requirement = Schema::object(
      {{"key", Schema::string().describe("The label key the requirement is about.")},
       {"operator", Schema::string().describe("In, NotIn, Exists or DoesNotExist.")},
       {"values", Schema::arrayOf(Schema::string())
                      .describe("Values for In and NotIn (at least one); must be empty for Exists and DoesNotExist.")}});
  return Schema::object(
      {{"matchLabels", Schema::mapOf(Schema::string()).describe("Labels that must all be present with exactly these values.")},
       {"matchExpressions",
        Schema::arrayOf(requirement).describe("Further requirements, all of which must hold (AND-ed with matchLabels).")}});
}

Schema conditionsSchema() {
  return Schema::arrayOf(Schema::object(
      {{"type", Schema::string().describe("Which aspect of the object the condition is about; one entry per type.")},
       {"status", Schema::string().describe("True, False or Unknown.")},
       {"lastProbeTime", Schema::any().describe("When the condition was last checked.")},
       {"lastUpdateTime", Schema::any().describe("When the condition was last written.")},
       {"lastTransitionTime", Schema::any().describe("When status last changed value.")},
       {"reason", Schema::string().describe("One CamelCase word saying why status is what it is.")},
       {"message", Schema::string().describe("A sentence for people with the details behind reason.")}}))
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

namespace {

json openApiShape(const Schema& schema) {
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

}  // namespace

json toOpenApi(const Schema& schema) {
  json shape = openApiShape(schema);
  if (!schema.description.empty()) shape["description"] = schema.description;
  return shape;
}

}  // namespace fedhpa::api
