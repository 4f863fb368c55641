// resource.Quantity's canonical text, as kube-apiserver writes every quantity it stores and serves:
// "1000m" -> "1", "0.5" -> "500m", "1024Mi" -> "1Gi", "1.5Gi" -> "1536Mi", "0.1n" -> "1n".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fedhpa::api::machinery {

// The text kube would write for this quantity, or nothing when it is not a quantity (kube refuses
// those at decoding; here they are left for validation to judge). As in kube's parser, a value below
// a nano is rounded up to 1n, a binary-suffixed value is capped at 2^63-1, and text whose number fits
// int64 and is already in its canonical shape is kept as written (so "1E3" stays "1E3", as in kube).
std::optional<std::string> canonicalQuantity(std::string_view text);

}  // namespace fedhpa::api::machinery
