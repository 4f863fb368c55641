#include "federation/api/time.h"

#include <cctype>
#include <cstdio>

namespace fedhpa::api {
namespace {

std::optional<int> digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool is(std::string_view text, std::size_t at, char c) { return at < text.size() && text[at] == c; }

}  // namespace

std::optional<TimePoint> parseRfc3339(std::string_view text) {
  using namespace std::chrono;
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (!is(text, 4, '-') || !is(text, 7, '-') || !(is(text, 10, 'T') || is(text, 10, 't')) ||
      !is(text, 13, ':') || !is(text, 16, ':')) {
    return std::nullopt;
  }
  const year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                            std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;

  std::size_t at = 19;
  nanoseconds fraction{0};
  if (is(text, at, '.')) {
    ++at;
    long long scale = 100'000'000;
    const std::size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
      fraction += nanoseconds{(text[at] - '0') * scale};
      scale /= 10;
      ++at;
    }
    if (at == start) return std::nullopt;
  }
  minutes offset{0};
  if (is(text, at, 'Z') || is(text, at, 'z')) {
    ++at;
  } else if (is(text, at, '+') || is(text, at, '-')) {
    const auto oh = digits(text, at + 1, 2), om = digits(text, at + 4, 2);
    if (!oh || !om || !is(text, at + 3, ':') || *oh > 23 || *om > 59) return std::nullopt;
    offset = hours{*oh} + minutes{*om};
    if (text[at] == '-') offset = -offset;
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;

  // In whole seconds first: system_clock counts nanoseconds in 64 bits (years 1678 to 2262), so a
  // valid RFC 3339 time further out (year 0001, 9999) is not representable and is refused here
  // instead of overflowing.
  const sys_seconds whole = sys_days{date} + hours{*hour} + minutes{*minute} + seconds{*second} - offset;
  const sys_seconds earliest = ceil<seconds>(system_clock::time_point::min()) + seconds{1};
  const sys_seconds latest = floor<seconds>(system_clock::time_point::max()) - seconds{1};
  if (whole < earliest || whole > latest) return std::nullopt;
  return time_point_cast<system_clock::duration>(whole) + fraction;
}

std::string formatRfc3339(TimePoint time) {
  using namespace std::chrono;
  const auto secs = floor<seconds>(time);
  const auto days = floor<std::chrono::days>(secs);
  const year_month_day date{days};
  const hh_mm_ss clock{secs - days};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02lldZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<long>(clock.hours().count()), static_cast<long>(clock.minutes().count()),
                static_cast<long long>(clock.seconds().count()));
  return buf;
}

}  // namespace fedhpa::api
