#include "federation/api/machinery/protobuf_schema.h"

#include <chrono>
#include <cstdio>

#include "federation/api/machinery/base64.h"
#include "federation/api/machinery/canonical_quantity.h"
#include "federation/api/machinery/protobuf_wire.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/time.h"

namespace fedhpa::api::machinery {

using nlohmann::json;

void ProtoRegistry::add(std::string name, std::vector<ProtoField> fields) {
  messages_[std::move(name)] = ProtoMessage{std::move(fields)};
}

void ProtoRegistry::addKind(std::string apiVersion, std::string kind, std::string message) {
  kinds_[{std::move(apiVersion), std::move(kind)}] = std::move(message);
}

const ProtoMessage& ProtoRegistry::message(const std::string& name) const {
  const auto it = messages_.find(name);
  if (it == messages_.end()) throw ProtobufError("no protobuf table named " + name);
  return it->second;
}

const std::string* ProtoRegistry::kindMessage(const std::string& apiVersion, const std::string& kind) const {
  const auto it = kinds_.find({apiVersion, kind});
  return it == kinds_.end() ? nullptr : &it->second;
}

bool ProtoRegistry::hasGroup(std::string_view group) const {
  for (const auto& [key, message] : kinds_) {
    const std::string& apiVersion = key.first;
    const std::size_t slash = apiVersion.find('/');
    if ((slash == std::string::npos ? std::string_view() : std::string_view(apiVersion).substr(0, slash)) == group) return true;
  }
  return false;
}

const ProtoRegistry& kubernetesProtoTypes() {
  static const ProtoRegistry registry = [] {
    ProtoRegistry tables;
    addMetaTables(tables);
    addCoreTables(tables);
    addAppsAndAutoscalingTables(tables);
    addAuthTables(tables);
    return tables;
  }();
  return registry;
}

namespace {

using Field = WireReader::Field;

// system_clock counts nanoseconds in 64 bits: years 1678 to 2262.
constexpr std::int64_t kMaxSeconds = 9'000'000'000;

bool isLengthDelimited(ProtoKind kind) {
  return kind != ProtoKind::Int32 && kind != ProtoKind::Int64 && kind != ProtoKind::Bool;
}

std::string fieldName(const ProtoField& field) { return "field " + std::to_string(field.number) + " (" + field.json + ")"; }

std::string text(const ProtoField& field, std::string_view bytes) {
  // Go accepts any bytes in a string field, but the object is JSON from here on, and JSON strings are UTF-8.
  if (!isValidUtf8(bytes)) throw ProtobufError(fieldName(field) + " is not valid UTF-8");
  return std::string(bytes);
}

template <typename Handler>
void forEachField(std::string_view message, Handler&& handle) {
  WireReader reader(message);
  while (!reader.done()) handle(reader.next());
}

std::string formatTime(const ProtoField& field, std::string_view bytes, bool micro) {
  std::int64_t seconds = 0;
  std::int64_t nanos = 0;
  forEachField(bytes, [&](const Field& f) {
    if (f.wireType != 0) return;
    if (f.number == 1) seconds = static_cast<std::int64_t>(f.varint);
    if (f.number == 2) nanos = static_cast<std::int32_t>(f.varint);
  });
  if (seconds < -kMaxSeconds || seconds > kMaxSeconds || nanos < 0 || nanos > 999'999'999)
    throw ProtobufError(fieldName(field) + " holds a time out of range");
  const std::chrono::system_clock::time_point point{std::chrono::seconds{seconds}};
  std::string out = api::formatRfc3339(point);
  if (micro) {
    char fraction[8];
    std::snprintf(fraction, sizeof fraction, ".%06lld", static_cast<long long>(nanos / 1000));
    out.insert(out.size() - 1, fraction);
  }
  return out;
}

std::string quantityText(const ProtoField& field, std::string_view bytes) {
  std::string value;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1 && f.wireType == 2) value = text(field, f.bytes);
  });
  return value;
}

json decodeValue(const ProtoRegistry& registry, const ProtoField& field, const Field& wire);

