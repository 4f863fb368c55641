// The Prometheus text exposition format, as every /metrics of fedhpa writes it.
#pragma once

#include <string>
#include <string_view>

namespace fedhpa {

// A label value as it goes between the double quotes: backslash, double quote and newline escaped.
std::string prometheusLabelValue(std::string_view value);

}  // namespace fedhpa
