// The informer against the real API server library: it syncs, delivers events in order, and
// converges after its watch drops, after the server restarts, and after its version expires.
#include "clusters/client/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <thread>

#include "clusters/client/rest_client.h"
#include "test/clusters/client/mock_kube_client.h"
#include "federation/apiserver/api_server.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/common/eventually.h"

namespace fedhpa::clusters {
namespace {

using fedhpa::testing::eventually;

const Resource kHpaResource{"autoscaling", "v2", "horizontalpodautoscalers", true};

InformerOptions inDefault() {
  InformerOptions options;
  options.namespaceName = "default";
  return options;
}

json hpa(const std::string& name, int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}}},
          {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", name}}}, {"maxReplicas", maxReplicas}}}};
}

// Handler calls, in order, as "ADD web", "UPDATE web 3", "DELETE web".
class Recorder {
 public:
  InformerHandlers handlers() {
    return {[this](const json& o) { record("ADD " + name(o)); },
            [this](const json&, const json& o) { record("UPDATE " + name(o) + " " + std::to_string(o["spec"].value("maxReplicas", 0))); },
            [this](const json& o) { record("DELETE " + name(o)); }};
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  static std::string name(const json& o) { return o["metadata"].value("name", ""); }
  void record(std::string call) {
    std::lock_guard lock(mutex_);
    calls_.push_back(std::move(call));
  }
  std::mutex mutex_;
  std::vector<std::string> calls_;
};

class InformerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    initializeHttpClientPool(4);
    dir_ = std::filesystem::temp_directory_path() /
           ("fedhpa-informer-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    startServer(0);
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    RestClientOptions options;
    options.retry = {3, std::chrono::milliseconds(10), std::chrono::milliseconds(50)};
    client_ = std::make_unique<RestClient>(config, options);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  void startServer(std::uint16_t port) {
    apiserver::ApiServerOptions options;
    options.http.port = port;
    server_ = std::make_unique<apiserver::ApiServer>(storage::SqliteStorage::open(dir_, {historyLimit_}),
                                                     api::federationResources(), options);
    port_ = server_->start();
  }
  void restartServer() {
    server_.reset();
    startServer(port_);
  }
  // The server's objects as "name:resourceVersion", sorted.
  static std::vector<std::string> summary(const std::vector<json>& objects) {
    std::vector<std::string> out;
    for (const auto& o : objects) out.push_back(o["metadata"].value("name", "") + ":" + o["metadata"].value("resourceVersion", ""));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> serverState() { return summary(client_->list(kHpaResource, "default", {})["items"].get<std::vector<json>>()); }
  bool converges(Informer& informer) {
    return eventually([&] { return summary(informer.list()) == serverState(); });
  }

  std::size_t historyLimit_ = 10000;
  std::filesystem::path dir_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::uint16_t port_ = 0;
  std::unique_ptr<RestClient> client_;
};

TEST_F(InformerTest, SyncsAndDeliversEventsInOrder) {
  client_->create(kHpaResource, "default", hpa("a", 2));
  Recorder recorder;
  Informer informer(*client_, kHpaResource, recorder.handlers(), inDefault());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  EXPECT_TRUE(informer.get("default", "a"));
  client_->create(kHpaResource, "default", hpa("b", 2));
  client_->mergePatch(kHpaResource, "default", "b", {{"spec", {{"maxReplicas", 3}}}});
  client_->remove(kHpaResource, "default", "b");
  eventually([&] { return recorder.calls().size() >= 4; });
  EXPECT_THAT(recorder.calls(), ::testing::ElementsAre("ADD a", "ADD b", "UPDATE b 3", "DELETE b"));
  EXPECT_EQ(informer.listNamespace("default").size(), 1u);
}

// The transform shapes every object before the cache or a handler sees it, from the list and
// from the watch alike; an event that changes only what it drops still moves the resourceVersion
// the cache holds, which later writes are conditional on.
TEST_F(InformerTest, HandlersAndReadersSeeOnlyWhatTheTransformKept) {
  json first = hpa("a", 2);
  first["metadata"]["annotations"] = {{"example.com/noise", "x"}, {"keep/me", "y"}};
  client_->create(kHpaResource, "default", first);
  InformerOptions options = inDefault();
  options.transform = [](json& object) { object["metadata"]["annotations"].erase("example.com/noise"); };
  std::mutex mutex;
  std::vector<json> seen;
  const auto record = [&](const json& object) {
    std::lock_guard lock(mutex);
    seen.push_back(object);
  };
  Informer informer(*client_, kHpaResource, {record, [&](const json&, const json& now) { record(now); }, record}, options);
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  json second = hpa("b", 2);
  second["metadata"]["annotations"] = {{"example.com/noise", "x"}};
  client_->create(kHpaResource, "default", second);
  const json patched = client_->mergePatch(kHpaResource, "default", "a", {{"metadata", {{"annotations", {{"example.com/noise", "z"}}}}}});
  const auto seenCount = [&] {
    std::lock_guard lock(mutex);
    return seen.size();
  };
  eventually([&] { return seenCount() >= 3; });
  {
    std::lock_guard lock(mutex);
    ASSERT_EQ(seen.size(), 3u);
    for (const auto& object : seen) EXPECT_FALSE(object["metadata"]["annotations"].contains("example.com/noise")) << object.dump();
  }
  const auto cached = informer.get("default", "a");
  ASSERT_TRUE(cached);
  EXPECT_EQ((*cached)["metadata"]["annotations"], json({{"keep/me", "y"}}));
  EXPECT_EQ((*cached)["metadata"]["resourceVersion"], patched["metadata"]["resourceVersion"]);
  EXPECT_EQ(informer.keys(), (std::vector<std::string>{"default/a", "default/b"}));
  EXPECT_EQ(informer.keysInNamespace("default"), (std::vector<std::string>{"default/a", "default/b"}));
  for (const auto& object : informer.list()) EXPECT_FALSE(object["metadata"]["annotations"].contains("example.com/noise"));
}

TEST_F(InformerTest, CacheEqualsTheServerAfterAMutationStorm) {
  Informer informer(*client_, kHpaResource, {}, inDefault());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  std::mt19937 random(3);
  for (int i = 0; i < 150; ++i) {
    const std::string name = "h" + std::to_string(std::uniform_int_distribution<int>(0, 15)(random));
    try {
      switch (std::uniform_int_distribution<int>(0, 2)(random)) {
        case 0: client_->create(kHpaResource, "default", hpa(name, 2)); break;
        case 1: client_->mergePatch(kHpaResource, "default", name, {{"spec", {{"maxReplicas", i + 2}}}}); break;
        case 2: client_->remove(kHpaResource, "default", name); break;
      }
    } catch (const ClientError&) {
      // exists already / not there: part of the storm
    }
  }
  EXPECT_TRUE(converges(informer));
}

TEST_F(InformerTest, ConvergesAfterTheServerRestarts) {
  Informer informer(*client_, kHpaResource, {}, inDefault());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  client_->create(kHpaResource, "default", hpa("before", 2));
  restartServer();
  client_->create(kHpaResource, "default", hpa("after", 2));
  client_->remove(kHpaResource, "default", "before");
  EXPECT_TRUE(converges(informer));
  EXPECT_FALSE(informer.get("default", "before"));
}

TEST_F(InformerTest, ListsAgainWhenItsVersionHasExpired) {
  historyLimit_ = 5;
  server_.reset();
  startServer(0);
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port_);
  client_ = std::make_unique<RestClient>(config);
  Recorder recorder;
  Informer informer(*client_, kHpaResource, recorder.handlers(), inDefault());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  client_->create(kHpaResource, "default", hpa("gone-while-away", 2));
  eventually([&] { return !informer.list().empty(); });
  server_.reset();
  {
    // While the server is down, more changes than its history keeps.
    auto storage = storage::SqliteStorage::open(dir_, {historyLimit_});
    const auto kv = storage->get("/autoscaling/horizontalpodautoscalers/default/gone-while-away");
    ASSERT_TRUE(kv);
    storage->remove(kv->key, kv->modRevision);
    for (int i = 0; i < 20; ++i) storage->create("/core/events/default/filler-" + std::to_string(i), "{}");
  }
  startServer(port_);
  client_->create(kHpaResource, "default", hpa("new", 2));
  EXPECT_TRUE(converges(informer));
  const auto calls = recorder.calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(), "DELETE gone-while-away"), calls.end())
      << "the re-list reports what vanished meanwhile";
}