void decodeInto(const ProtoRegistry& registry, const ProtoMessage& message, std::string_view bytes, json& out) {
  forEachField(bytes, [&](const Field& wire) {
    const ProtoField* field = nullptr;
    for (const auto& candidate : message.fields)
      if (candidate.number == wire.number) field = &candidate;
    if (field == nullptr) return;  // a field this server does not know, as Go skips one it does not
    if (field->presence == Presence::Repeated && !isLengthDelimited(field->kind) && wire.wireType == 2) {
      WireReader packed(wire.bytes);  // packed integers: varints back to back
      while (!packed.done()) {
        const Field element{field->number, 0, packed.varint(), {}};
        out[field->json].push_back(decodeValue(registry, *field, element));
      }
      return;
    }
    if ((wire.wireType == 2) != isLengthDelimited(field->kind) || (wire.wireType != 0 && wire.wireType != 2))
      throw ProtobufError(fieldName(*field) + " has the wrong wire type " + std::to_string(wire.wireType));
    if (field->kind == ProtoKind::Inline) {
      decodeInto(registry, registry.message(field->message), wire.bytes, out);
      return;
    }
    json value = decodeValue(registry, *field, wire);
    const bool zeroTime = (field->kind == ProtoKind::Time || field->kind == ProtoKind::MicroTime) && value.is_null();
    switch (field->presence) {
      case Presence::Repeated:
        if (value.is_array()) {  // a map entry: [key, value]
          out[field->json][value[0].get<std::string>()] = std::move(value[1]);
        } else {
          out[field->json].push_back(std::move(value));
        }
        return;
      case Presence::Value: {
        const bool zero = value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty()) ||
                          (value.is_number_integer() && value.get<std::int64_t>() == 0) ||
                          (value.is_boolean() && !value.get<bool>());
        if (zero && field->kind != ProtoKind::Message) {
          out.erase(field->json);
          return;
        }
        break;
      }
      case Presence::Always:
      case Presence::Pointer:
        if (zeroTime) {
          out.erase(field->json);
          return;
        }
        break;
    }
    if (value.is_object() && out.contains(field->json) && out[field->json].is_object()) {
      out[field->json].update(value);  // a repeated embedded message merges, as in Go
    } else {
      out[field->json] = std::move(value);
    }
  });
}

// Map entries decode to [key, value]; decodeInto puts them into the JSON object.
json mapEntry(const ProtoRegistry& registry, const ProtoField& field, std::string_view bytes) {
  std::string key;
  json value;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) {
      if (f.wireType != 2) throw ProtobufError(fieldName(field) + ": a map key is not a string");
      key = text(field, f.bytes);
    }
    if (f.number != 2) return;
    if (f.wireType != 2) throw ProtobufError(fieldName(field) + ": a map value has the wrong wire type");
    switch (field.kind) {
      case ProtoKind::BytesMap: value = encodeBase64(f.bytes); break;
      case ProtoKind::QuantityMap: value = quantityText(field, f.bytes); break;
      case ProtoKind::StringListMap: {
        value = json::array();
        forEachField(f.bytes, [&](const Field& item) {
          if (item.number == 1 && item.wireType == 2) value.push_back(text(field, item.bytes));
        });
        break;
      }
      default: value = text(field, f.bytes); break;
    }
  });
  if (value.is_null()) value = field.kind == ProtoKind::StringListMap ? json::array() : json("");
  (void)registry;
  return json::array({key, std::move(value)});
}

json decodeValue(const ProtoRegistry& registry, const ProtoField& field, const Field& wire) {
  switch (field.kind) {
    case ProtoKind::String: return text(field, wire.bytes);
    case ProtoKind::Bytes: return encodeBase64(wire.bytes);
    case ProtoKind::Int32: return static_cast<std::int64_t>(static_cast<std::int32_t>(wire.varint));
    case ProtoKind::Int64: return static_cast<std::int64_t>(wire.varint);
    case ProtoKind::Bool: return wire.varint != 0;
    case ProtoKind::Message: {
      json nested = json::object();
      decodeInto(registry, registry.message(field.message), wire.bytes, nested);
      return nested;
    }
    case ProtoKind::StringMap:
    case ProtoKind::BytesMap:
    case ProtoKind::QuantityMap:
    case ProtoKind::StringListMap: return mapEntry(registry, field, wire.bytes);
    case ProtoKind::Quantity: return quantityText(field, wire.bytes);
    case ProtoKind::IntOrString: {
      std::int64_t type = 0, intValue = 0;
      std::string stringValue;
      forEachField(wire.bytes, [&](const Field& f) {
        if (f.number == 1 && f.wireType == 0) type = static_cast<std::int64_t>(f.varint);
        if (f.number == 2 && f.wireType == 0) intValue = static_cast<std::int32_t>(f.varint);
        if (f.number == 3 && f.wireType == 2) stringValue = text(field, f.bytes);
      });
      return type == 1 ? json(stringValue) : json(intValue);
    }
    case ProtoKind::Time:
    case ProtoKind::MicroTime:
      if (wire.bytes.empty()) return nullptr;  // the zero time, which Go writes as null
      return formatTime(field, wire.bytes, field.kind == ProtoKind::MicroTime);
    case ProtoKind::JsonBytes: {
      std::string_view raw;
      forEachField(wire.bytes, [&](const Field& f) {
        if (f.number == 1 && f.wireType == 2) raw = f.bytes;
      });
      if (raw.empty()) return json::object();
      try {
        json parsed = parseUntrustedJson(raw);
        return parsed.is_null() ? json::object() : parsed;  // null would read as "absent" from here on
      } catch (const JsonInputError& error) {
        throw ProtobufError(fieldName(field) + " does not hold JSON: " + error.what());
      }
    }
    case ProtoKind::Inline: break;
  }
  throw ProtobufError(fieldName(field) + " has no decoder");
}

