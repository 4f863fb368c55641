// The watch cache's bounds (history by count and by age on an injected clock) and its consistent
// snapshots for continue pages.
#include "federation/storage/watch_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/federation/common/fake_time_source.h"

namespace fedhpa::storage {
namespace {

using ::testing::ElementsAre;

class WatchCacheTest : public ::testing::Test {
 protected:
  WatchCache makeCache(WatchCacheLimits limits) {
    ListResult listed;
    listed.revision = 10;
    listed.items = {std::make_shared<const KeyValue>(KeyValue{"/r/b", "b", 5, 5}),
                    std::make_shared<const KeyValue>(KeyValue{"/r/d", "d", 7, 7})};
    return WatchCache("/r/", listed, limits, time_);
  }
  // The next write to key: a Put of value, or a Delete when value is empty.
  WatchEvent next(const std::string& key, const std::string& value) {
    WatchEvent event;
    event.type = value.empty() ? WatchEvent::Type::Delete : WatchEvent::Type::Put;
    event.kv = {key, value, ++revision_, revision_};
    return event;
  }
  static std::vector<std::string> keysOf(const std::optional<ListResult>& result) {
    std::vector<std::string> keys;
    for (const auto& kv : result.value().items) keys.push_back(kv->key);
    return keys;
  }
  static std::vector<Revision> revisionsOf(const std::optional<std::vector<SharedEvent>>& events) {
    std::vector<Revision> revisions;
    for (const auto& event : events.value()) revisions.push_back(event->kv.modRevision);
    return revisions;
  }

