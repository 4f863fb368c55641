#include "federation/api/cron_schedule.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <vector>

#include "federation/common/ascii.h"

namespace fedhpa::api {

namespace {

struct Field {
  const char* what;
  int min, max;
  std::vector<std::string> names;  // names[i] stands for min + i
};

const Field kMinute{"minute", 0, 59, {}};
const Field kHour{"hour", 0, 23, {}};
const Field kDayOfMonth{"day of month", 1, 31, {}};
const Field kMonth{"month", 1, 12, {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}};
const Field kWeekday{"day of week", 0, 6, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) out.push_back(part);
  if (!text.empty() && text.back() == separator) out.emplace_back();
  return out;
}

std::optional<int> number(const std::string& text, const Field& field) {
  const std::string lower = asciiLowered(text);
  for (std::size_t i = 0; i < field.names.size(); ++i)
    if (lower == field.names[i]) return field.min + static_cast<int>(i);
  if (text.empty() || text.size() > 4 || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  return std::stoi(text);
}

// One field: a comma-separated list of "*", "?", "n", "a-b", each with an optional "/step".
// Sets `isStar` as cron's star bit: "*" or "?" with no step (or step 1).
template <std::size_t N>
bool parseField(const std::string& text, const Field& field, std::bitset<N>& bits, bool& isStar, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "invalid " + std::string(field.what) + " \"" + text + "\": " + why;
    return false;
  };
  isStar = false;
  for (const auto& item : split(text, ',')) {
    if (item.empty()) return fail("empty list element");
    const auto slash = item.find('/');
    const std::string range = item.substr(0, slash);
    int step = 1;
    if (slash != std::string::npos) {
      const auto parsed = number(item.substr(slash + 1), Field{field.what, 0, 0, {}});
      if (!parsed || *parsed < 1) return fail("step must be a positive number");
      step = *parsed;
    }
    int low, high;
    const bool star = range == "*" || range == "?";
    if (star) {
      low = field.min;
      high = field.max;
      if (step == 1) isStar = true;
    } else {
      const auto dash = range.find('-');
      const auto first = number(range.substr(0, dash), field);
      if (!first) return fail("\"" + range.substr(0, dash) + "\" is not a number or name");
      low = *first;
      high = *first;
      if (dash != std::string::npos) {
        const auto last = number(range.substr(dash + 1), field);
        if (!last) return fail("\"" + range.substr(dash + 1) + "\" is not a number or name");
        high = *last;
      } else if (slash != std::string::npos) {
        high = field.max;  // "5/15": from 5 to the end, every 15
      }
    }
    if (low < field.min || high > field.max)
      return fail("out of range " + std::to_string(field.min) + "-" + std::to_string(field.max));
    if (low > high) return fail("range start is beyond its end");
    for (int value = low; value <= high; value += step) bits.set(static_cast<std::size_t>(value));
  }
  return true;
}

std::string descriptor(const std::string& text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return "";
}

using std::chrono::days;
using std::chrono::sys_days;
using std::chrono::year_month_day;

constexpr std::chrono::minutes kSearchHorizon{5LL * 366 * 24 * 60};
// Wall clocks never move by more than this at one transition: candidates this far before
// `after` in wall-clock order can still be after it in real time (the fall-back hour).
constexpr std::chrono::hours kMaxShift{3};

}  // namespace

std::optional<CronSchedule> CronSchedule::parse(const std::string& text, std::string* error) {
  std::string trimmed = text;
  trimmed.erase(0, trimmed.find_first_not_of(" \t"));
  trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
  if (!trimmed.empty() && trimmed.front() == '@') {
    const std::string expanded = descriptor(trimmed);
    if (expanded.empty()) {
      if (error) *error = "unrecognized descriptor: " + trimmed;
      return std::nullopt;
    }
    trimmed = expanded;
  }
  std::vector<std::string> fields;
  std::istringstream in(trimmed);
  for (std::string field; in >> field;) fields.push_back(field);
  if (fields.size() != 5) {
    if (error) *error = "expected exactly 5 fields, found " + std::to_string(fields.size()) + ": \"" + text + "\"";
    return std::nullopt;
  }
  CronSchedule schedule;
  bool ignored = false;
  if (!parseField(fields[0], kMinute, schedule.minutes_, ignored, error) ||
      !parseField(fields[1], kHour, schedule.hours_, schedule.hourIsStar_, error) ||
      !parseField(fields[2], kDayOfMonth, schedule.daysOfMonth_, schedule.dayOfMonthIsStar_, error) ||
      !parseField(fields[3], kMonth, schedule.months_, ignored, error) ||
      !parseField(fields[4], kWeekday, schedule.weekdays_, schedule.weekdayIsStar_, error))
    return std::nullopt;
  return schedule;
}