// A caller waiting for something the cache will show (the controller-manager waiting for the
// first probe's Ready conditions) is woken by the change itself: the count it read before checking
// moves, and the change is in the cache when the wait returns.
TEST_F(InformerTest, AWaitForChangeEndsWhenTheCacheTakesAChange) {
  Informer informer(*client_, kHpaResource, {}, inDefault());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  const std::uint64_t seen = informer.changes();
  EXPECT_FALSE(informer.waitForChange(seen, std::chrono::milliseconds(50)));  // nothing changed
  const auto started = std::chrono::steady_clock::now();
  // Written once the wait below has begun (a change already in the cache when it begins ends it
  // without a wake-up).
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    client_->create(kHpaResource, "default", hpa("web", 2));
  });
  const bool changed = informer.waitForChange(seen, std::chrono::seconds(60));
  writer.join();
  ASSERT_TRUE(changed);
  // Woken by the change, not by the end of the wait (which would also find the count moved).
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_GT(informer.changes(), seen);
  EXPECT_TRUE(informer.get("default", "web"));
}

TEST_F(InformerTest, StopReturnsPromptlyWhileWatching) {
  Informer informer(*client_, kHpaResource, {}, inDefault());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  const auto started = std::chrono::steady_clock::now();
  informer.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

// A member that answers what no Kubernetes API sends (a list that is no object, an item without
// metadata) costs the informer a retry, not the process: it lists again until the answer is sane.
TEST(InformerRobustnessTest, AnUnreadableListIsListedAgainNotACrash) {
  testing::MockKubeClient client;
  const json good = {{"metadata", {{"resourceVersion", "7"}}}, {"items", json::array({hpa("web", 3)})}};
  ::testing::Sequence answers;
  EXPECT_CALL(client, list).InSequence(answers).WillOnce(::testing::Return(json::array({"<html>"})));
  EXPECT_CALL(client, list).InSequence(answers).WillOnce(::testing::Return(json{{"items", json::array({"not an object"})}}));
  EXPECT_CALL(client, list).InSequence(answers).WillOnce(::testing::Return(json{{"items", json::array()}, {"metadata", "no object"}}));
  EXPECT_CALL(client, list).InSequence(answers).WillRepeatedly(::testing::Return(good));
  EXPECT_CALL(client, watch).WillRepeatedly([](auto&&...) -> std::unique_ptr<WatchStream> {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "no watch here");
  });
  InformerOptions options = inDefault();
  options.initialBackoff = std::chrono::milliseconds(1);
  options.maxBackoff = std::chrono::milliseconds(5);
  Informer informer(client, kHpaResource, {}, options);
  informer.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  eventually([&] { return !informer.list().empty(); });
  ASSERT_EQ(informer.list().size(), 1u);
  EXPECT_EQ(informer.list()[0]["metadata"]["name"], "web");
  informer.stop();
}