  fedhpa::testing::FakeTimeSource time_;
  Revision revision_ = 10;
};

TEST_F(WatchCacheTest, HistoryKeepsAtMostItsSize) {
  WatchCache cache = makeCache({.historySize = 3});
  for (const char* key : {"/r/1", "/r/2", "/r/3", "/r/4", "/r/5"}) cache.apply(next(key, "v"));
  EXPECT_EQ(cache.windowStart(), 12);
  EXPECT_FALSE(cache.eventsAfter(11, "/r/")) << "revision 12 was forgotten: a watch from 11 is expired";
  EXPECT_THAT(revisionsOf(cache.eventsAfter(12, "/r/")), ElementsAre(13, 14, 15));
  EXPECT_THAT(revisionsOf(cache.eventsAfter(15, "/r/")), ElementsAre());
}

TEST_F(WatchCacheTest, HistoryForgetsEventsOlderThanItsAgeEvenWithRoomLeft) {
  WatchCache cache = makeCache({.historySize = 100, .historyAge = std::chrono::seconds(60)});
  cache.apply(next("/r/1", "v"));
  cache.apply(next("/r/2", "v"));
  time_.advance(std::chrono::seconds(40));
  cache.apply(next("/r/3", "v"));
  EXPECT_THAT(revisionsOf(cache.eventsAfter(10, "/r/")), ElementsAre(11, 12, 13)) << "all younger than 60 s";
  time_.advance(std::chrono::seconds(30));  // 11 and 12 are 70 s old, 13 is 30 s old
  EXPECT_FALSE(cache.eventsAfter(10, "/r/"));
  EXPECT_FALSE(cache.eventsAfter(11, "/r/"));
  EXPECT_THAT(revisionsOf(cache.eventsAfter(12, "/r/")), ElementsAre(13));
  time_.advance(std::chrono::seconds(31));
  EXPECT_THAT(revisionsOf(cache.eventsAfter(13, "/r/")), ElementsAre()) << "an idle resource stays watchable from now";
  EXPECT_FALSE(cache.eventsAfter(12, "/r/"));
}

TEST_F(WatchCacheTest, EventsAfterFiltersByKeyPrefix) {
  WatchCache cache = makeCache({});
  cache.apply(next("/r/ns1/a", "v"));
  cache.apply(next("/r/ns2/a", "v"));
  cache.apply(next("/r/ns1/b", ""));
  EXPECT_THAT(revisionsOf(cache.eventsAfter(10, "/r/ns1/")), ElementsAre(11, 13));
}

TEST_F(WatchCacheTest, ListsTheCurrentStateInPages) {
  WatchCache cache = makeCache({});
  cache.apply(next("/r/a", "a"));
  cache.apply(next("/r/d", ""));
  EXPECT_THAT(keysOf(cache.list({"/r/", {}, {}, ""})), ElementsAre("/r/a", "/r/b"));
  const auto first = cache.list({"/r/", {}, 1, ""});
  EXPECT_THAT(keysOf(first), ElementsAre("/r/a"));
  EXPECT_TRUE(first->more);
  EXPECT_EQ(first->revision, 12);
  const auto second = cache.list({"/r/", first->revision, 1, "/r/a"});
  EXPECT_THAT(keysOf(second), ElementsAre("/r/b"));
  EXPECT_FALSE(second->more);
}

TEST_F(WatchCacheTest, ContinuePagesReadTheFirstPagesMomentWhileWritesGoOn) {
  WatchCache cache = makeCache({});
  const auto first = cache.list({"/r/", {}, 1, ""});
  ASSERT_THAT(keysOf(first), ElementsAre("/r/b"));
  cache.apply(next("/r/c", "c"));  // after the first page's moment: not in its continue pages
  cache.apply(next("/r/d", ""));   // deleted since: still in them
  const auto second = cache.list({"/r/", first->revision, 1, "/r/b"});
  EXPECT_THAT(keysOf(second), ElementsAre("/r/d"));
  EXPECT_EQ(second->revision, first->revision);
  EXPECT_FALSE(second->more);
  EXPECT_THAT(keysOf(cache.list({"/r/", {}, {}, ""})), ElementsAre("/r/b", "/r/c"));
}

TEST_F(WatchCacheTest, SnapshotsAreForgottenByAgeAndCount) {
  WatchCache cache = makeCache({.historySize = 100, .historyAge = std::chrono::seconds(60), .snapshotsKept = 1});
  const Revision early = cache.list({"/r/", {}, 1, ""})->revision;
  cache.apply(next("/r/c", "c"));
  const Revision later = cache.list({"/r/", {}, 1, ""})->revision;
  EXPECT_FALSE(cache.list({"/r/", early, 1, "/r/b"})) << "one snapshot kept: the later one";
  EXPECT_TRUE(cache.list({"/r/", later, 1, "/r/b"}));
  cache.apply(next("/r/e", "e"));
  time_.advance(std::chrono::seconds(61));
  EXPECT_FALSE(cache.list({"/r/", later, 1, "/r/b"})) << "older than the history's age";
  EXPECT_FALSE(cache.list({"/r/", 3, {}, ""})) << "a revision the cache never held";
}

// A list's first page taken again at a revision a snapshot is already kept for (nothing written
// since): its continue pages have the history's whole age from then, not from the older page.
TEST_F(WatchCacheTest, AFirstPageAtAKeptRevisionRenewsItsSnapshot) {
  WatchCache cache = makeCache({.historySize = 100, .historyAge = std::chrono::seconds(60), .snapshotsKept = 4});
  const Revision revision = cache.list({"/r/", {}, 1, ""})->revision;
  time_.advance(std::chrono::seconds(50));
  ASSERT_EQ(cache.list({"/r/", {}, 1, ""})->revision, revision);
  cache.apply(next("/r/c", "c"));
  time_.advance(std::chrono::seconds(20));
  EXPECT_TRUE(cache.list({"/r/", revision, 1, "/r/b"})) << "the second first page is 20 s old, not 70";
}

TEST_F(WatchCacheTest, AValueSharesItsDerivedFormsWithEveryReaderUntilTheKeyChanges) {
  WatchCache cache = makeCache({});
  const auto formsOf = [&](const std::string& key) {
    const ListResult listed = cache.list({key, {}, {}, ""}).value();
    return listed.items.empty() ? nullptr : listed.items.front()->derived;
  };
  const auto listed = formsOf("/r/b");
  ASSERT_NE(listed, nullptr);
  EXPECT_EQ(formsOf("/r/b"), listed) << "two lists read one value: one set of forms";
  EXPECT_EQ(*listed->get<std::string>("form", [] { return std::string("made once"); }), "made once");
  EXPECT_EQ(*listed->get<std::string>("form", [] { return std::string("made again"); }), "made once");

  WatchEvent update = next("/r/b", "b2");
  update.previous = KeyValue{"/r/b", "b", 5, 5};
  const SharedEvent applied = cache.apply(update);
  ASSERT_TRUE(applied->previous.has_value());
  EXPECT_EQ(applied->previous->derived, listed) << "the event's previous value is the value lists read";
  EXPECT_NE(applied->kv.derived, listed) << "a new value gets new forms";
  EXPECT_EQ(formsOf("/r/b"), applied->kv.derived) << "lists after the event share the event's forms";
  EXPECT_EQ(*formsOf("/r/b")->get<std::string>("form", [] { return std::string("of b2"); }), "of b2");

  const SharedEvent deleted = cache.apply(next("/r/b", ""));
  EXPECT_NE(deleted->kv.derived, applied->kv.derived) << "a delete's value carries the delete's revision";
}

// A decoded object is kept only while some reader holds it: readers at the same time share one,
// and once they have all let it go it is freed and the next reader makes its own.
TEST(DerivedForms, AFormKeptWhileHeldIsSharedByItsHoldersAndFreedAfterThem) {
  DerivedForms forms;
  int made = 0;
  const auto make = [&made] { return "decoded #" + std::to_string(++made); };
  auto first = forms.getWhileHeld<std::string>("object", make);
  auto second = forms.getWhileHeld<std::string>("object", make);
  EXPECT_EQ(first, second) << "held by the first reader: shared";
  EXPECT_EQ(made, 1);
  const std::weak_ptr<const std::string> watched = first;
  first.reset();
  second.reset();
  EXPECT_TRUE(watched.expired()) << "the forms do not keep it";
  EXPECT_EQ(*forms.getWhileHeld<std::string>("object", make), "decoded #2");
  EXPECT_EQ(forms.find<std::string>("object"), nullptr) << "not among the forms kept for the value's life";
}

}  // namespace
}  // namespace fedhpa::storage
