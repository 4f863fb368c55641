// Kubernetes resource quantities ("300Mi", "1500m", "2k", "1e3", "2Ki") as numbers.
#pragma once

#include <optional>
#include <string_view>

namespace fedhpa::api {

// The quantity's value in base units ("1500m" -> 1.5, "2Ki" -> 2048, "1e3" -> 1000): a signed
// decimal number, then nothing, a binary suffix (Ki Mi Gi Ti Pi Ei), a decimal suffix (n u m k M
// G T P E) or a decimal exponent (e3, E-2). Empty when the text is not a quantity, or its value
// is beyond what a double holds (too large, or too small to be told from zero).
std::optional<double> parseQuantity(std::string_view text);

}  // namespace fedhpa::api
