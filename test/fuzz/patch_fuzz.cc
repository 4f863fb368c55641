// JSON merge, JSON and strategic merge patches applied as the PATCH verb applies them: the first
// byte picks the patch type (and, for strategic merge, whose list merge keys: an HPA's or a
// Deployment's); the rest is the original object and the patch, separated by a line "%%".
#include <cstddef>
#include <cstdint>
#include <string>

#include "federation/api/machinery/patch.h"
#include "federation/api/hpa_type.h"
#include "federation/api/served_types.h"
#include "test/fuzz/fuzz_checks.h"

using namespace fedhpa;
using nlohmann::json;

namespace {

api::machinery::PatchMeta metaOf(const api::ResourceType& type) {
  api::machinery::PatchMeta meta;
  for (const auto& [path, key] : type.listMergeKeys()) meta.mergeKeys[path] = key;
  return meta;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const api::machinery::PatchMeta hpaMeta = metaOf(*api::horizontalPodAutoscalerType());
  static const api::machinery::PatchMeta deploymentMeta = metaOf(*api::deploymentType());
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view rest = fuzz::asText(data + 1, size - 1);
  const auto separator = rest.find("\n%%\n");
  const std::string_view originalText = separator == std::string_view::npos ? "{}" : rest.substr(0, separator);
  const std::string_view patchText = separator == std::string_view::npos ? rest : rest.substr(separator + 4);

  json original, patch;
  try {
    original = api::machinery::parseUntrustedJson(originalText);
    patch = api::machinery::parseUntrustedJson(patchText);
  } catch (const api::machinery::JsonInputError&) {
    return 0;
  }
  json patched;
  try {
    switch (mode % 3) {
      case 0: patched = api::machinery::applyMergePatch(original, patch); break;
      case 1: patched = api::machinery::applyJsonPatch(original, patch); break;
      default:
        patched = api::machinery::applyStrategicMergePatch(original, patch, (mode / 3) % 2 ? deploymentMeta : hpaMeta);
        break;
    }
  } catch (const std::exception&) {
    // The PATCH verb turns every exception from applying a client's patch into a 422 (rest_handler.cc);
    // what it must not do is crash, overflow the stack or leak.
    return 0;
  }
  // A patch can deepen an object; the server refuses the result then, and must be able to tell.
  if (!api::machinery::nestsDeeperThan(patched, api::machinery::kMaxJsonDepth))
    fuzz::requireSerialisable(patched, "patched object");
  return 0;
}
