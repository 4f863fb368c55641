// Cron evaluation: 5-field syntax, day-of-month/day-of-week semantics, time zones from the system
// tz database, and the daylight-saving rules the header documents.
#include "federation/api/cron_schedule.h"

#include <gtest/gtest.h>

#include "federation/api/time.h"

namespace fedhpa::api {
namespace {

SystemTime at(const std::string& rfc3339) {
  const auto parsed = parseRfc3339(rfc3339);
  EXPECT_TRUE(parsed) << rfc3339;
  return std::chrono::time_point_cast<SystemTime::duration>(*parsed);
}

std::string next(const std::string& schedule, const std::string& after, const TimeZone& zone = TimeZone::utc()) {
  std::string error;
  const auto parsed = CronSchedule::parse(schedule, &error);
  EXPECT_TRUE(parsed) << schedule << ": " << error;
  if (!parsed) return "";
  const auto fires = parsed->nextAfter(at(after), zone);
  return fires ? formatRfc3339(*fires) : "never";
}

// Every firing in (from, to], in order.
std::vector<std::string> firings(const std::string& schedule, const std::string& from, const std::string& to, const TimeZone& zone) {
  std::string error;
  const auto parsed = CronSchedule::parse(schedule, &error);
  std::vector<std::string> out;
  for (auto t = parsed->nextAfter(at(from), zone); t && *t <= at(to); t = parsed->nextAfter(*t, zone)) out.push_back(formatRfc3339(*t));
  return out;
}

TimeZone zoneNamed(const std::string& name) {
  std::string error;
  const auto zone = TimeZone::load(name, &error);
  EXPECT_TRUE(zone) << error;
  return zone ? *zone : TimeZone::utc();
}

TEST(CronScheduleTest, RejectsWhatCronRejects) {
  std::string error;
  for (const char* bad : {"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 13 *",
                          "* * * * 7", "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *", "@every 5m", "* * * foo *"}) {
    EXPECT_FALSE(CronSchedule::parse(bad, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
  EXPECT_FALSE(CronSchedule::parse("* * * *", &error));
  EXPECT_EQ(error, "expected exactly 5 fields, found 4: \"* * * *\"");
}

TEST(CronScheduleTest, ListsRangesStepsAndNames) {
  EXPECT_EQ(next("* * * * *", "2026-01-01T10:00:00Z"), "2026-01-01T10:01:00Z");
  EXPECT_EQ(next("* * * * *", "2026-01-01T10:00:30Z"), "2026-01-01T10:01:00Z");
  EXPECT_EQ(next("5,35 * * * *", "2026-01-01T10:06:00Z"), "2026-01-01T10:35:00Z");
  EXPECT_EQ(next("10-12 * * * *", "2026-01-01T10:12:00Z"), "2026-01-01T11:10:00Z");
  EXPECT_EQ(next("*/15 * * * *", "2026-01-01T10:16:00Z"), "2026-01-01T10:30:00Z");
  EXPECT_EQ(next("0-30/20 * * * *", "2026-01-01T10:21:00Z"), "2026-01-01T11:00:00Z");
  EXPECT_EQ(next("50/5 * * * *", "2026-01-01T10:56:00Z"), "2026-01-01T11:50:00Z");
  EXPECT_EQ(next("0 9 * JAN,mar *", "2026-01-31T10:00:00Z"), "2026-03-01T09:00:00Z");
  EXPECT_EQ(next("0 9 * * mon-fri", "2026-01-02T10:00:00Z"), "2026-01-05T09:00:00Z");  // Friday -> Monday
  EXPECT_EQ(next("@daily", "2026-01-01T10:00:00Z"), "2026-01-02T00:00:00Z");
  EXPECT_EQ(next("@hourly", "2026-01-01T10:00:00Z"), "2026-01-01T11:00:00Z");
  EXPECT_EQ(next("@yearly", "2026-01-01T10:00:00Z"), "2027-01-01T00:00:00Z");
  EXPECT_EQ(next("0 0 29 2 *", "2026-03-01T00:00:00Z"), "2028-02-29T00:00:00Z");
  EXPECT_EQ(next("0 0 30 2 *", "2026-03-01T00:00:00Z"), "never");
}

TEST(CronScheduleTest, DayOfMonthAndDayOfWeekAreOredWhenBothRestricted) {
  // 2026-02-13 is a Friday. "13th OR Friday": the next Friday (Feb 20) comes before Mar 13.
  EXPECT_EQ(next("0 0 13 * 5", "2026-02-13T01:00:00Z"), "2026-02-20T00:00:00Z");
  EXPECT_EQ(next("0 0 13 * 5", "2026-02-10T00:00:00Z"), "2026-02-13T00:00:00Z");
  // A "*" in either makes it AND: every 13th (any weekday)...
  EXPECT_EQ(next("0 0 13 * *", "2026-02-13T01:00:00Z"), "2026-03-13T00:00:00Z");
  // ... or every Friday.
  EXPECT_EQ(next("0 0 * * fri", "2026-02-13T01:00:00Z"), "2026-02-20T00:00:00Z");
  // A stepped "*" is a restriction, as in cron: day 1, 3, ... OR Sunday.
  EXPECT_EQ(next("0 0 */2 * sun", "2026-02-01T01:00:00Z"), "2026-02-03T00:00:00Z");
}

TEST(CronScheduleTest, TimeZonesFromTheSystemDatabase) {
  const TimeZone berlin = zoneNamed("Europe/Berlin");
  const TimeZone tokyo = zoneNamed("Asia/Tokyo");
  EXPECT_EQ(next("30 7 * * *", "2026-01-15T00:00:00Z", berlin), "2026-01-15T06:30:00Z");  // CET, UTC+1
  EXPECT_EQ(next("30 7 * * *", "2026-07-15T00:00:00Z", berlin), "2026-07-15T05:30:00Z");  // CEST, UTC+2
  EXPECT_EQ(next("0 9 * * *", "2026-07-15T00:00:00Z", tokyo), "2026-07-16T00:00:00Z");
  std::string error;
  EXPECT_FALSE(TimeZone::load("Mars/Olympus_Mons", &error));
  EXPECT_EQ(error, "unknown time zone Mars/Olympus_Mons");
  EXPECT_FALSE(TimeZone::load("../../etc/passwd", &error));
  EXPECT_FALSE(TimeZone::load("/etc/localtime", &error));
  EXPECT_TRUE(TimeZone::load("", &error));
}

TEST(CronScheduleTest, SpringForwardGapFiresFixedTimesOnceAtTheGapsEnd) {
  // Europe/Berlin, 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00 UTC); 02:30 does not exist.
  const TimeZone berlin = zoneNamed("Europe/Berlin");
  EXPECT_EQ(next("30 2 * * *", "2026-03-29T00:00:00Z", berlin), "2026-03-29T01:00:00Z");
  EXPECT_EQ(next("30 2 * * *", "2026-03-29T01:00:00Z", berlin), "2026-03-30T00:30:00Z");
  // 02:00, 02:20 and 02:40 all lie in the gap: one firing, at its end.
  EXPECT_EQ(firings("*/20 2 * * *", "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z", berlin),
            std::vector<std::string>{"2026-03-29T01:00:00Z"});
  // An hourly job has a shorter day: 01:00, then 03:00 local, nothing in between.
  EXPECT_EQ(firings("0 * * * *", "2026-03-28T23:30:00Z", "2026-03-29T01:30:00Z", berlin),
            (std::vector<std::string>{"2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z"}));
  // America/New_York, 2026-03-08 02:00 EST -> 03:00 EDT (07:00 UTC).
  EXPECT_EQ(next("15 2 * * *", "2026-03-08T05:00:00Z", zoneNamed("America/New_York")), "2026-03-08T07:00:00Z");
}

TEST(CronScheduleTest, FallBackRepeatFiresFixedTimesOnceAndWildcardHoursByTheClock) {
  // Europe/Berlin, 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00 UTC); 02:00-02:59 happens twice.
  const TimeZone berlin = zoneNamed("Europe/Berlin");
  EXPECT_EQ(firings("30 2 * * *", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z", berlin),
            std::vector<std::string>{"2026-10-25T00:30:00Z"});  // the first 02:30 only
  // From inside the repeated hour (after the first 02:30), today's 02:30 is not fired again.
  EXPECT_EQ(next("30 2 * * *", "2026-10-25T01:10:00Z", berlin), "2026-10-26T01:30:00Z");
  // An hourly job keeps running by the clock: 02:00 CEST, 02:00 CET, 03:00 CET.
  EXPECT_EQ(firings("0 * * * *", "2026-10-24T23:30:00Z", "2026-10-25T02:00:00Z", berlin),
            (std::vector<std::string>{"2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"}));
  // Every 30 minutes through the repeat: four firings in the two local hours 02:xx.
  EXPECT_EQ(firings("*/30 * * * *", "2026-10-24T23:50:00Z", "2026-10-25T01:50:00Z", berlin),
            (std::vector<std::string>{"2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:00:00Z", "2026-10-25T01:30:00Z"}));
}

}  // namespace
}  // namespace fedhpa::api
