// Watches behind the watch cache: an event's bytes are made once per served version and handed to
// every watcher's stream by reference, so that N watchers cost N references, not N copies.
#include "federation/apiserver/watch_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "federation/api/hpa_type.h"
#include "federation/api/machinery/protobuf.h"
#include "federation/storage/cacher.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;

// A stream that keeps what it is handed: the shared chunks as they came (references), the rest as
// text.
class RecordingStream : public http::ResponseStream {
 public:
  bool write(std::string chunk) override {
    std::lock_guard lock(mutex_);
    owned_.push_back(std::move(chunk));
    changed_.notify_all();
    return true;
  }
  bool write(http::SharedChunk chunk) override {
    std::lock_guard lock(mutex_);
    shared_.push_back(std::move(chunk));
    changed_.notify_all();
    return true;
  }
  void close() override { closed_ = true; }
  bool closed() const override { return closed_; }
  void onClosed(std::function<void()>) override {}

  std::vector<http::SharedChunk> waitForShared(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(20), [&] { return shared_.size() >= count; });
    return shared_;
  }
  std::vector<std::string> owned() {
    std::lock_guard lock(mutex_);
    return owned_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<http::SharedChunk> shared_;
  std::vector<std::string> owned_;
  std::atomic<bool> closed_{false};
};

json hpa(const std::string& name, int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"minReplicas", 1},
            {"maxReplicas", maxReplicas}}}};
}

class WatchSessionTest : public ::testing::Test {
 protected:
  static std::unique_ptr<storage::Storage> cached(fedhpa::testing::FakeTimeSource& time) {
    storage::CacherOptions options;
    options.resourcePrefixes = {ResourceStore::resourcePrefix(*api::horizontalPodAutoscalerType())};
    return std::make_unique<storage::Cacher>(storage::SqliteStorage::openInMemory({}), options, time);
  }

  struct Watcher {
    std::shared_ptr<RecordingStream> stream = std::make_shared<RecordingStream>();
    std::shared_ptr<WatchSession> session;
  };
  Watcher watch(const std::string& version, const std::string& fromVersion, bool protobuf = false) {
    Watcher watcher;
    WatchParams params;
    params.namespaceName = "ns";
    params.version = version;
    params.resourceVersion = fromVersion;
    params.protobuf = protobuf;
    watcher.session = WatchSession::start(store_, params, watcher.stream);
    return watcher;
  }

  fedhpa::testing::FakeTimeSource time_;
  std::unique_ptr<storage::Storage> storage_ = cached(time_);
  ResourceStore store_{api::horizontalPodAutoscalerType(), *storage_};
};

TEST_F(WatchSessionTest, AnEventGoesToEveryWatcherOfAVersionAsOneSharedBuffer) {
  const json created = store_.create("ns", hpa("web", 5), false);
  const std::string from = created["metadata"]["resourceVersion"];
  std::vector<Watcher> v2, v1;
  for (int i = 0; i < 4; ++i) v2.push_back(watch("v2", from));
  for (int i = 0; i < 3; ++i) v1.push_back(watch("v1", from));
  store_.update("ns", "web", [](const json& current) {
    json next = current;
    next["spec"]["maxReplicas"] = 7;
    return next;
  }, Subresource::Main, false);

  const auto sharedBy = [](std::vector<Watcher>& watchers, const std::string& apiVersion) {
    std::vector<http::SharedChunk> events;
    for (auto& watcher : watchers) {
      const auto chunks = watcher.stream->waitForShared(1);
      EXPECT_EQ(chunks.size(), 1u);
      EXPECT_TRUE(watcher.stream->owned().empty()) << "no event written as a copy of its own";
      if (chunks.empty()) continue;
      events.push_back(chunks.front());
      const json line = json::parse(chunks.front().flat());
      EXPECT_EQ(line["type"], "MODIFIED");
      EXPECT_EQ(line["object"]["apiVersion"], apiVersion);
      EXPECT_EQ(line["object"]["spec"]["maxReplicas"], 7);
    }
    return events;
  };
  const auto v2Events = sharedBy(v2, "autoscaling/v2");
  const auto v1Events = sharedBy(v1, "autoscaling/v1");
  ASSERT_EQ(v2Events.size(), v2.size());
  ASSERT_EQ(v1Events.size(), v1.size());
  for (const auto& event : v2Events) {
    EXPECT_EQ(event.body.bytes.data(), v2Events.front().body.bytes.data()) << "every v2 watcher refers to the same bytes";
    EXPECT_EQ(event.body.owner, v2Events.front().body.owner);
  }
  for (const auto& event : v1Events) EXPECT_EQ(event.body.bytes.data(), v1Events.front().body.bytes.data());
  EXPECT_NE(v1Events.front().body.bytes.data(), v2Events.front().body.bytes.data()) << "each version is its own bytes";
  // The very bytes a LIST serves from the watch cache: one buffer, however many read it.
  std::shared_ptr<const std::string> listed;
  store_.list({"ns", {}, std::nullopt, ""}, [&](const StoredObject& object) { listed = object.servedJson("v2"); });
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->data(), v2Events.front().body.bytes.data());
}

// The protobuf form likewise: one frame, head and object, referred to by every protobuf watcher.
TEST_F(WatchSessionTest, AProtobufEventIsOneSharedFrameToo) {
  const json created = store_.create("ns", hpa("web", 5), false);
  std::vector<Watcher> watchers;
  for (int i = 0; i < 3; ++i) watchers.push_back(watch("v2", created["metadata"]["resourceVersion"], true));
  store_.update("ns", "web", [](const json& current) {
    json next = current;
    next["spec"]["maxReplicas"] = 7;
    return next;
  }, Subresource::Main, false);

  std::vector<http::SharedChunk> events;
  for (auto& watcher : watchers) {
    const auto chunks = watcher.stream->waitForShared(1);
    ASSERT_EQ(chunks.size(), 1u);
    EXPECT_TRUE(watcher.stream->owned().empty()) << "no frame built for one watcher alone";
    events.push_back(chunks.front());
  }
  for (const auto& event : events) {
    EXPECT_EQ(event.head.data(), events.front().head.data()) << "one frame head for every watcher";
    EXPECT_EQ(event.body.bytes.data(), events.front().body.bytes.data()) << "one object encoding for every watcher";
  }
  const std::string frame = events.front().flat();
  const std::string object(events.front().body.bytes);
  EXPECT_EQ(frame, api::machinery::protobufWatchFrame("MODIFIED", object)) << "kube's length-prefixed WatchEvent";
  EXPECT_EQ(api::machinery::decodeKubernetesProtobuf(object)["spec"]["maxReplicas"], 7);
}

}  // namespace
}  // namespace fedhpa::apiserver
