#include "federation/api/machinery/canonical_quantity.h"

#include <array>
#include <charconv>
#include <cstdint>

namespace fedhpa::api::machinery {

namespace {

enum class Format { DecimalSI, DecimalExponent, BinarySI };

struct Parsed {
  bool negative = false;
  std::string_view whole, fraction;  // the digits before and after the point
  Format format = Format::DecimalSI;
  std::int64_t exponent = 0;  // of 10 (decimal suffixes and e-notation) or of 2 (binary suffixes)
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::optional<Parsed> parse(std::string_view text) {
  Parsed out;
  std::size_t at = 0;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) out.negative = text[at++] == '-';
  const std::size_t wholeStart = at;
  while (at < text.size() && isDigit(text[at])) ++at;
  out.whole = text.substr(wholeStart, at - wholeStart);
  if (at < text.size() && text[at] == '.') {
    const std::size_t fractionStart = ++at;
    while (at < text.size() && isDigit(text[at])) ++at;
    out.fraction = text.substr(fractionStart, at - fractionStart);
  }
  if (out.whole.empty() && out.fraction.empty()) return std::nullopt;
  const std::string_view suffix = text.substr(at);
  static constexpr std::array<std::pair<std::string_view, int>, 10> kDecimal = {
      {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}}};
  static constexpr std::array<std::pair<std::string_view, int>, 6> kBinary = {
      {{"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}}};
  for (const auto& [name, exponent] : kDecimal)
    if (suffix == name) {
      out.exponent = exponent;
      return out;
    }
  for (const auto& [name, exponent] : kBinary)
    if (suffix == name) {
      out.format = Format::BinarySI;
      out.exponent = exponent;
      return out;
    }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  std::string_view digits = suffix.substr(1);
  if (digits[0] == '+') digits.remove_prefix(1);  // from_chars reads '-' only
  std::int32_t exponent = 0;  // Go parses it as an int32
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() || !isDigit(digits.back()))
    return std::nullopt;
  out.format = Format::DecimalExponent;
  out.exponent = exponent;
  return out;
}

// kube's parser keeps the text it was given when the number fits its int64 fast path and is
// already canonical: decimal with a scale that is a multiple of 3, no leading zero and no "000" at
// the end; binary with no fraction and a value not divisible by 8.
bool keptAsWritten(const Parsed& q) {
  const std::string shifted = std::string(q.whole) + std::string(q.fraction);
  std::int64_t value = 0;
  if (q.format == Format::BinarySI) {
    if (!q.fraction.empty()) return false;
    const auto precision = 15 - static_cast<std::int64_t>(q.whole.size()) - static_cast<std::int64_t>(static_cast<float>(q.exponent) * 3 / 10) - 1;
    if (precision < 0) return false;
    // The precision bound keeps value * 2^exponent within int64.
    if (std::from_chars(shifted.data(), shifted.data() + shifted.size(), value).ec != std::errc()) return false;
    return (value & 0x07) != 0;
  }
  if (18 - static_cast<std::int64_t>(shifted.size()) < 0) return false;
  const std::int64_t scale = q.exponent - static_cast<std::int64_t>(q.fraction.size());
  if (scale < -9) return false;
  return scale % 3 == 0 && !(shifted.size() >= 3 && shifted.ends_with("000")) && shifted[0] != '0';
}

// Unsigned decimal digit strings, most significant first.
std::string stripLeadingZeros(std::string digits) {
  const std::size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? std::string() : digits.substr(first);
}

std::string multiply(const std::string& digits, unsigned factor) {
  std::string out(digits.size(), '0');
  unsigned carry = 0;
  for (std::size_t i = digits.size(); i-- > 0;) {
    const unsigned product = static_cast<unsigned>(digits[i] - '0') * factor + carry;
    out[i] = static_cast<char>('0' + product % 10);
    carry = product / 10;
  }
  while (carry > 0) {
    out.insert(out.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  return out;
}

std::string addOne(std::string digits) {
  for (std::size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return digits;
    }
    digits[i] = '0';
  }
  return "1" + digits;
}

// digits / divisor when it divides evenly.
std::optional<std::string> divideExactly(const std::string& digits, unsigned divisor) {
  std::string out;
  unsigned remainder = 0;
  for (char c : digits) {
    const unsigned current = remainder * 10 + static_cast<unsigned>(c - '0');
    out += static_cast<char>('0' + current / divisor);
    remainder = current % divisor;
  }
  if (remainder != 0) return std::nullopt;
  return stripLeadingZeros(out);
}

// Compares digit strings without leading zeros.
int compare(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
}

std::string decimalSuffix(std::int64_t exponent, Format format) {
  if (exponent == 0) return "";
  if (format == Format::DecimalSI) {
    static constexpr std::array<std::pair<int, const char*>, 9> kSuffixes = {
        {{-9, "n"}, {-6, "u"}, {-3, "m"}, {3, "k"}, {6, "M"}, {9, "G"}, {12, "T"}, {15, "P"}, {18, "E"}}};
    for (const auto& [power, name] : kSuffixes)
      if (power == exponent) return name;
  }
  return "e" + std::to_string(exponent);
}

}  // namespace

std::optional<std::string> canonicalQuantity(std::string_view text) {
  const auto q = parse(text);
  if (!q) return std::nullopt;
  if (keptAsWritten(*q)) return std::string(text);

  // The exact value: digits x 10^exponent10, the sign aside.
  std::string digits = stripLeadingZeros(std::string(q->whole) + std::string(q->fraction));
  std::int64_t exponent10 = -static_cast<std::int64_t>(q->fraction.size());
  Format format = q->format;
  if (format == Format::BinarySI) {
    for (std::int64_t i = 0; i < q->exponent / 10; ++i) digits = multiply(digits, 1024);
    digits = stripLeadingZeros(digits);
  } else {
    exponent10 += q->exponent;
  }
  if (digits.empty()) return "0";

  // Below a nano rounds up to the next nano (away from zero), so that asking for a little gets some.
  if (exponent10 < -9) {
    const std::int64_t cut = -9 - exponent10;
    if (cut >= static_cast<std::int64_t>(digits.size())) {
      digits = "1";
    } else {
      const std::string dropped = digits.substr(digits.size() - static_cast<std::size_t>(cut));
      digits.resize(digits.size() - static_cast<std::size_t>(cut));
      digits = stripLeadingZeros(digits);
      if (dropped.find_first_not_of('0') != std::string::npos) digits = addOne(digits);
    }
    exponent10 = -9;
  }
  // Trailing zeros move into the exponent.
  while (digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++exponent10;
  }

  if (format == Format::BinarySI) {
    static const std::string kMaxInt64 = "9223372036854775807";
    const bool integral = exponent10 >= 0;
    std::string value = integral ? digits + std::string(static_cast<std::size_t>(exponent10), '0') : std::string();
    if (integral && compare(value, kMaxInt64) > 0) value = kMaxInt64;
    if (!integral || compare(value, "1024") < 0) {
      format = Format::DecimalSI;  // below 1024, or a fraction: written in decimal rather than rounded
    } else {
      static constexpr std::array<const char*, 7> kSuffixes = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      std::size_t power = 0;
      while (power + 1 < kSuffixes.size()) {
        auto divided = divideExactly(value, 1024);
        if (!divided) break;
        value = std::move(*divided);
        ++power;
      }
      return (q->negative ? "-" : "") + value + kSuffixes[power];
    }
  }
  // The exponent down to a multiple of 3, the mantissa an integer.
  while (exponent10 % 3 != 0) {
    digits += '0';
    --exponent10;
  }
  return (q->negative ? "-" : "") + digits + decimalSuffix(exponent10, format);
}

}  // namespace fedhpa::api::machinery
