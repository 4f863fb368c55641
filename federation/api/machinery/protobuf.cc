#include "federation/api/machinery/protobuf.h"

#include "federation/api/machinery/protobuf_schema.h"

namespace fedhpa::api::machinery {

using nlohmann::json;

namespace {

struct Envelope {
  std::string apiVersion, kind, contentEncoding;
  std::string_view raw;
};

Envelope parseEnvelope(std::string_view body) {
  if (body.substr(0, 4) != kProtobufMagic) throw ProtobufError("the body does not start with the Kubernetes protobuf magic");
  Envelope envelope;
  WireReader reader(body.substr(4));
  const auto text = [](const WireReader::Field& f, const char* what) {
    if (f.wireType != 2) throw ProtobufError(std::string(what) + " should be length-delimited");
    return std::string(f.bytes);
  };
  while (!reader.done()) {
    const auto f = reader.next();
    if (f.number == 1) {
      if (f.wireType != 2) throw ProtobufError("typeMeta should be a message");
      WireReader typeMeta(f.bytes);
      while (!typeMeta.done()) {
        const auto g = typeMeta.next();
        if (g.number == 1) envelope.apiVersion = text(g, "apiVersion");
        if (g.number == 2) envelope.kind = text(g, "kind");
      }
    }
    if (f.number == 2) {
      if (f.wireType != 2) throw ProtobufError("raw should be length-delimited");
      envelope.raw = f.bytes;
    }
    if (f.number == 3) envelope.contentEncoding = text(f, "contentEncoding");
  }
  return envelope;
}

std::string typeMeta(const std::string& apiVersion, const std::string& kind) {
  WireWriter meta;
  meta.bytesField(1, apiVersion);
  meta.bytesField(2, kind);
  return std::move(meta).bytes();
}

}  // namespace

json decodeKubernetesProtobuf(std::string_view body) {
  const Envelope envelope = parseEnvelope(body);
  if (!envelope.contentEncoding.empty()) throw ProtobufError("unsupported content encoding " + envelope.contentEncoding);
  const ProtoRegistry& registry = kubernetesProtoTypes();
  const std::string* message = registry.kindMessage(envelope.apiVersion, envelope.kind);
  if (message == nullptr || envelope.kind == "Status")
    throw ProtobufError("no protobuf form is served for " + envelope.apiVersion + " " + envelope.kind);
  json object = decodeProtoMessage(registry, *message, envelope.raw);
  // kind and apiVersion first, as a client writes them; the rest in the table's order.
  json out = {{"apiVersion", envelope.apiVersion}, {"kind", envelope.kind}};
  for (auto& [key, value] : object.items()) out[key] = std::move(value);
  return out;
}

bool hasProtobufForm(const std::string& apiVersion, const std::string& kind) {
  return kubernetesProtoTypes().kindMessage(apiVersion, kind) != nullptr;
}

bool hasProtobufGroup(std::string_view group) { return kubernetesProtoTypes().hasGroup(group); }

void canonicalizeQuantities(json& object) {
  if (!object.is_object()) return;
  const ProtoRegistry& registry = kubernetesProtoTypes();
  const auto text = [&](const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string* message = registry.kindMessage(text("apiVersion"), text("kind"));
  if (message != nullptr) canonicalizeQuantities(registry, *message, object);
}

std::string encodeKubernetesProtobuf(const json& object) {
  const std::string apiVersion = object.value("apiVersion", "");
  const std::string kind = object.value("kind", "");
  const ProtoRegistry& registry = kubernetesProtoTypes();
  const std::string* message = registry.kindMessage(apiVersion, kind);
  if (message == nullptr) throw ProtobufError("no protobuf form is served for " + apiVersion + " " + kind);
  WireWriter unknown;
  unknown.bytesField(1, typeMeta(apiVersion, kind));
  unknown.bytesField(2, encodeProtoMessage(registry, *message, object));
  unknown.bytesField(3, "");
  unknown.bytesField(4, "");
  return std::string(kProtobufMagic) + std::move(unknown).bytes();
}

std::string_view protobufRawMessage(std::string_view envelope) { return parseEnvelope(envelope).raw; }

ProtobufListWriter::ProtobufListWriter(std::string apiVersion, std::string listKind, const json& listMetadata)
    : apiVersion_(std::move(apiVersion)), listKind_(std::move(listKind)) {
  WireWriter meta;
  meta.bytesField(1, encodeProtoMessage(kubernetesProtoTypes(), "meta.ListMeta", listMetadata));
  listMeta_ = std::move(meta).bytes();
}

std::string ProtobufListWriter::itemPrefix(std::string_view itemRawMessage) {
  std::string prefix(1, '\x12');  // field 2 (items), length-delimited
  WireWriter::appendVarint(prefix, itemRawMessage.size());
  itemBytes_ += prefix.size() + itemRawMessage.size();
  return prefix;
}

std::string ProtobufListWriter::head() const {
  WireWriter unknown;
  unknown.bytesField(1, typeMeta(apiVersion_, listKind_));
  std::string out = std::string(kProtobufMagic) + std::move(unknown).bytes();
  out += '\x12';  // field 2 (raw): the list message, whose items follow the head
  WireWriter::appendVarint(out, listMeta_.size() + itemBytes_);
  out += listMeta_;
  return out;
}

std::string protobufWatchFrameHead(std::string_view type, std::size_t objectEnvelopeSize) {
  // RawExtension{1 raw}: its key and length, the raw bytes following.
  std::string rawHead(1, '\x0a');
  WireWriter::appendVarint(rawHead, objectEnvelopeSize);
  const std::size_t rawSize = rawHead.size() + objectEnvelopeSize;
  // WatchEvent{1 type, 2 object}: the object field's key and length, the RawExtension following.
  WireWriter event;
  event.bytesField(1, type);
  std::string eventHead = std::move(event).bytes() + '\x12';
  WireWriter::appendVarint(eventHead, rawSize);
  const auto size = static_cast<std::uint32_t>(eventHead.size() + rawSize);
  std::string frame{static_cast<char>(size >> 24), static_cast<char>(size >> 16), static_cast<char>(size >> 8),
                    static_cast<char>(size)};
  return frame + eventHead + rawHead;
}

std::string protobufWatchFrame(std::string_view type, std::string_view objectEnvelope) {
  return protobufWatchFrameHead(type, objectEnvelope.size()).append(objectEnvelope);
}

}  // namespace fedhpa::api::machinery
