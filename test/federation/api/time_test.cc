#include "federation/api/time.h"

#include "federation/api/printing.h"

#include <gtest/gtest.h>

namespace fedhpa::api {
namespace {

using namespace std::chrono;

TEST(Rfc3339, RoundTripsWhatKubernetesWrites) {
  const auto t = parseRfc3339("2026-11-22T09:50:07Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(formatRfc3339(*t), "2026-11-22T09:50:07Z");
}

TEST(Rfc3339, HonoursOffsetsAndFractions) {
  const auto utc = parseRfc3339("2026-11-22T10:00:00Z");
  EXPECT_EQ(parseRfc3339("2026-11-22T11:30:00+01:30"), utc);
  EXPECT_EQ(parseRfc3339("2026-11-22T07:00:00-03:00"), utc);
  const auto fraction = parseRfc3339("2026-11-22T10:00:00.250Z");
  ASSERT_TRUE(fraction);
  EXPECT_EQ(duration_cast<milliseconds>(*fraction - *utc).count(), 250);
}

TEST(Rfc3339, RejectsWhatIsNotATime) {
  for (const char* bad : {"", "yesterday", "2026-11-22", "2026-11-22T10:00:00", "2026-13-01T00:00:00Z",
                          "2026-02-30T00:00:00Z", "2026-11-22T25:00:00Z", "2026-11-22T10:00:00Zjunk",
                          "2026-11-22T10:00:00.Z"}) {
    EXPECT_FALSE(parseRfc3339(bad)) << bad;
  }
}

// Found by api_object_fuzz: an Event last seen in year 1013 overflowed the nanosecond count (UBSan)
// when its Table row was computed (test/fuzz/corpus/api_object_fuzz/event-last-seen-in-year-1013).
TEST(Rfc3339, RefusesTimesTheClockCannotHoldInsteadOfOverflowing) {
  EXPECT_FALSE(parseRfc3339("1013-01-01T00:00:00Z"));
  EXPECT_FALSE(parseRfc3339("0000-01-01T00:00:00Z"));
  EXPECT_FALSE(parseRfc3339("9999-12-31T23:59:59.999999999-23:59"));
  const auto old = parseRfc3339("1700-06-01T00:00:00Z");
  ASSERT_TRUE(old);
  EXPECT_EQ(formatRfc3339(*old), "1700-06-01T00:00:00Z");
}

TEST(Rfc3339, AgeOfAnObjectCreatedCenturiesAgoIsInYears) {
  const nlohmann::json object = {{"metadata", {{"creationTimestamp", "1700-06-01T00:00:00Z"}}}};
  const std::string age = ageOf(object, *parseRfc3339("2026-06-01T00:00:00Z"));
  EXPECT_EQ(age, "326y");
  const nlohmann::json future = {{"metadata", {{"creationTimestamp", "2261-01-01T00:00:00Z"}}}};
  EXPECT_EQ(ageOf(future, *parseRfc3339("1700-06-01T00:00:00Z")), "<invalid>");
}

}  // namespace
}  // namespace fedhpa::api
