#include "federation/common/duration.h"

#include <cstdint>
#include <tuple>
#include <utility>

namespace fedhpa {

namespace {

constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;  // -2^63 ns is the most negative

// The leading digits of `text` as a number; nullopt on overflow. Consumes them.
std::optional<std::uint64_t> leadingInt(std::string_view& text) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (value > kMaxMagnitude / 10) return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
    if (value > kMaxMagnitude) return std::nullopt;
  }
  text.remove_prefix(i);
  return value;
}

// The leading digits of a fraction: its value and scale (10^digits kept). Digits past what fits
// are consumed and dropped, as Go does.
std::pair<std::uint64_t, double> leadingFraction(std::string_view& text) {
  std::uint64_t value = 0;
  double scale = 1;
  bool overflow = false;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (overflow) continue;
    if (value > (kMaxMagnitude - 1) / 10) {
      overflow = true;
      continue;
    }
    const std::uint64_t next = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
    if (next > kMaxMagnitude) {
      overflow = true;
      continue;
    }
    value = next;
    scale *= 10;
  }
  text.remove_prefix(i);
  return {value, scale};
}

std::optional<std::uint64_t> unitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;  // U+00B5, U+03BC
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return std::nullopt;
  std::uint64_t total = 0;
  while (!text.empty()) {
    // The next character must be [0-9.].
    if (!(text.front() == '.' || (text.front() >= '0' && text.front() <= '9'))) return std::nullopt;
    const std::size_t before = text.size();
    const auto whole = leadingInt(text);
    if (!whole) return std::nullopt;
    const bool hadWhole = text.size() != before;
    std::uint64_t fraction = 0;
    double scale = 1;
    bool hadFraction = false;
    if (!text.empty() && text.front() == '.') {
      text.remove_prefix(1);
      const std::size_t fractionStart = text.size();
      std::tie(fraction, scale) = leadingFraction(text);
      hadFraction = text.size() != fractionStart;
    }
    if (!hadWhole && !hadFraction) return std::nullopt;  // "." alone, or ".s"
    std::size_t unitLength = 0;
    while (unitLength < text.size() && text[unitLength] != '.' && !(text[unitLength] >= '0' && text[unitLength] <= '9'))
      ++unitLength;
    if (unitLength == 0) return std::nullopt;  // a number needs its unit
    const auto unit = unitNanos(text.substr(0, unitLength));
    if (!unit) return std::nullopt;
    text.remove_prefix(unitLength);
    if (*whole > kMaxMagnitude / *unit) return std::nullopt;
    std::uint64_t value = *whole * *unit;
    if (fraction > 0) {
      value += static_cast<std::uint64_t>(static_cast<double>(fraction) * (static_cast<double>(*unit) / scale));
      if (value > kMaxMagnitude) return std::nullopt;
    }
    total += value;
    if (total > kMaxMagnitude) return std::nullopt;
  }
  if (!negative && total > kMaxMagnitude - 1) return std::nullopt;
  if (negative) {
    // -2^63 fits; computed so that nothing overflows on the way.
    return std::chrono::nanoseconds(total == kMaxMagnitude ? INT64_MIN : -static_cast<std::int64_t>(total));
  }
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

std::optional<std::chrono::milliseconds> parseDurationFlag(std::string_view text) {
  const auto duration = parseGoDuration(text);
  if (!duration || duration->count() < 0) return std::nullopt;
  return std::chrono::ceil<std::chrono::milliseconds>(*duration);
}

}  // namespace fedhpa
