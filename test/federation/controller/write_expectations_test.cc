// WriteExpectations: a reconcile sees its own writes until the cache has caught up with them.
#include "federation/controller/write_expectations.h"

#include <gtest/gtest.h>

namespace fedhpa::controller {
namespace {

using clusters::json;

json hpa(const std::string& version, int max) {
  return {{"metadata", {{"name", "a"}, {"resourceVersion", version}}}, {"spec", {{"maxReplicas", max}}}};
}

TEST(WriteExpectationsTest, AWriteStandsInForTheCacheUntilTheCacheShowsIt) {
  WriteExpectations expectations;
  expectations.written("m1", "ns/a", hpa("12", 5));
  EXPECT_EQ((*expectations.current("m1", "ns/a", hpa("10", 2)))["spec"]["maxReplicas"], 5) << "the cache is behind";
  EXPECT_EQ((*expectations.current("m1", "ns/a", std::nullopt))["spec"]["maxReplicas"], 5) << "a create not seen yet";
  EXPECT_EQ((*expectations.current("m2", "ns/a", hpa("10", 2)))["spec"]["maxReplicas"], 2) << "another member";
  EXPECT_EQ((*expectations.current("m1", "ns/a", hpa("13", 7)))["spec"]["maxReplicas"], 7) << "the cache is newer";
  EXPECT_EQ(expectations.pending(), 0u);
}

TEST(WriteExpectationsTest, ADeleteHidesTheCachedCopyUntilItIsGone) {
  WriteExpectations expectations;
  expectations.deleted("m1", "ns/a", "12");
  EXPECT_FALSE(expectations.current("m1", "ns/a", hpa("12", 2))) << "the cache still shows the deleted version";
  EXPECT_EQ(expectations.pending(), 1u);
  EXPECT_FALSE(expectations.current("m1", "ns/a", std::nullopt));
  EXPECT_EQ(expectations.pending(), 0u);
  expectations.deleted("m1", "ns/a", "12");
  EXPECT_EQ((*expectations.current("m1", "ns/a", hpa("15", 3)))["spec"]["maxReplicas"], 3) << "created again since";
}

TEST(WriteExpectationsTest, VersionsCompareAsNumbersWhenTheyAreNumbers) {
  EXPECT_TRUE(resourceVersionAtLeast("100", "99"));
  EXPECT_FALSE(resourceVersionAtLeast("99", "100"));
  EXPECT_TRUE(resourceVersionAtLeast("abc", "abc"));
  EXPECT_FALSE(resourceVersionAtLeast("abd", "abc"));
}

}  // namespace
}  // namespace fedhpa::controller
