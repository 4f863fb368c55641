// Kubernetes protobuf ("application/vnd.kubernetes.protobuf"): "k8s\0" + runtime.Unknown
// {1 typeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}, raw being the
// object's generated message. Both directions go through the tables of protobuf_schema.h, for every
// built-in type fedhpa serves: decoded into the JSON kubectl would have sent for the same object (so
// the rest of the server sees one format), encoded from the served JSON. Custom resources
// (Clusters, Karmada's types) have no protobuf form, as in kube-apiserver.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "federation/api/machinery/protobuf_wire.h"

namespace fedhpa::api::machinery {

inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};

nlohmann::json decodeKubernetesProtobuf(std::string_view body);

// Whether objects of this apiVersion and kind (an object's, or "<Kind>List"'s item kind) have a
// protobuf form here.
bool hasProtobufForm(const std::string& apiVersion, const std::string& kind);
// Whether an API group ("" for core) holds any type with a protobuf form.
bool hasProtobufGroup(std::string_view group);

// Every resource.Quantity of a built-in object (its apiVersion and kind say which table) in the
// canonical form kube-apiserver stores and serves ("0.5" -> "500m"); objects of other kinds are
// left as they are, as kube leaves a custom resource's.
void canonicalizeQuantities(nlohmann::json& object);

// One object (its apiVersion and kind say which table) as kube-apiserver writes it: magic and
// envelope. A ProtobufError when the kind has no protobuf form.
std::string encodeKubernetesProtobuf(const nlohmann::json& object);

// The object's own message inside an envelope encodeKubernetesProtobuf made (a view into it): what
// a list holds as one item and a watch event as its object's raw bytes.
std::string_view protobufRawMessage(std::string_view envelope);

// A <Kind>List, in pieces so that the items' bytes are referred to, not copied: the caller sends
// head(), then for each item its prefix and its raw message, then tail().
class ProtobufListWriter {
 public:
  ProtobufListWriter(std::string apiVersion, std::string listKind, const nlohmann::json& listMetadata);
  // Returns the bytes to send before this item's raw message.
  std::string itemPrefix(std::string_view itemRawMessage);
  std::string head() const;  // needs every item's size first
  static std::string_view tail() { return {"\x1a\x00\x22\x00", 4}; }

 private:
  std::string apiVersion_, listKind_, listMeta_;
  std::size_t itemBytes_ = 0;
};

// One watch event as kube's protobuf watch stream frames it: a 4-byte big-endian length, then the
// bare WatchEvent message {1 type, 2 object: RawExtension{1 raw}} (the stream serializer writes no
// envelope), the object's bytes being its full encoding, magic and envelope included.
std::string protobufWatchFrame(std::string_view type, std::string_view objectEnvelope);
// The same frame's bytes before the object's, for an object encoding of this size: with them, a
// frame can be sent as its head and a reference to bytes shared with other watchers.
std::string protobufWatchFrameHead(std::string_view type, std::size_t objectEnvelopeSize);

}  // namespace fedhpa::api::machinery
