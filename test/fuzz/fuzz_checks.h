// What every harness asserts beyond the sanitizers: a finding aborts with a message (libFuzzer then
// saves the input as a crash artifact), and whatever the code under test produced for a client
// must serialise to valid JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "federation/api/machinery/untrusted_json.h"

namespace fedhpa::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::abort();
}

// The text a server would send: dumpSafe must give JSON that parses back (no invalid UTF-8, no
// exception on the way).
inline void requireSerialisable(const nlohmann::json& value, std::string_view where) {
  const std::string text = api::machinery::dumpSafe(value);
  if (!nlohmann::json::accept(text)) finding(std::string(where) + ": dumpSafe produced text that is not JSON");
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace fedhpa::fuzz