// ---- encoding ----

std::int64_t integerOf(const json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_unsigned()) return static_cast<std::int64_t>(value.get<std::uint64_t>());
  if (value.is_number_float()) return static_cast<std::int64_t>(value.get<double>());
  if (value.is_boolean()) return value.get<bool>() ? 1 : 0;
  return 0;
}

std::string stringOf(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return dumpSafe(value);  // a quantity written as a JSON number
}

std::string timeMessage(const json& value) {
  if (!value.is_string()) return "";
  const auto point = api::parseRfc3339(value.get_ref<const std::string&>());
  if (!point) return "";
  const auto since = point->time_since_epoch();
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since);
  WireWriter writer;
  writer.varintField(1, static_cast<std::uint64_t>(seconds.count()));
  writer.varintField(2, static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(since - seconds).count()));
  return std::move(writer).bytes();
}

void encodeValue(const ProtoRegistry& registry, const ProtoField& field, const json& value, WireWriter& out);

std::string encodeFields(const ProtoRegistry& registry, const ProtoMessage& message, const json& object) {
  static const json kEmpty = json::object();
  const json& source = object.is_object() ? object : kEmpty;
  WireWriter out;
  for (const auto& field : message.fields) {
    if (field.kind == ProtoKind::Inline) {
      out.bytesField(field.number, encodeFields(registry, registry.message(field.message), source));
      continue;
    }
    const auto it = source.find(field.json);
    const json* value = it == source.end() || it->is_null() ? nullptr : &*it;
    switch (field.presence) {
      case Presence::Repeated:
        if (value == nullptr) break;
        if (value->is_object()) {
          for (const auto& [key, element] : value->items()) {  // nlohmann keeps keys sorted, as Go's marshaller writes them
            WireWriter entry;
            entry.bytesField(1, key);
            ProtoField valueField = field;
            valueField.number = 2;
            valueField.kind = field.kind == ProtoKind::QuantityMap    ? ProtoKind::Quantity
                              : field.kind == ProtoKind::BytesMap     ? ProtoKind::Bytes
                              : field.kind == ProtoKind::StringListMap ? ProtoKind::Message
                                                                       : ProtoKind::String;
            if (field.kind == ProtoKind::StringListMap) {
              WireWriter items;
              if (element.is_array())
                for (const auto& item : element) items.bytesField(1, stringOf(item));
              entry.bytesField(2, items.bytes());
            } else {
              encodeValue(registry, valueField, element, entry);
            }
            out.bytesField(field.number, entry.bytes());
          }
        } else if (value->is_array()) {
          for (const auto& element : *value) encodeValue(registry, field, element, out);
        }
        break;
      case Presence::Pointer:
        if (value != nullptr) encodeValue(registry, field, *value, out);
        break;
      case Presence::Value:
      case Presence::Always:
        encodeValue(registry, field, value != nullptr ? *value : json(), out);
        break;
    }
  }
  return std::move(out).bytes();
}

