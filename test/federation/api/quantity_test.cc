#include "federation/api/quantity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace fedhpa::api {
namespace {

TEST(Quantity, ParsesKubernetesSuffixesAndExponents) {
  const std::pair<const char*, double> cases[] = {
      {"2k", 2000},          {"300Mi", 300.0 * 1024 * 1024}, {"1500m", 1.5},   {"1e3", 1000},
      {"2Ki", 2048},         {"1E3", 1000},                  {"5e-2", 0.05},   {"1.5Gi", 1.5 * (1 << 30)},
      {"0.5", 0.5},          {"100", 100},                   {"250u", 250e-6}, {"3n", 3e-9},
      {"1M", 1e6},           {"2G", 2e9},                    {"1T", 1e12},     {"1P", 1e15},
      {"1E", 1e18},          {"1Ti", 1099511627776.0},       {"-1", -1},       {"+2", 2},
      {".5", 0.5},           {"1.", 1},                      {"1e+2", 100},
  };
  for (const auto& [text, expected] : cases) {
    const auto value = parseQuantity(text);
    ASSERT_TRUE(value) << text;
    EXPECT_NEAR(*value, expected, std::abs(expected) * 1e-12) << text;
  }
}

TEST(Quantity, RejectsWhatIsNotAQuantity) {
  for (const char* text : {"", "k", "Mi", "1.2.3", "1 k", "1KB", "1ki", "e3", "1e", "1e3.5", "abc",
                           "1x", "--1", "1e++2", "."}) {
    EXPECT_FALSE(parseQuantity(text)) << text;
  }
}

TEST(Quantity, ANumberBeyondADoublesRangeIsNotAQuantityNotAnException) {
  for (const std::string& text : {"1" + std::string(400, '0'), "0." + std::string(400, '0') + "1",
                                  "-1" + std::string(400, '0') + "Ki", "1" + std::string(300, '0') + "E"}) {
    EXPECT_FALSE(parseQuantity(text)) << text.size() << " characters";
  }
  EXPECT_TRUE(parseQuantity("1" + std::string(300, '0'))) << "within range";
  EXPECT_TRUE(parseQuantity("0." + std::string(300, '0') + "1"));
}

}  // namespace
}  // namespace fedhpa::api
