#include "federation/api/machinery/base64.h"

#include <algorithm>
#include <cctype>

namespace fedhpa::api::machinery {

std::string encodeBase64(std::string_view raw) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((raw.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < raw.size(); i += 3) {
    const std::size_t left = raw.size() - i;
    unsigned n = static_cast<unsigned char>(raw[i]) << 16;
    if (left > 1) n |= static_cast<unsigned char>(raw[i + 1]) << 8;
    if (left > 2) n |= static_cast<unsigned char>(raw[i + 2]);
    out += kAlphabet[n >> 18];
    out += kAlphabet[(n >> 12) & 63];
    out += left > 1 ? kAlphabet[(n >> 6) & 63] : '=';
    out += left > 2 ? kAlphabet[n & 63] : '=';
  }
  return out;
}

bool isBase64(std::string_view text) {
  if (text.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool padding = c == '=' && i + 2 >= text.size() && (i + 1 == text.size() || text[i + 1] == '=');
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !padding) return false;
  }
  return true;
}

std::optional<std::string> decodeBase64(std::string_view text) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    const auto value = kAlphabet.find(c);
    if (value == std::string_view::npos) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

std::string encodeBase64Url(std::string_view raw) {
  std::string text = encodeBase64(raw);
  while (!text.empty() && text.back() == '=') text.pop_back();
  std::replace(text.begin(), text.end(), '+', '-');
  std::replace(text.begin(), text.end(), '/', '_');
  return text;
}

std::optional<std::string> decodeBase64Url(std::string_view text) {
  std::string standard(text);
  if (standard.find_first_of("+/=\n\r ") != std::string::npos) return std::nullopt;
  std::replace(standard.begin(), standard.end(), '-', '+');
  std::replace(standard.begin(), standard.end(), '_', '/');
  while (standard.size() % 4 != 0) standard.push_back('=');
  auto raw = decodeBase64(standard);
  // Canonical only, as a strict decoder has it: the unused low bits of the last character must be
  // zero, so that each byte string has one text (a JWT's signature cannot be varied in its padding).
  if (!raw || encodeBase64Url(*raw) != text) return std::nullopt;
  return raw;
}

}  // namespace fedhpa::api::machinery