void encodeValue(const ProtoRegistry& registry, const ProtoField& field, const json& value, WireWriter& out) {
  switch (field.kind) {
    case ProtoKind::String: out.bytesField(field.number, stringOf(value)); return;
    case ProtoKind::Bytes: {
      const std::string text = stringOf(value);
      out.bytesField(field.number, decodeBase64(text).value_or(text));
      return;
    }
    case ProtoKind::Int32:
      out.varintField(field.number, static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(integerOf(value)))));
      return;
    case ProtoKind::Int64:
    case ProtoKind::Bool: out.varintField(field.number, static_cast<std::uint64_t>(integerOf(value))); return;
    case ProtoKind::Message: out.bytesField(field.number, encodeFields(registry, registry.message(field.message), value)); return;
    case ProtoKind::Quantity: {
      WireWriter quantity;
      quantity.bytesField(1, value.is_null() ? std::string("0") : stringOf(value));
      out.bytesField(field.number, quantity.bytes());
      return;
    }
    case ProtoKind::IntOrString: {
      WireWriter both;
      both.varintField(1, value.is_string() ? 1 : 0);
      both.varintField(2, value.is_string() ? 0 : static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(integerOf(value)))));
      both.bytesField(3, value.is_string() ? value.get<std::string>() : std::string());
      out.bytesField(field.number, both.bytes());
      return;
    }
    case ProtoKind::Time:
    case ProtoKind::MicroTime: out.bytesField(field.number, timeMessage(value)); return;
    case ProtoKind::JsonBytes: {
      WireWriter raw;
      if (!value.is_null()) raw.bytesField(1, dumpSafe(value));
      out.bytesField(field.number, raw.bytes());
      return;
    }
    case ProtoKind::StringMap:
    case ProtoKind::BytesMap:
    case ProtoKind::QuantityMap:
    case ProtoKind::StringListMap:
    case ProtoKind::Inline: break;  // written by encodeFields
  }
}

}  // namespace

json decodeProtoMessage(const ProtoRegistry& registry, const std::string& name, std::string_view bytes) {
  json out = json::object();
  decodeInto(registry, registry.message(name), bytes, out);
  return out;
}

std::string encodeProtoMessage(const ProtoRegistry& registry, const std::string& name, const json& object) {
  return encodeFields(registry, registry.message(name), object);
}

namespace {

void canonicalizeQuantity(json& value) {
  if (!value.is_string() && !value.is_number()) return;
  if (auto canonical = canonicalQuantity(value.is_string() ? value.get_ref<const std::string&>() : value.dump())) value = std::move(*canonical);
}

void canonicalizeFields(const ProtoRegistry& registry, const ProtoMessage& message, json& object) {
  if (!object.is_object()) return;
  for (const auto& field : message.fields) {
    if (field.kind == ProtoKind::Inline) {
      canonicalizeFields(registry, registry.message(field.message), object);
      continue;
    }
    const auto it = object.find(field.json);
    if (it == object.end()) continue;
    switch (field.kind) {
      case ProtoKind::Quantity: canonicalizeQuantity(*it); break;
      case ProtoKind::QuantityMap:
        if (it->is_object())
          for (auto& [key, value] : it->items()) canonicalizeQuantity(value);
        break;
      case ProtoKind::Message:
        if (field.presence == Presence::Repeated && it->is_array()) {
          for (auto& element : *it) canonicalizeFields(registry, registry.message(field.message), element);
        } else {
          canonicalizeFields(registry, registry.message(field.message), *it);
        }
        break;
      default: break;
    }
  }
}

}  // namespace

void canonicalizeQuantities(const ProtoRegistry& registry, const std::string& name, json& object) {
  canonicalizeFields(registry, registry.message(name), object);
}

namespace proto {
ProtoField str(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::String, p}; }
ProtoField strs(std::uint32_t n, std::string j) { return {n, std::move(j), ProtoKind::String, Presence::Repeated}; }
ProtoField bytes(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::Bytes, p}; }
ProtoField i32(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::Int32, p}; }
ProtoField i64(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::Int64, p}; }
ProtoField i64s(std::uint32_t n, std::string j) { return {n, std::move(j), ProtoKind::Int64, Presence::Repeated}; }
ProtoField boolean(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::Bool, p}; }
ProtoField msg(std::uint32_t n, std::string j, std::string m, Presence p) {
  return {n, std::move(j), ProtoKind::Message, p, std::move(m)};
}
ProtoField msgs(std::uint32_t n, std::string j, std::string m) {
  return {n, std::move(j), ProtoKind::Message, Presence::Repeated, std::move(m)};
}
ProtoField inlined(std::uint32_t n, std::string m) { return {n, "", ProtoKind::Inline, Presence::Value, std::move(m)}; }
ProtoField map(std::uint32_t n, std::string j, ProtoKind k) { return {n, std::move(j), k, Presence::Repeated}; }
ProtoField quantity(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::Quantity, p}; }
ProtoField intOrString(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::IntOrString, p}; }
ProtoField time(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::Time, p}; }
ProtoField microTime(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::MicroTime, p}; }
ProtoField jsonBytes(std::uint32_t n, std::string j, Presence p) { return {n, std::move(j), ProtoKind::JsonBytes, p}; }
}  // namespace proto

}  // namespace fedhpa::api::machinery
