// Label and field selectors as clients write them in ?labelSelector= and ?fieldSelector=, and
// metav1.LabelSelector objects (an HPA's status selector, a Deployment's spec.selector). The input
// is one selector string; the same bytes are also tried as a LabelSelector in JSON.
#include <cstddef>
#include <cstdint>
#include <map>

#include "federation/api/machinery/selectors.h"
#include "test/fuzz/fuzz_checks.h"

using namespace fedhpa;
using api::machinery::FieldSelector;
using api::machinery::LabelSelector;
using api::machinery::SelectorError;

namespace {

const std::map<std::string, std::string>& sampleLabels() {
  static const std::map<std::string, std::string> labels = {
      {"app", "web"}, {"tier", "frontend"}, {"env", "prod"}, {"example.com/zone", "a"}, {"empty", ""}};
  return labels;
}

void matchAgainstSamples(const LabelSelector& selector) {
  selector.matches(sampleLabels());
  selector.matches({});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::asText(data, size));
  try {
    matchAgainstSamples(LabelSelector::parse(text));
  } catch (const SelectorError&) {
  }
  try {
    const FieldSelector selector = FieldSelector::parse(text);
    selector.fields();
    selector.matches([](const std::string& field) -> std::optional<std::string> {
      if (field == "metadata.name") return "web";
      if (field == "metadata.namespace") return "default";
      return std::nullopt;
    });
  } catch (const SelectorError&) {
  }
  try {
    const nlohmann::json selector = api::machinery::parseUntrustedJson(text);
    matchAgainstSamples(LabelSelector::fromJson(selector));
  } catch (const api::machinery::JsonInputError&) {
  } catch (const SelectorError&) {
  }
  return 0;
}