bool CronSchedule::dayMatches(int dayOfMonth, int weekday) const {
  const bool dom = daysOfMonth_.test(static_cast<std::size_t>(dayOfMonth));
  const bool dow = weekdays_.test(static_cast<std::size_t>(weekday));
  return dayOfMonthIsStar_ || weekdayIsStar_ ? dom && dow : dom || dow;
}

bool CronSchedule::matches(LocalSeconds local) const {
  const auto day = std::chrono::floor<days>(local);
  const year_month_day date{sys_days(day)};
  const auto minuteOfDay = std::chrono::duration_cast<std::chrono::minutes>(local - day).count();
  const int weekday = static_cast<int>(std::chrono::weekday(sys_days(day)).c_encoding());
  return minutes_.test(static_cast<std::size_t>(minuteOfDay % 60)) && hours_.test(static_cast<std::size_t>(minuteOfDay / 60)) &&
         months_.test(static_cast<unsigned>(date.month())) && dayMatches(static_cast<int>(static_cast<unsigned>(date.day())), weekday);
}

// The first matching wall-clock minute at or after `from`: day by day, then the day's minutes.
std::optional<LocalSeconds> CronSchedule::nextMatchFrom(LocalSeconds from) const {
  const auto start = std::chrono::ceil<std::chrono::minutes>(from);
  for (auto day = std::chrono::floor<days>(start); day - start < kSearchHorizon; day += days(1)) {
    const year_month_day date{sys_days(day)};
    const int weekday = static_cast<int>(std::chrono::weekday(sys_days(day)).c_encoding());
    if (!months_.test(static_cast<unsigned>(date.month())) || !dayMatches(static_cast<int>(static_cast<unsigned>(date.day())), weekday))
      continue;
    const long long firstMinute = day < start ? std::chrono::duration_cast<std::chrono::minutes>(start - day).count() : 0;
    for (long long minute = firstMinute; minute < 24 * 60; ++minute)
      if (hours_.test(static_cast<std::size_t>(minute / 60)) && minutes_.test(static_cast<std::size_t>(minute % 60)))
        return std::chrono::duration_cast<LocalSeconds>(day) + std::chrono::minutes(minute);
  }
  return std::nullopt;
}

// Wall-clock candidates from kMaxShift before `after`'s wall-clock time on, each turned into the
// instants it fires at (the DST rules in the header); the earliest instant after `after` wins.
// Past kMaxShift beyond the best so far, wall-clock order is real-time order again.
std::optional<SystemTime> CronSchedule::nextAfter(SystemTime after, const TimeZone& zone) const {
  std::optional<SystemTime> best;
  LocalSeconds from = zone.toLocal(after) - kMaxShift;
  while (const auto candidate = nextMatchFrom(from)) {
    if (best && *candidate > zone.toLocal(*best) + kMaxShift) break;
    std::vector<SystemTime> instants = zone.instantsOf(*candidate);
    if (instants.empty() && !hourIsStar_) {
      if (const auto end = zone.gapEnd(*candidate)) instants.push_back(*end);
    }
    if (instants.size() > 1 && !hourIsStar_) instants.resize(1);
    for (const auto instant : instants)
      if (instant > after && (!best || instant < *best)) best = instant;
    from = *candidate + std::chrono::minutes(1);
  }
  return best;
}

}  // namespace fedhpa::api
