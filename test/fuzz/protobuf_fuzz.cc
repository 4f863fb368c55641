// Kubernetes protobuf bodies ("k8s\0" + runtime.Unknown wrapping any built-in type), decoded into
// the JSON the rest of the server handles; whatever decodes is encoded again (the answer's
// direction). The first encoding may add what Go's would: a struct field the body left out is
// written empty, as Go decodes it to the zero struct. From then on encoding is a fixed point: the
// same bytes, decoding to the same JSON.
#include <cstddef>
#include <cstdint>

#include "federation/api/machinery/protobuf.h"
#include "test/fuzz/fuzz_checks.h"

using namespace fedhpa;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json decoded;
  try {
    decoded = api::machinery::decodeKubernetesProtobuf(fuzz::asText(data, size));
  } catch (const api::machinery::ProtobufError&) {
    return 0;
  }
  if (!decoded.is_object()) fuzz::finding("a decoded protobuf body is not a JSON object");
  fuzz::requireSerialisable(decoded, "decoded protobuf body");
  const std::string encoded = api::machinery::encodeKubernetesProtobuf(decoded);
  const nlohmann::json normal = api::machinery::decodeKubernetesProtobuf(encoded);
  const std::string again = api::machinery::encodeKubernetesProtobuf(normal);
  if (again != encoded) fuzz::finding("a decoded body encoded twice gives different bytes");
  if (api::machinery::decodeKubernetesProtobuf(again) != normal)
    fuzz::finding("an encoded body does not decode to the JSON it was encoded from");
  return 0;
}
