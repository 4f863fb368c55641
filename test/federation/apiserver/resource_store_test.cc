// The object lifecycle kube-apiserver users rely on, checked on the stored form: uid and
// generation, optimistic concurrency, status subresource rules, finalizers, deletion.
#include "federation/apiserver/resource_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <type_traits>

#include "federation/api/hpa_type.h"
#include "federation/storage/cacher.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/apiserver/test_resource_type.h"
#include "test/federation/common/fake_time_source.h"

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

// Lists and watches behind the watch cache, where each stored version's decoded object and served
// bytes are made once and shared by every request: what is served must still be each request's.
class ResourceStoreOverWatchCacheTest : public ::testing::Test {
 protected:
  static std::unique_ptr<storage::Storage> cached(fedhpa::testing::FakeTimeSource& time) {
    storage::CacherOptions options;
    options.resourcePrefixes = {ResourceStore::resourcePrefix(*api::horizontalPodAutoscalerType())};
    return std::make_unique<storage::Cacher>(storage::SqliteStorage::openInMemory({}), options, time);
  }
  static json hpa(const std::string& name, int cpu, const std::string& tier) {
    return {{"apiVersion", "autoscaling/v2"},
            {"kind", "HorizontalPodAutoscaler"},
            {"metadata", {{"name", name}, {"labels", {{"tier", tier}}}}},
            {"spec",
             {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
              {"minReplicas", 1},
              {"maxReplicas", 10},
              {"metrics", json::array({{{"type", "Resource"},
                                        {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", cpu}}}}}}})}}}};
  }
  // The served bytes of every listed object, parsed back, by name.
  std::map<std::string, json> listServed(const std::string& version, const ListRequest& request = {"ns", {}, std::nullopt, ""}) {
    std::map<std::string, json> served;
    store_.list(request, [&](const StoredObject& object) {
      const json parsed = json::parse(*object.servedJson(version));
      served[parsed["metadata"]["name"].get<std::string>()] = parsed;
    });
    return served;
  }
  void setCpu(const std::string& name, int cpu) {
    store_.update("ns", name, [&](const json& current) {
      json next = current;
      next["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] = cpu;
      return next;
    }, Subresource::Main, false);
  }

  fedhpa::testing::FakeTimeSource time_;
  std::unique_ptr<storage::Storage> storage_ = cached(time_);
  ResourceStore store_{api::horizontalPodAutoscalerType(), *storage_};
};

TEST_F(ResourceStoreOverWatchCacheTest, AListAfterAnUpdateServesTheUpdatedBytes) {
  store_.create("ns", hpa("a", 50, "web"), false);
  store_.create("ns", hpa("b", 60, "web"), false);
  const auto before = listServed("v2");
  EXPECT_EQ(before.at("a")["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 50);
  setCpu("a", 70);
  const auto after = listServed("v2");
  EXPECT_EQ(after.at("a")["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 70);
  EXPECT_NE(after.at("a")["metadata"]["resourceVersion"], before.at("a")["metadata"]["resourceVersion"]);
  EXPECT_EQ(after.at("b"), before.at("b")) << "an object not written is served as it was";
  store_.remove("ns", "b", {});
  EXPECT_EQ(listServed("v2").count("b"), 0u);
}

TEST_F(ResourceStoreOverWatchCacheTest, EachServedVersionGetsItsOwnBytes) {
  store_.create("ns", hpa("a", 50, "web"), false);
  // v2 first: its bytes are kept; v1 must not be served from them.
  const json v2 = listServed("v2").at("a");
  const json v1 = listServed("v1").at("a");
  EXPECT_EQ(v2["apiVersion"], "autoscaling/v2");
  EXPECT_EQ(v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 50);
  EXPECT_FALSE(v2["spec"].contains("targetCPUUtilizationPercentage"));
  EXPECT_EQ(v1["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(v1["spec"]["targetCPUUtilizationPercentage"], 50);
  EXPECT_FALSE(v1["spec"].contains("metrics"));
  EXPECT_EQ(v1["metadata"]["resourceVersion"], v2["metadata"]["resourceVersion"]);
  setCpu("a", 80);
  EXPECT_EQ(listServed("v1").at("a")["spec"]["targetCPUUtilizationPercentage"], 80);
  EXPECT_EQ(listServed("v2").at("a")["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);
}

TEST_F(ResourceStoreOverWatchCacheTest, SelectorsStillFilterAndFollowUpdates) {
  store_.create("ns", hpa("a", 50, "web"), false);
  store_.create("ns", hpa("b", 50, "db"), false);
  listServed("v2");  // both objects' forms are made and kept
  const auto web = [](const json& object) { return object["metadata"]["labels"].value("tier", "") == "web"; };
  auto served = listServed("v2", {"ns", web, std::nullopt, ""});
  EXPECT_EQ(served.size(), 1u);
  EXPECT_EQ(served.count("a"), 1u);
  store_.update("ns", "b", [](const json& current) {
    json next = current;
    next["metadata"]["labels"]["tier"] = "web";
    return next;
  }, Subresource::Main, false);
  served = listServed("v2", {"ns", web, std::nullopt, ""});
  EXPECT_EQ(served.size(), 2u) << "the relabelled object's new version is what the selector sees";
}

TEST_F(ResourceStoreOverWatchCacheTest, WhatARequestDoesWithItsCopyLeavesTheCachedObjectAlone) {
  static_assert(std::is_const_v<std::remove_reference_t<decltype(std::declval<const StoredObject&>().object())>>);
  store_.create("ns", hpa("a", 50, "web"), false);
  const std::string servedBefore = *[&] {
    std::shared_ptr<const std::string> bytes;
    store_.list({"ns", {}, std::nullopt, ""}, [&](const StoredObject& object) { bytes = object.servedJson("v2"); });
    return bytes;
  }();
  // A request's objects are its own: the Table path and deletecollection work on these copies.
  ListPage page = store_.list({"ns", {}, std::nullopt, ""});
  ASSERT_EQ(page.items.size(), 1u);
  page.items[0]["spec"]["maxReplicas"] = 99;
  page.items[0]["metadata"]["labels"]["tier"] = "changed";
  const ListPage again = store_.list({"ns", {}, std::nullopt, ""});
  EXPECT_EQ(again.items[0]["spec"]["maxReplicas"], 10);
  EXPECT_EQ(again.items[0]["metadata"]["labels"]["tier"], "web");
  std::string servedAfter;
  store_.list({"ns", {}, std::nullopt, ""}, [&](const StoredObject& object) { servedAfter = *object.servedJson("v2"); });
  EXPECT_EQ(servedAfter, servedBefore);
}

// A storage whose cache is behind: its guess is the value as it was before the last write.
class LaggingGuessStorage final : public storage::Storage {
 public:
  explicit LaggingGuessStorage(std::unique_ptr<storage::Storage> backend) : backend_(std::move(backend)) {}
  std::optional<storage::KeyValue> get(const std::string& key) override { return backend_->get(key); }
  std::optional<storage::KeyValue> cachedGuess(const std::string& key) override {
    ++guesses;
    const auto it = stale_.find(key);
    return it == stale_.end() ? std::nullopt : std::optional(it->second);
  }
  storage::ListResult list(const storage::ListOptions& options) override { return backend_->list(options); }
  storage::KeyValue create(const std::string& key, const std::string& value) override { return backend_->create(key, value); }
  storage::KeyValue update(const std::string& key, const std::string& value, storage::Revision expected) override {
    if (auto before = backend_->get(key)) stale_[key] = *before;
    return backend_->update(key, value, expected);
  }
  storage::KeyValue remove(const std::string& key, storage::Revision expected) override { return backend_->remove(key, expected); }
  std::unique_ptr<storage::Watch> watch(const std::string& prefix, storage::Revision after, storage::WatchCallback onEvent) override {
    return backend_->watch(prefix, after, std::move(onEvent));
  }
  storage::Revision currentRevision() override { return backend_->currentRevision(); }
  storage::Revision oldestRevision() override { return backend_->oldestRevision(); }
  int guesses = 0;

 private:
  std::unique_ptr<storage::Storage> backend_;
  std::map<std::string, storage::KeyValue> stale_;
};

// Updates start from the cache's copy; one that is behind the store costs a try from the store,
// and never loses a write, refuses a current resourceVersion, or answers with an old object.
TEST(ResourceStoreGuessTest, AStaleCachedCopyNeverDecidesAnUpdate) {
  LaggingGuessStorage storage(storage::SqliteStorage::openInMemory({}));
  ResourceStore store(std::make_shared<testing::WidgetType>(), storage);
  store.create("ns", widget("a", 1), false);
  const auto setSize = [&](int size, const std::string& resourceVersion) {
    return store.update("ns", "a", [&](const json& current) {
      json next = current;
      next["metadata"]["resourceVersion"] = resourceVersion;
      next["spec"]["size"] = size;
      return next;
    }, Subresource::Main, false);
  };
  const json second = setSize(2, "");  // no guess yet: read from the store
  // The guess now shows size 1 at the first version: a precondition on the current one still holds.
  const json third = setSize(3, second["metadata"]["resourceVersion"]);
  EXPECT_EQ(third["spec"]["size"], 3);
  EXPECT_EQ(storage.guesses, 2);
  // A write computed from the stale guess would carry size 1's sibling fields; the store's wins.
  const json labelled = store.update("ns", "a", [](const json& current) {
    json next = current;
    next["metadata"]["labels"]["tier"] = "web";
    return next;
  }, Subresource::Main, false);
  EXPECT_EQ(labelled["spec"]["size"], 3) << "built on the stored object, not the cache's older copy";
  // A stale precondition is still refused, decided by the store.
  EXPECT_EQ(codeOf([&] { setSize(4, second["metadata"]["resourceVersion"]); }), 409);
  // The guess (before the label) has no label: removing it is a no-op there, not in the store.
  const json unlabelled = store.update("ns", "a", [](const json& current) {
    json next = current;
    next["metadata"].erase("labels");
    return next;
  }, Subresource::Main, false);
  EXPECT_NE(unlabelled["metadata"]["resourceVersion"], labelled["metadata"]["resourceVersion"]) << "written";
  const json stored = store.get("ns", "a");
  EXPECT_EQ(stored["spec"]["size"], 3);
  EXPECT_FALSE(stored["metadata"].contains("labels"));
}

TEST_F(ResourceStoreOverWatchCacheTest, UpdatesStartFromTheCachedCopyAndStayCorrect) {
  store_.create("ns", hpa("a", 50, "web"), false);
  for (int cpu = 51; cpu <= 60; ++cpu) setCpu("a", cpu);
  const json stored = store_.get("ns", "a");
  EXPECT_EQ(stored["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 60);
  EXPECT_EQ(listServed("v2").at("a"), stored);
}

}  // namespace
}  // namespace fedhpa::apiserver
