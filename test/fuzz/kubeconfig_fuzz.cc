// Kubeconfig text as it arrives in a member cluster's Secret (parseKubeconfig), then resolved for
// its current context and for every context it names.
#include <cstddef>
#include <cstdint>

#include "clusters/client/kubeconfig.h"
#include "test/fuzz/fuzz_checks.h"

using namespace fedhpa;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  clusters::Kubeconfig config;
  try {
    config = clusters::parseKubeconfig(std::string(fuzz::asText(data, size)), "fuzz-secret");
  } catch (const clusters::KubeconfigError&) {
    return 0;
  }
  try {
    config.resolve();
  } catch (const clusters::KubeconfigError&) {
  }
  for (const auto& [name, context] : config.contexts) {
    try {
      config.resolve(name);
    } catch (const clusters::KubeconfigError&) {
    }
  }
  return 0;
}
