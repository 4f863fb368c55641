#include "federation/api/machinery/untrusted_json.h"

#include <utility>
#include <vector>

namespace fedhpa::api::machinery {

using nlohmann::json;

namespace {

// The length of the valid UTF-8 sequence at text[at], or 0 when it is not one (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t validSequenceAt(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  return length;
}

}  // namespace

bool isValidUtf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = validSequenceAt(text, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string sanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = validSequenceAt(text, at);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++at;
    } else {
      out.append(text.substr(at, length));
      at += length;
    }
  }
  return out;
}

std::size_t jsonNestingDepth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;  // whatever is escaped cannot end the string
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

json parseUntrustedJson(std::string_view text, std::size_t maxDepth) {
  if (jsonNestingDepth(text, maxDepth) > maxDepth)
    throw JsonInputError("JSON nested deeper than the limit of " + std::to_string(maxDepth) + " levels");
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded()) throw JsonInputError("invalid JSON");
  return value;
}

bool nestsDeeperThan(const json& value, std::size_t maxDepth) {
  std::vector<std::pair<const json*, std::size_t>> pending{{&value, 1}};
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth > maxDepth) return true;
    for (const auto& child : *node)
      if (child.is_structured()) pending.emplace_back(&child, depth + 1);
  }
  return false;
}

std::string dumpSafe(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace fedhpa::api::machinery