// A server that answers again: the informer's wait between failed tries (an hour here) ends when
// it is told, and it lists at once.
TEST(InformerRobustnessTest, RetryNowEndsTheBackoffAfterFailedLists) {
  testing::MockKubeClient client;
  std::atomic<int> lists{0};
  EXPECT_CALL(client, list).WillRepeatedly([&](auto&&...) -> json {
    if (++lists == 1) throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "not answering");
    return {{"metadata", {{"resourceVersion", "7"}}}, {"items", json::array({hpa("web", 3)})}};
  });
  EXPECT_CALL(client, watch).WillRepeatedly([](auto&&...) -> std::unique_ptr<WatchStream> {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "no watch here");
  });
  InformerOptions options = inDefault();
  options.initialBackoff = std::chrono::hours(1);
  options.maxBackoff = std::chrono::hours(1);
  Informer informer(client, kHpaResource, {}, options);
  informer.retryNow();  // not backing off yet: nothing to cut short
  informer.start();
  // Told until it has listed again (a retryNow before its wait began ends nothing).
  for (int i = 0; i < 1000 && !informer.hasSynced(); ++i) {
    informer.retryNow();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(informer.hasSynced()) << "still waiting out its hour after " << lists << " lists";
  EXPECT_EQ(lists.load(), 2);
  informer.stop();
}

// Two controllers asking for the same resource share one informer (one list, one watch) and each
// gets every event; another namespace is another informer.
TEST_F(InformerTest, SharedInformersWatchAResourceOnceForEveryControllerAskingForIt) {
  client_->create(kHpaResource, "default", hpa("a", 2));
  Recorder first, second, other;
  SharedInformers informers(*client_);
  Informer& informer = informers.informer(kHpaResource, first.handlers(), inDefault());
  EXPECT_EQ(&informers.informer(kHpaResource, second.handlers(), inDefault()), &informer);
  InformerOptions kubeSystem;
  kubeSystem.namespaceName = "kube-system";
  EXPECT_NE(&informers.informer(kHpaResource, other.handlers(), kubeSystem), &informer);
  informers.start();
  ASSERT_TRUE(informer.waitForSync(std::chrono::seconds(10)));
  EXPECT_THROW(informer.addHandlers(Recorder().handlers()), std::logic_error) << "a late handler would miss the cache";
  client_->create(kHpaResource, "default", hpa("b", 2));
  eventually([&] { return second.calls().size() >= 2; });
  EXPECT_THAT(first.calls(), ::testing::ElementsAre("ADD a", "ADD b"));
  EXPECT_THAT(second.calls(), ::testing::ElementsAre("ADD a", "ADD b"));
  EXPECT_TRUE(other.calls().empty());
  informers.stop();
}

}  // namespace
}  // namespace fedhpa::clusters
