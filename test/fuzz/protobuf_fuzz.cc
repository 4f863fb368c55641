// Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown wrapping an HPA, Secret or
// Namespace), decoded into the JSON the rest of the server handles.
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
  return 0;
}
