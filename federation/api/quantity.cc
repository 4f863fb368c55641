#include "federation/api/quantity.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace fedhpa::api {
namespace {

std::optional<double> multiplierOf(std::string_view suffix) {
  struct Suffix {
    std::string_view text;
    double multiplier;
  };
  static constexpr Suffix kSuffixes[] = {
      {"", 1},       {"n", 1e-9},           {"u", 1e-6},           {"m", 1e-3},
      {"k", 1e3},    {"M", 1e6},            {"G", 1e9},            {"T", 1e12},
      {"P", 1e15},   {"E", 1e18},           {"Ki", 1024.0},        {"Mi", 1048576.0},
      {"Gi", 1073741824.0},                 {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0},           {"Ei", 1152921504606846976.0}};
  for (const Suffix& s : kSuffixes) {
    if (s.text == suffix) return s.multiplier;
  }
  // A decimal exponent: e or E, an optional sign, digits.
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  std::string_view digits = suffix.substr(1);
  if (digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || digits[0] == '+') return std::nullopt;
  int exponent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return std::pow(10.0, exponent);
}

}  // namespace

std::optional<double> parseQuantity(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const std::size_t numberStart = i;
  std::size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  const std::string number(text.substr(numberStart, i - numberStart));
  const auto multiplier = multiplierOf(text.substr(i));
  if (!multiplier) return std::nullopt;
  // from_chars rather than stod: a number beyond a double's range ("1" and 400 zeros, or "0." and
  // 400 zeros and "1") is out_of_range, which stod throws and this reports as not a quantity.
  double mantissa = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), mantissa);
  if (error != std::errc() || end != number.data() + number.size()) return std::nullopt;
  const double value = mantissa * *multiplier;
  if (!std::isfinite(value)) return std::nullopt;
  return negative ? -value : value;
}

}  // namespace fedhpa::api
