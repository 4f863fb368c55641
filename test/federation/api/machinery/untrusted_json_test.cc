// Client bytes before anything recursive touches them: UTF-8 checks and the JSON depth bound.
#include "federation/api/machinery/untrusted_json.h"

#include <gtest/gtest.h>

#include "federation/api/machinery/protobuf.h"

namespace fedhpa::api::machinery {
namespace {

using nlohmann::json;

TEST(Utf8, AcceptsWellFormedTextAndRejectsEveryIllFormedSequence) {
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_TRUE(isValidUtf8("php-apache"));
  EXPECT_TRUE(isValidUtf8("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"));
  for (const std::string bad : {"\xff", "a\xfe", "\x80", "\xc3\x28", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf",
                                "\xed\xa0\x80", "\xf0\x80\x80\xaf", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xe2\x82",
                                "\xf0\x9f\x98"}) {
    EXPECT_FALSE(isValidUtf8(bad)) << json(sanitizeUtf8(bad)).dump();
  }
}

TEST(Utf8, SanitizingReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(sanitizeUtf8("a\xff" "b\xc3\xa9"), "a\xef\xbf\xbd" "b\xc3\xa9");
  EXPECT_TRUE(isValidUtf8(sanitizeUtf8("\xed\xa0\x80\xf4\x90")));
  EXPECT_EQ(dumpSafe(json("x\xffy")), "\"x\xef\xbf\xbdy\"");
}

TEST(JsonDepth, ThePreScanCountsBracketsOutsideStringsOnly) {
  EXPECT_EQ(jsonNestingDepth("1", 10), 0u);
  EXPECT_EQ(jsonNestingDepth(R"({"a":[{"b":[]}]})", 10), 4u);
  EXPECT_EQ(jsonNestingDepth(R"({"a":"[[[[{{{{","b":"\"[[["})", 10), 1u);
  EXPECT_EQ(jsonNestingDepth(R"(["\\",[[]]])", 10), 3u);
  // It stops as soon as the limit is passed, whatever follows.
  EXPECT_EQ(jsonNestingDepth(std::string(1000000, '['), 256), 257u);
}

TEST(JsonDepth, ParsingRefusesDeepTextBeforeParsingIt) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_THROW(parseUntrustedJson(deep), JsonInputError);
  std::string atLimit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(parseUntrustedJson(atLimit).size(), 1u);
  EXPECT_THROW(parseUntrustedJson("[" + atLimit + "]"), JsonInputError);
  EXPECT_THROW(parseUntrustedJson("{\"a\":\"\xff\"}"), JsonInputError);
  EXPECT_THROW(parseUntrustedJson("{"), JsonInputError);
}

TEST(JsonDepth, ParsedValuesAreMeasuredWithoutRecursion) {
  EXPECT_FALSE(nestsDeeperThan(json(5), 0));
  EXPECT_FALSE(nestsDeeperThan(json::parse(R"({"a":[1]})"), 2));
  EXPECT_TRUE(nestsDeeperThan(json::parse(R"({"a":[1]})"), 1));
  json deep = json::array();
  for (int i = 0; i < 20000; ++i) deep = json::array({std::move(deep)});
  EXPECT_TRUE(nestsDeeperThan(deep, kMaxJsonDepth));
}

TEST(KubernetesProtobufStrings, BytesThatAreNotUtf8AreAnError) {
  // envelope {typeMeta {apiVersion "v1", kind "Namespace"}, raw {metadata {name "\xff"}}}
  const std::string body = std::string("k8s\0", 4) + "\x0a\x0f\x0a\x02v1\x12\x09Namespace" + "\x12\x05\x0a\x03\x0a\x01\xff";
  EXPECT_THROW(decodeKubernetesProtobuf(body), ProtobufError);
  std::string good = body;
  good.back() = 'a';
  EXPECT_EQ(decodeKubernetesProtobuf(good)["metadata"]["name"], "a");
}

}  // namespace
}  // namespace fedhpa::api::machinery
