// Kubernetes' generated protobuf messages described as tables: per message, field number -> JSON
// name and kind, nested messages referenced by name. One codec walks a table in either direction
// (protobuf -> the JSON Go's encoding/json would have written for the same Go struct, and back),
// so adding a type is a table, not code. The numbers are the facts of Kubernetes' generated.proto
// files; the tables are split by API group (protobuf_tables_*.cc).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fedhpa::api::machinery {

enum class ProtoKind : std::uint8_t {
  String,
  Bytes,          // base64 in JSON
  Int32,          // varint, sign-extended when negative
  Int64,
  Bool,
  Message,        // a nested message, `message` names its table
  Inline,         // an embedded Go struct (json:",inline"): its fields appear in the parent's JSON
  StringMap,      // map<string, string>
  BytesMap,       // map<string, bytes>: base64 values in JSON (Secret data)
  QuantityMap,    // map<string, Quantity> (ResourceList)
  StringListMap,  // map<string, {repeated string items}> (SubjectAccessReview extra)
  Quantity,       // resource.Quantity {1 string}: a string (or number) in JSON
  IntOrString,    // intstr.IntOrString {1 type, 2 intVal, 3 strVal}
  Time,           // metav1.Time {1 seconds, 2 nanos}: RFC 3339, second precision
  MicroTime,      // metav1.MicroTime: RFC 3339 with six fraction digits
  JsonBytes,      // a message whose field 1 holds JSON text (FieldsV1, RawExtension): that JSON
};

// How a Go field is declared, which decides what each direction writes:
//  Value    non-pointer, json omitempty: always encoded (its zero value too); decoded zero scalars
//           are left out of the JSON, structs are kept (encoding/json never omits a struct)
//  Always   non-pointer without omitempty: always encoded, always in the JSON
//  Pointer  encoded only when the JSON holds it; decoded as given, zero included
//  Repeated a list; one field per element, the JSON an array
enum class Presence : std::uint8_t { Value, Always, Pointer, Repeated };

struct ProtoField {
  std::uint32_t number;
  std::string json;
  ProtoKind kind;
  Presence presence = Presence::Value;
  std::string message = {};  // Message and Inline: the table's name
};

struct ProtoMessage {
  std::vector<ProtoField> fields;  // ascending field numbers
};

// Every table, and which top-level (apiVersion, kind) is which table.
class ProtoRegistry {
 public:
  void add(std::string name, std::vector<ProtoField> fields);
  void addKind(std::string apiVersion, std::string kind, std::string message);

  const ProtoMessage& message(const std::string& name) const;  // throws ProtobufError for an unknown name
  // The table of a top-level kind, or nullptr when that kind has no protobuf form here.
  const std::string* kindMessage(const std::string& apiVersion, const std::string& kind) const;
  bool hasGroup(std::string_view group) const;  // "" for core

 private:
  std::map<std::string, ProtoMessage, std::less<>> messages_;
  std::map<std::pair<std::string, std::string>, std::string> kinds_;
};

// The tables of every built-in type fedhpa serves, built on first use and never changed.
const ProtoRegistry& kubernetesProtoTypes();

// One message's bytes -> JSON, and back. Unknown field numbers are skipped (Go's unmarshallers do
// the same); a known field with the wrong wire type or bad contents is a ProtobufError. JSON members
// the table does not know are not encoded. A repeated integer is written one field per element, as
// Kubernetes' generated marshallers write proto2, and read in that form or packed, as they read it.
nlohmann::json decodeProtoMessage(const ProtoRegistry& registry, const std::string& name, std::string_view bytes);
std::string encodeProtoMessage(const ProtoRegistry& registry, const std::string& name, const nlohmann::json& object);
// Rewrites every resource.Quantity the message's table locates in the object (Quantity fields and
// ResourceList values) in canonical form (canonical_quantity.h); text that is not a quantity stays.
void canonicalizeQuantities(const ProtoRegistry& registry, const std::string& name, nlohmann::json& object);

// Field constructors for the tables: kind, Go declaration, JSON name.
namespace proto {
inline constexpr Presence kPointer = Presence::Pointer;
inline constexpr Presence kAlways = Presence::Always;
ProtoField str(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField strs(std::uint32_t number, std::string json);
ProtoField bytes(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField i32(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField i64(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField i64s(std::uint32_t number, std::string json);
ProtoField boolean(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField msg(std::uint32_t number, std::string json, std::string message, Presence presence = Presence::Value);
ProtoField msgs(std::uint32_t number, std::string json, std::string message);
ProtoField inlined(std::uint32_t number, std::string message);
ProtoField map(std::uint32_t number, std::string json, ProtoKind kind = ProtoKind::StringMap);
ProtoField quantity(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField intOrString(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField time(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField microTime(std::uint32_t number, std::string json, Presence presence = Presence::Value);
ProtoField jsonBytes(std::uint32_t number, std::string json, Presence presence = Presence::Pointer);
}  // namespace proto

// The tables of each API group, added by kubernetesProtoTypes().
void addMetaTables(ProtoRegistry& registry);
void addCoreTables(ProtoRegistry& registry);
void addAppsAndAutoscalingTables(ProtoRegistry& registry);
void addAuthTables(ProtoRegistry& registry);  // rbac, authorization, authentication, coordination

}  // namespace fedhpa::api::machinery
