// The object lifecycle kube-apiserver users rely on, checked on the stored form: uid and
// generation, optimistic concurrency, status subresource rules, finalizers, deletion.
#include "federation/apiserver/resource_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "federation/storage/sqlite_storage.h"
#include "test/federation/apiserver/test_resource_type.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

json widget(const std::string& name, int size) {
  return {{"apiVersion", "example.io/v1"}, {"kind", "Widget"}, {"metadata", {{"name", name}}}, {"spec", {{"size", size}}}};
}

class ResourceStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<storage::Storage> storage_ = storage::SqliteStorage::openInMemory({});
  ResourceStore store_{std::make_shared<testing::WidgetType>(), *storage_};

  json setSize(const std::string& name, int size, Subresource subresource = Subresource::Main) {
    return store_.update("ns", name, [&](const json& current) {
      json next = current;
      next["metadata"].erase("resourceVersion");
      next["spec"]["size"] = size;
      next["status"] = {{"size", size}};
      return next;
    }, subresource, false);
  }
};

int codeOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const api::ApiError& error) {
    return error.code();
  }
  return 0;
}

TEST_F(ResourceStoreTest, CreateFillsMetadataAndDefaults) {
  const json created = store_.create("ns", {{"apiVersion", "example.io/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "a"}}}}, false);
  EXPECT_EQ(created["metadata"]["namespace"], "ns");
  EXPECT_EQ(created["metadata"]["generation"], 1);
  EXPECT_EQ(created["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_FALSE(created["metadata"]["creationTimestamp"].get<std::string>().empty());
  EXPECT_FALSE(created["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_EQ(created["spec"]["size"], 1) << "defaulted";
  EXPECT_EQ(store_.get("ns", "a"), created);
}

TEST_F(ResourceStoreTest, CreateRejectsDuplicatesInvalidObjectsAndResourceVersions) {
  store_.create("ns", widget("a", 1), false);
  EXPECT_EQ(codeOf([&] { store_.create("ns", widget("a", 2), false); }), 409);
  EXPECT_EQ(codeOf([&] { store_.create("ns", widget("b", -1), false); }), 422);
  json withVersion = widget("c", 1);
  withVersion["metadata"]["resourceVersion"] = "5";
  EXPECT_EQ(codeOf([&] { store_.create("ns", withVersion, false); }), 400);
  json otherNamespace = widget("d", 1);
  otherNamespace["metadata"]["namespace"] = "elsewhere";
  EXPECT_EQ(codeOf([&] { store_.create("ns", otherNamespace, false); }), 400);
  EXPECT_EQ(codeOf([&] { store_.get("ns", "b"); }), 404);
}

TEST_F(ResourceStoreTest, GenerateNameMakesAUniqueName) {
  json object = widget("", 1);
  object["metadata"].erase("name");
  object["metadata"]["generateName"] = "w-";
  const json first = store_.create("ns", object, false);
  const json second = store_.create("ns", object, false);
  EXPECT_THAT(first["metadata"]["name"].get<std::string>(), ::testing::StartsWith("w-"));
  EXPECT_NE(first["metadata"]["name"], second["metadata"]["name"]);
}

TEST_F(ResourceStoreTest, DryRunWritesNothing) {
  store_.create("ns", widget("a", 1), true);
  EXPECT_EQ(codeOf([&] { store_.get("ns", "a"); }), 404);
  store_.create("ns", widget("a", 1), false);
  EXPECT_EQ(codeOf([&] { store_.create("ns", widget("a", 2), true); }), 409) << "a dry run still says AlreadyExists";
}

TEST_F(ResourceStoreTest, StaleResourceVersionIsAConflict) {
  const json created = store_.create("ns", widget("a", 1), false);
  setSize("a", 2);
  const int code = codeOf([&] {
    store_.update("ns", "a", [&](const json&) {
      json stale = created;
      stale["spec"]["size"] = 3;
      return stale;
    }, Subresource::Main, false);
  });
  EXPECT_EQ(code, 409);
  EXPECT_EQ(store_.get("ns", "a")["spec"]["size"], 2);
}

TEST_F(ResourceStoreTest, GenerationCountsSpecChangesOnly) {
  store_.create("ns", widget("a", 1), false);
  EXPECT_EQ(setSize("a", 2)["metadata"]["generation"], 2);
  const json labelled = store_.update("ns", "a", [](const json& current) {
    json next = current;
    next["metadata"]["labels"] = {{"tier", "web"}};
    return next;
  }, Subresource::Main, false);
  EXPECT_EQ(labelled["metadata"]["generation"], 2);
}

TEST_F(ResourceStoreTest, NoOpUpdateKeepsTheResourceVersion) {
  const json created = store_.create("ns", widget("a", 1), false);
  const json same = store_.update("ns", "a", [](const json& current) { return current; }, Subresource::Main, false);
  EXPECT_EQ(same["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
}

TEST_F(ResourceStoreTest, MainResourceIgnoresStatusAndStatusIgnoresSpec) {
  store_.create("ns", widget("a", 1), false);
  const json main = setSize("a", 2, Subresource::Main);
  EXPECT_EQ(main["spec"]["size"], 2);
  EXPECT_FALSE(main.contains("status"));
  const json status = setSize("a", 7, Subresource::Status);
  EXPECT_EQ(status["spec"]["size"], 2);
  EXPECT_EQ(status["status"]["size"], 7);
  EXPECT_EQ(status["metadata"]["generation"], 2) << "a status write is no spec change";
}

TEST_F(ResourceStoreTest, FinalizersKeepADeletedObjectUntilRemoved) {
  json object = widget("a", 1);
  object["metadata"]["finalizers"] = {"example.io/cleanup"};
  store_.create("ns", object, false);
  const DeleteResult pending = store_.remove("ns", "a", {});
  EXPECT_FALSE(pending.deleted);
  EXPECT_FALSE(store_.get("ns", "a")["metadata"]["deletionTimestamp"].get<std::string>().empty());
  EXPECT_EQ(codeOf([&] {
              store_.update("ns", "a", [](const json& current) {
                json next = current;
                next["metadata"]["finalizers"].push_back("another");
                return next;
              }, Subresource::Main, false);
            }),
            422);
  store_.update("ns", "a", [](const json& current) {
    json next = current;
    next["metadata"].erase("finalizers");
    return next;
  }, Subresource::Main, false);
  EXPECT_EQ(codeOf([&] { store_.get("ns", "a"); }), 404);
}

TEST_F(ResourceStoreTest, OrphanPropagationAddsTheOrphanFinalizerForControllersToSee) {
  json object = widget("a", 1);
  object["metadata"]["finalizers"] = {"example.io/cleanup"};
  store_.create("ns", object, false);
  DeleteOptions orphan;
  orphan.propagationPolicy = PropagationPolicy::Orphan;
  EXPECT_FALSE(store_.remove("ns", "a", orphan).deleted);
  EXPECT_EQ(store_.get("ns", "a")["metadata"]["finalizers"], json({"example.io/cleanup", "orphan"}));
  // The controller sees "orphan", leaves what it manages in place and drops its own finalizer;
  // nothing then waits on the orphan finalizer and the deletion completes.
  store_.update("ns", "a", [](const json& current) {
    json next = current;
    next["metadata"]["finalizers"] = {"orphan"};
    return next;
  }, Subresource::Main, false);
  EXPECT_EQ(codeOf([&] { store_.get("ns", "a"); }), 404);
}

TEST_F(ResourceStoreTest, OrphanDeleteWithoutOtherFinalizersCompletesAtOnce) {
  store_.create("ns", widget("a", 1), false);
  DeleteOptions orphan;
  orphan.propagationPolicy = PropagationPolicy::Orphan;
  EXPECT_TRUE(store_.remove("ns", "a", orphan).deleted);
}

TEST_F(ResourceStoreTest, BackgroundDeleteDropsAnEarlierOrphanRequest) {
  json object = widget("a", 1);
  object["metadata"]["finalizers"] = {"example.io/cleanup"};
  store_.create("ns", object, false);
  DeleteOptions orphan;
  orphan.propagationPolicy = PropagationPolicy::Orphan;
  store_.remove("ns", "a", orphan);
  DeleteOptions background;
  background.propagationPolicy = PropagationPolicy::Background;
  EXPECT_FALSE(store_.remove("ns", "a", background).deleted);
  EXPECT_EQ(store_.get("ns", "a")["metadata"]["finalizers"], json({"example.io/cleanup"}));
}

TEST_F(ResourceStoreTest, DeletePreconditions) {
  store_.create("ns", widget("a", 1), false);
  DeleteOptions wrongUid;
  wrongUid.preconditionUid = "not-the-uid";
  EXPECT_EQ(codeOf([&] { store_.remove("ns", "a", wrongUid); }), 409);
  EXPECT_EQ(codeOf([&] { store_.remove("ns", "missing", {}); }), 404);
  EXPECT_TRUE(store_.remove("ns", "a", {}).deleted);
}

TEST_F(ResourceStoreTest, ListFiltersPagesAndKeepsOneRevision) {
  for (int i = 0; i < 5; ++i) store_.create("ns", widget("w" + std::to_string(i), i), false);
  store_.create("other", widget("x", 9), false);
  const ListPage all = store_.list({"", {}, std::nullopt, ""});
  EXPECT_EQ(all.items.size(), 6u);
  const auto even = [](const json& o) { return o["spec"]["size"].get<int>() % 2 == 0; };
  ListPage page = store_.list({"ns", even, 2, ""});
  ASSERT_EQ(page.items.size(), 2u);
  ASSERT_FALSE(page.continueToken.empty());
  store_.create("ns", widget("w9", 8), false);  // after the first page: not in this list
  const ListPage rest = store_.list({"ns", even, 2, page.continueToken});
  std::vector<std::string> names;
  for (const auto& item : rest.items) names.push_back(item["metadata"]["name"]);
  EXPECT_THAT(names, ElementsAre("w4"));
  EXPECT_TRUE(rest.continueToken.empty());
  EXPECT_EQ(rest.resourceVersion, page.resourceVersion);
  EXPECT_EQ(codeOf([&] { store_.list({"ns", {}, 2, "!!!"}); }), 400);
}

TEST_F(ResourceStoreTest, WatchReportsAddedModifiedDeletedWithPreviousState) {
  const auto start = store_.currentRevision();
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<StoreWatchEvent> events;
  auto watch = store_.watch("ns", start, [&](const StoreWatchEvent& event) {
    std::lock_guard lock(mutex);
    events.push_back(event);
    changed.notify_all();
  });
  store_.create("ns", widget("a", 1), false);
  setSize("a", 2);
  store_.remove("ns", "a", {});
  std::unique_lock lock(mutex);
  ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return events.size() == 3; }));
  EXPECT_EQ(events[0].type, WatchEventType::Added);
  EXPECT_EQ(events[1].type, WatchEventType::Modified);
  EXPECT_EQ(events[1].previous->object().at("spec")["size"], 1);
  EXPECT_EQ(events[2].type, WatchEventType::Deleted);
  EXPECT_EQ(events[2].object.object()["spec"]["size"], 2);
  EXPECT_GT(std::stoll(events[2].object.object()["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(events[1].object.object()["metadata"]["resourceVersion"].get<std::string>()));
}

}  // namespace
}  // namespace fedhpa::apiserver
