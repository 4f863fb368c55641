// A standard 5-field cron schedule ("minute hour day-of-month month day-of-week"), as Kubernetes
// CronJobs and Karmada's CronFederatedHPA read it: lists (1,15), ranges (1-5), steps (*/10,
// 0-30/5, 5/15), month and weekday names (jan, MON), "?" as "*", and the @hourly/@daily/@weekly/
// @monthly/@yearly shorthands. Day-of-month and day-of-week are OR-ed when both are restricted
// and AND-ed when either is "*", as cron does.
//
// Daylight saving time (the zone's wall clock is what matches):
// - a wall-clock time that does not exist (the spring-forward gap) fires once, at the instant
//   the gap ends, unless the hour field is "*" (an hourly job simply has a shorter hour);
// - a wall-clock time that happens twice (fall-back) fires once, at its first occurrence, unless
//   the hour field is "*", whose jobs keep running by the clock through the repeated hour.
// That is Vixie cron's rule: fixed-time jobs run once a day, wildcard jobs run by elapsed time.
#pragma once

#include <bitset>
#include <optional>
#include <string>

#include "federation/api/time_zone.h"

namespace fedhpa::api {

class CronSchedule {
 public:
  // nullopt, and *error says why ("expected exactly 5 fields, found 4: ..."), for bad syntax.
  static std::optional<CronSchedule> parse(const std::string& text, std::string* error);

  // The first instant strictly after `after` at which the schedule fires in `zone`; nullopt when
  // it never does within the next five years (as "0 0 30 2 *").
  std::optional<SystemTime> nextAfter(SystemTime after, const TimeZone& zone) const;

  // Whether the wall-clock minute `local` (seconds past a minute ignored) matches every field.
  bool matches(LocalSeconds local) const;

 private:
  std::optional<LocalSeconds> nextMatchFrom(LocalSeconds from) const;
  bool dayMatches(int dayOfMonth, int weekday) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> daysOfMonth_;  // 1..31
  std::bitset<13> months_;       // 1..12
  std::bitset<7> weekdays_;      // 0 = Sunday
  bool hourIsStar_ = false;
  bool dayOfMonthIsStar_ = false;
  bool weekdayIsStar_ = false;
};

}  // namespace fedhpa::api
