#include "federation/common/duration.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fedhpa {
namespace {

using std::chrono::nanoseconds;

constexpr std::int64_t kSecond = 1'000'000'000;

struct Case {
  std::string text;
  std::optional<std::int64_t> nanos;  // nullopt: rejected
};

// Go's own time.ParseDuration cases (time_test.go's parseDurationTests) and a few more.
const Case kCases[] = {
    {"0", 0},
    {"5s", 5 * kSecond},
    {"30s", 30 * kSecond},
    {"1478s", 1478 * kSecond},
    {"-5s", -5 * kSecond},
    {"+5s", 5 * kSecond},
    {"-0", 0},
    {"+0", 0},
    {"0s", 0},
    {"5.0s", 5 * kSecond},
    {"5.6s", 5 * kSecond + 600'000'000},
    {"5.s", 5 * kSecond},
    {".5s", kSecond / 2},
    {"1.0s", kSecond},
    {"1.00s", kSecond},
    {"1.004s", kSecond + 4'000'000},
    {"1.0040s", kSecond + 4'000'000},
    {"100.00100s", 100 * kSecond + 1'000'000},
    {"10ns", 10},
    {"11us", 11'000},
    {"12\xC2\xB5s", 12'000},  // U+00B5 micro sign
    {"12\xCE\xBCs", 12'000},  // U+03BC Greek mu
    {"13ms", 13'000'000},
    {"14s", 14 * kSecond},
    {"15m", 15 * 60 * kSecond},
    {"16h", 16 * 3600 * kSecond},
    {"3h30m", (3 * 3600 + 30 * 60) * kSecond},
    {"10.5s4m", 4 * 60 * kSecond + 10 * kSecond + 500'000'000},
    {"-2m3.4s", -(2 * 60 * kSecond + 3 * kSecond + 400'000'000)},
    {"1h2m3s4ms5us6ns", 3600 * kSecond + 2 * 60 * kSecond + 3 * kSecond + 4'000'000 + 5'000 + 6},
    {"39h9m14.425s", (39 * 3600 + 9 * 60 + 14) * kSecond + 425'000'000},
    {"52763797000ns", 52'763'797'000},
    {"0.3333333333333333333h", 20 * 60 * kSecond},
    {"9007199254740993ns", 9'007'199'254'740'993},
    {"9223372036854775807ns", INT64_MAX},
    {"9223372036854775.807us", INT64_MAX},
    {"9223372036s854ms775us807ns", INT64_MAX},
    {"-9223372036854775808ns", INT64_MIN},
    {"-9223372036854775.808us", INT64_MIN},
    {"0.100000000000000000000h", 6 * 60 * kSecond},
    {"1m30s", 90 * kSecond},
    {"1.5h", 5400 * kSecond},
    {"2m", 120 * kSecond},
    {"500ms", 500'000'000},
    // Rejected, as Go rejects them.
    {"", std::nullopt},
    {"3", std::nullopt},
    {"-", std::nullopt},
    {"s", std::nullopt},
    {".", std::nullopt},
    {"-.", std::nullopt},
    {".s", std::nullopt},
    {"+.s", std::nullopt},
    {"1d", std::nullopt},
    {"1sec", std::nullopt},
    {"1 s", std::nullopt},
    {" 1s", std::nullopt},
    {"1s ", std::nullopt},
    {"1e3s", std::nullopt},
    {"1S", std::nullopt},
    {"00", std::nullopt},
    {"1s2", std::nullopt},
    {"9223372036854775808ns", std::nullopt},
    {"9223372036854775.808us", std::nullopt},
    {"9223372036854ms775us808ns", std::nullopt},
    {"-9223372036854775809ns", std::nullopt},
    {"3000000h", std::nullopt},
};

TEST(ParseGoDuration, ReadsWhatGoReads) {
  for (const auto& c : kCases) {
    const auto parsed = parseGoDuration(c.text);
    if (!c.nanos) {
      EXPECT_FALSE(parsed) << '"' << c.text << "\" should be rejected, got " << parsed->count() << "ns";
      continue;
    }
    ASSERT_TRUE(parsed) << '"' << c.text << "\" should parse";
    EXPECT_EQ(parsed->count(), *c.nanos) << '"' << c.text << '"';
  }
}

TEST(ParseDurationFlag, RejectsNegativeDurationsAndRoundsUpToMilliseconds) {
  EXPECT_EQ(parseDurationFlag("0"), std::chrono::milliseconds(0));
  EXPECT_EQ(parseDurationFlag("0s"), std::chrono::milliseconds(0));
  EXPECT_EQ(parseDurationFlag("1m30s"), std::chrono::milliseconds(90'000));
  EXPECT_EQ(parseDurationFlag("1.5h"), std::chrono::milliseconds(5'400'000));
  EXPECT_EQ(parseDurationFlag("1ns"), std::chrono::milliseconds(1)) << "a positive duration stays positive";
  EXPECT_EQ(parseDurationFlag("1500us"), std::chrono::milliseconds(2));
  EXPECT_EQ(parseDurationFlag("-0s"), std::chrono::milliseconds(0));
  EXPECT_FALSE(parseDurationFlag("-1s"));
  EXPECT_FALSE(parseDurationFlag("-1ns"));
  EXPECT_FALSE(parseDurationFlag("30"));
  EXPECT_FALSE(parseDurationFlag("1x"));
}

}  // namespace
}  // namespace fedhpa
