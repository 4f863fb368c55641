// Bytes from clients, before anything recursive touches them: UTF-8 validity, and JSON parsed only
// once a linear pre-scan has shown its nesting is within bounds (the parser, our schema walks,
// patches and serialisation all recurse per level; 100,000 levels would overflow a thread's stack).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fedhpa::api::machinery {

// Deepest nesting of objects and arrays accepted in any JSON a client sends (request bodies, patches,
// JSON held in annotations) and in any object a patch produces. kube-apiserver's decoder allows
// 10,000; every type served here is a few dozen levels at most, and the stack a request runs on
// is an I/O thread's, so the bound is lower.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Thrown for bytes that are not JSON, or JSON nested deeper than allowed. Callers turn it into 400.
class JsonInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool isValidUtf8(std::string_view text);

// Valid UTF-8, with every invalid byte replaced by U+FFFD: for echoing client input in messages.
std::string sanitizeUtf8(std::string_view text);

// The depth of the deepest nesting in text, counting only brackets outside strings; stops
// scanning (and returns a value > limit) as soon as the limit is passed. O(n), no recursion.
std::size_t jsonNestingDepth(std::string_view text, std::size_t limit);

// Parses client JSON: JsonInputError when the text nests deeper than maxDepth (before parsing)
// or is not valid JSON (which includes strings that are not UTF-8).
nlohmann::json parseUntrustedJson(std::string_view text, std::size_t maxDepth = kMaxJsonDepth);

// Whether a parsed value nests deeper than maxDepth (an object or array is one level). Iterative.
bool nestsDeeperThan(const nlohmann::json& value, std::size_t maxDepth);

// JSON text for a response or message; never throws on invalid UTF-8 (replaced by U+FFFD).
std::string dumpSafe(const nlohmann::json& value);

}  // namespace fedhpa::api::machinery
