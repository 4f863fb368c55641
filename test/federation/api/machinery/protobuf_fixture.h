// Kubernetes protobuf bytes assembled by hand for the codec's tests: a writer of its own (not the
// codec under test), so that a fixture is what kube would put on the wire, written from
// generated.proto's field numbers.
#pragma once

#include <cstdint>
#include <string>

namespace fedhpa::api::machinery::fixture {

inline std::string varint(std::uint64_t value) {
  std::string out;
  do {
    std::uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value) byte |= 0x80;
    out += static_cast<char>(byte);
  } while (value);
  return out;
}
// A length-delimited field (string, bytes, message).
inline std::string s(int number, const std::string& bytes) {
  return varint(static_cast<std::uint64_t>(number) << 3 | 2) + varint(bytes.size()) + bytes;
}
// A varint field (integers, booleans).
inline std::string v(int number, std::uint64_t value) { return varint(static_cast<std::uint64_t>(number) << 3) + varint(value); }
// One entry of a map<string, string> field.
inline std::string entry(int number, const std::string& key, const std::string& value) { return s(number, s(1, key) + s(2, value)); }
// "k8s\0" + runtime.Unknown{1 typeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}, as kube writes it.
inline std::string envelope(const std::string& apiVersion, const std::string& kind, const std::string& raw) {
  return std::string("k8s\0", 4) + s(1, s(1, apiVersion) + s(2, kind)) + s(2, raw) + s(3, "") + s(4, "");
}
// metav1.Time of 2026-11-22T10:00:00Z: {1 seconds, 2 nanos}.
inline const std::string kNov22 = v(1, 1795341600) + v(2, 0);
// ObjectMeta with every non-pointer field written, as Go writes an object the server read back.
inline std::string objectMeta(const std::string& name, const std::string& ns, const std::string& uid, const std::string& rv,
                              std::uint64_t generation, const std::string& extra = "") {
  return s(1, name) + s(2, "") + s(3, ns) + s(4, "") + s(5, uid) + s(6, rv) + v(7, generation) + s(8, kNov22) + extra;
}
// An ObjectMeta kubectl sends for a new object: a name, the rest empty.
inline std::string newObjectMeta(const std::string& name, const std::string& extra = "") {
  return s(1, name) + s(2, "") + s(3, "") + s(4, "") + s(5, "") + s(6, "") + v(7, 0) + s(8, "") + extra;
}

}  // namespace fedhpa::api::machinery::fixture
