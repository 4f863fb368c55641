// ASCII case folding for protocol tokens (verbs, header names, media types, schemes), which
// Kubernetes compares byte-wise: no locale, no Unicode.
#pragma once

#include <cctype>
#include <string>

namespace fedhpa {

inline std::string asciiLowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace fedhpa
