// WriteExpectations: a reconcile sees its own writes until the cache has caught up with them.
#include "federation/controller/write_expectations.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fedhpa::controller {
namespace {

using clusters::json;

json hpa(const std::string& version, int max) {
  return {{"metadata", {{"name", "a"}, {"resourceVersion", version}}}, {"spec", {{"maxReplicas", max}}}};
}

TEST(WriteExpectationsTest, AWriteStandsInForTheCacheUntilTheCacheShowsIt) {
  WriteExpectations expectations;
  expectations.written("m1", "ns/a", hpa("12", 5));
  EXPECT_EQ((*expectations.current("m1", "ns/a", [] { return std::optional<json>(hpa("10", 2)); }))["spec"]["maxReplicas"], 5) << "the cache is behind";
  EXPECT_EQ((*expectations.current("m1", "ns/a", [] { return std::optional<json>(std::nullopt); }))["spec"]["maxReplicas"], 5) << "a create not seen yet";
  EXPECT_EQ((*expectations.current("m2", "ns/a", [] { return std::optional<json>(hpa("10", 2)); }))["spec"]["maxReplicas"], 2) << "another member";
  EXPECT_EQ((*expectations.current("m1", "ns/a", [] { return std::optional<json>(hpa("13", 7)); }))["spec"]["maxReplicas"], 7) << "the cache is newer";
  EXPECT_EQ(expectations.pending(), 0u);
}

TEST(WriteExpectationsTest, ADeleteHidesTheCachedCopyUntilItIsGone) {
  WriteExpectations expectations;
  expectations.deleted("m1", "ns/a", "12");
  EXPECT_FALSE(expectations.current("m1", "ns/a", [] { return std::optional<json>(hpa("12", 2)); })) << "the cache still shows the deleted version";
  EXPECT_EQ(expectations.pending(), 1u);
  EXPECT_FALSE(expectations.current("m1", "ns/a", [] { return std::optional<json>(std::nullopt); }));
  EXPECT_EQ(expectations.pending(), 0u);
  expectations.deleted("m1", "ns/a", "12");
  EXPECT_EQ((*expectations.current("m1", "ns/a", [] { return std::optional<json>(hpa("15", 3)); }))["spec"]["maxReplicas"], 3) << "created again since";
}

// The member's watch event of a write can come before the write's answer: while the write is
// under way its object's events are held back, and its answer tells whether they echoed it.
TEST(WriteExpectationsTest, AnEventDuringAWriteIsHeldBackUntilTheAnswerSaysWhetherItEchoedIt) {
  std::vector<std::string> missed;
  WriteExpectations expectations([&](const std::string& key) { missed.push_back(key); });
  expectations.writing("m1", "ns/a");
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/a", "12")) << "held back";
  EXPECT_FALSE(expectations.cacheShows("m2", "ns/a", "12")) << "another member's copy: no write under way";
  expectations.written("m1", "ns/a", hpa("12", 5));
  EXPECT_TRUE(missed.empty()) << "it was the write's echo";
  EXPECT_FALSE(expectations.cacheShows("m1", "ns/a", "13")) << "the write is answered: nothing is held back any more";

  expectations.writing("m1", "ns/b");
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/b", "20"));
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/b", "21")) << "someone else's change after the write";
  expectations.written("m1", "ns/b", hpa("20", 5));
  EXPECT_EQ(missed, std::vector<std::string>{"ns/b"}) << "version 21 was no echo: the key goes back to the queue";
}

// The echo came before the answer, so the cache showed the write before it was expected: a
// cache that shows no copy afterwards has seen it deleted, and the write must not stand in for it.
TEST(WriteExpectationsTest, AWriteTheCacheShowedBeforeItsAnswerDoesNotHideALaterDelete) {
  WriteExpectations expectations([](const std::string&) {});
  expectations.writing("m1", "ns/a");
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/a", "12"));
  expectations.written("m1", "ns/a", hpa("12", 5), "10");
  EXPECT_EQ((*expectations.ownWriteOver("m1", "ns/a", "10"))["spec"]["maxReplicas"], 5) << "still the base of a write from 10";
  EXPECT_FALSE(expectations.current("m1", "ns/a", [] { return std::optional<json>(std::nullopt); })) << "deleted since the cache showed it";
  EXPECT_EQ(expectations.pending(), 0u);

  expectations.writing("m1", "ns/a");
  expectations.written("m1", "ns/a", hpa("14", 5));
  EXPECT_TRUE(expectations.current("m1", "ns/a", [] { return std::optional<json>(std::nullopt); })) << "a create the cache has not shown yet still stands";
}

TEST(WriteExpectationsTest, ForgettingAKeyForgetsItForEveryMember) {
  WriteExpectations expectations;
  expectations.deleted("m1", "ns/a", "");
  expectations.deleted("m2", "ns/a", "");
  expectations.written("(federation)", "ns/a", hpa("30", 5));
  expectations.unanswered("m3", "ns/a", "", MonotonicTime{});
  expectations.written("m1", "ns/b", hpa("12", 5));
  expectations.forgetKey("ns/a");
  EXPECT_EQ(expectations.pending(), 1u) << "only ns/b's";
  EXPECT_EQ((*expectations.current("m1", "ns/b", [] { return std::optional<json>(std::nullopt); }))["spec"]["maxReplicas"], 5);
}

TEST(WriteExpectationsTest, EventsHeldBackDuringAFailedWriteGoBackToTheQueue) {
  std::vector<std::string> missed;
  WriteExpectations expectations([&](const std::string& key) { missed.push_back(key); });
  expectations.writing("m1", "ns/a");
  expectations.notWritten("m1", "ns/a");
  EXPECT_TRUE(missed.empty()) << "nothing arrived meanwhile";
  expectations.writing("m1", "ns/a");
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/a", "12"));
  expectations.notWritten("m1", "ns/a");  // a 409: someone else wrote version 12
  EXPECT_EQ(missed, std::vector<std::string>{"ns/a"});
}

// Two writes of one object under way at once (a reconcile's and the status writer's): what
// arrives is decided once both are answered, against either answer.
TEST(WriteExpectationsTest, OverlappingWritesDecideWhenTheLastIsAnswered) {
  std::vector<std::string> missed;
  WriteExpectations expectations([&](const std::string& key) { missed.push_back(key); });
  expectations.writing("(federation)", "ns/a");
  expectations.writing("(federation)", "ns/a");
  EXPECT_TRUE(expectations.cacheShows("(federation)", "ns/a", "30"));
  EXPECT_TRUE(expectations.cacheShows("(federation)", "ns/a", "31"));
  expectations.written("(federation)", "ns/a", hpa("30", 5));
  EXPECT_TRUE(missed.empty()) << "one write is still under way";
  expectations.written("(federation)", "ns/a", hpa("31", 5));
  EXPECT_TRUE(missed.empty()) << "both events were echoes";
  EXPECT_EQ(expectations.pending(), 1u) << "the last answer stands in for the cache until it shows it";
}

TEST(WriteExpectationsTest, WithoutARequeueNothingIsHeldBack) {
  WriteExpectations expectations;
  expectations.writing("m1", "ns/a");
  EXPECT_FALSE(expectations.cacheShows("m1", "ns/a", "12")) << "the event is handled as it comes";
  expectations.written("m1", "ns/a", hpa("12", 5));
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/a", "12"));
}

TEST(WriteExpectationsTest, AForgottenMemberHoldsNothingBack) {
  std::vector<std::string> missed;
  WriteExpectations expectations([&](const std::string& key) { missed.push_back(key); });
  expectations.writing("m1", "ns/a");
  expectations.forgetMember("m1");
  EXPECT_FALSE(expectations.cacheShows("m1", "ns/a", "12"));
  expectations.notWritten("m1", "ns/a");
  EXPECT_TRUE(missed.empty());
}

// A member left while a write to it was under way: what the write answers (or its silence)
// is not expected of the member that joins again under that name.
TEST(WriteExpectationsTest, AWriteSentBeforeItsMemberLeftRecordsNothing) {
  std::vector<std::string> missed;
  WriteExpectations expectations([&](const std::string& key) { missed.push_back(key); });
  const auto created = expectations.writing("m1", "ns/a");
  const auto raised = expectations.writing("m1", "ns/b");
  expectations.forgetMember("m1");
  const auto again = expectations.writing("m1", "ns/a");  // to the member that joined again
  EXPECT_TRUE(expectations.cacheShows("m1", "ns/a", "3"));
  expectations.written("m1", "ns/a", hpa("12", 5), "", created);
  expectations.notWritten("m1", "ns/b", raised);
  expectations.unanswered("m1", "ns/b", "", MonotonicTime{}, raised);
  EXPECT_EQ(expectations.pending(), 0u);
  EXPECT_FALSE(expectations.current("m1", "ns/a", [] { return std::optional<json>(std::nullopt); }));
  EXPECT_TRUE(missed.empty()) << "the new write is still under way";
  expectations.written("m1", "ns/a", hpa("3", 5), "", again);
  EXPECT_TRUE(missed.empty()) << "version 3 was the new write's echo";
  EXPECT_EQ(expectations.pending(), 1u);
}

// A raise over version 12 went unanswered: until the cache shows a later version it may still
// come, and once the member has answered for the window without that, it is due for one read.
TEST(WriteExpectationsTest, AnUnansweredWriteStaysUntilTheCacheShowsTheMemberActedOrItIsDue) {
  using Unanswered = WriteExpectations::Unanswered;
  WriteExpectations expectations;
  const MonotonicTime start{};
  const std::chrono::seconds window{60};
  expectations.unanswered("m1", "ns/a", "12", start);
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("12", 2), start + window / 2, true, window), Unanswered::Pending);
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("11", 2), start + window / 2, true, window), Unanswered::Pending)
      << "a cache behind the write's base says nothing";
  EXPECT_EQ(expectations.unansweredWrite("m2", "ns/a", hpa("12", 2), start, true, window), Unanswered::None);
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("12", 2), start + window - std::chrono::seconds(1), false, window),
            Unanswered::Pending)
      << "a member not answering may still hold the request: the window starts again";
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("12", 2), start + window + window / 2, true, window), Unanswered::Pending);
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("12", 2), start + 2 * window, true, window), Unanswered::Due);
  expectations.settled("m1", "ns/a");
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("12", 2), start + 2 * window, true, window), Unanswered::None);

  expectations.unanswered("m1", "ns/a", "", start);  // a create
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", std::nullopt, start, true, window), Unanswered::Pending);
  EXPECT_EQ(expectations.unansweredWrite("m1", "ns/a", hpa("13", 4), start, true, window), Unanswered::None)
      << "the cache shows the copy: the member acted";
  EXPECT_EQ(expectations.pending(), 0u);
}

TEST(WriteExpectationsTest, VersionsCompareAsNumbersWhenTheyAreNumbers) {
  EXPECT_TRUE(resourceVersionAtLeast("100", "99"));
  EXPECT_FALSE(resourceVersionAtLeast("99", "100"));
  EXPECT_TRUE(resourceVersionAtLeast("abc", "abc"));
  EXPECT_FALSE(resourceVersionAtLeast("abd", "abc"));
}

}  // namespace
}  // namespace fedhpa::controller
