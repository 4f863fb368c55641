// kube-apiserver's request limits as a client meets them through the whole API server: the
// in-flight limits (429 with Retry-After), the request timeout (504 Timeout Status), heavy
// requests kept off the HTTP threads, and YAML bodies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "federation/api/resource.h"
#include "federation/apiserver/api_server.h"
#include "federation/apiserver/request_execution.h"
#include "federation/storage/sqlite_storage.h"
#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::apiserver {
namespace {

using apiserver::testing::call;
using nlohmann::json;
using ::testing::HasSubstr;

using apiserver::testing::kHpas;

// SQLite in memory, whose lists can be held until the test lets them go: a slow request on demand.
class GatedStorage : public storage::Storage {
 public:
  GatedStorage() : inner_(storage::SqliteStorage::openInMemory({})) {}
  void closeGate() {
    std::lock_guard lock(mutex_);
    open_ = false;
  }
  void openGate() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }
  // Waits until this many lists are held at the gate.
  bool waitForHeld(int count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(20), [&] { return held_ >= count; });
  }

  std::optional<storage::KeyValue> get(const std::string& key) override { return inner_->get(key); }
  storage::ListResult list(const storage::ListOptions& options) override {
    {
      std::unique_lock lock(mutex_);
      ++held_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
      --held_;
    }
    return inner_->list(options);
  }
  storage::KeyValue create(const std::string& key, const std::string& value) override { return inner_->create(key, value); }
  storage::KeyValue update(const std::string& key, const std::string& value, storage::Revision expected) override {
    return inner_->update(key, value, expected);
  }
  storage::KeyValue remove(const std::string& key, storage::Revision expected) override { return inner_->remove(key, expected); }
  // Holds back the watch events of keys under prefix until releaseEvents(): a watch cache that
  // lags behind the writes of one resource.
  void holdEventsUnder(const std::string& prefix) {
    std::lock_guard lock(heldEvents_->mutex);
    heldEvents_->prefix = prefix;
  }
  void releaseEvents() {
    std::unique_lock lock(heldEvents_->mutex);
    heldEvents_->prefix.reset();
    auto events = std::move(heldEvents_->events);
    lock.unlock();
    for (const auto& [event, deliver] : events) deliver(event);
  }
  std::unique_ptr<storage::Watch> watch(const std::string& prefix, storage::Revision after,
                                        storage::WatchCallback onEvent) override {
    return inner_->watch(prefix, after, [held = heldEvents_, onEvent = std::move(onEvent)](const storage::WatchEvent& event) {
      {
        std::lock_guard lock(held->mutex);
        if (held->prefix && event.kv.key.starts_with(*held->prefix)) {
          held->events.emplace_back(event, onEvent);
          return;
        }
      }
      onEvent(event);
    });
  }
  storage::Revision currentRevision() override { return inner_->currentRevision(); }
  storage::Revision oldestRevision() override { return inner_->oldestRevision(); }

 private:
  struct HeldEvents {
    std::mutex mutex;
    std::optional<std::string> prefix;
    std::vector<std::pair<storage::WatchEvent, storage::WatchCallback>> events;
  };
  std::unique_ptr<storage::Storage> inner_;
  std::shared_ptr<HeldEvents> heldEvents_ = std::make_shared<HeldEvents>();
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = true;
  int held_ = 0;
};

class RequestLimitsTest : public ::testing::Test {
 protected:
  void start(ApiServerOptions options, bool watchCache = false) {
    auto storage = std::make_unique<GatedStorage>();
    gate_ = storage.get();
    if (!watchCache) options.watchCache.reset();  // the lists must reach the gated storage
    server_ = std::make_unique<ApiServer>(std::move(storage), api::federationResources(), options);
    port_ = server_->start();
  }
  void TearDown() override {
    if (gate_) gate_->openGate();
    for (auto& pending : pending_) pending.wait();
    if (server_) server_->stop();
  }
  // A LIST that stays in flight until the gate opens.
  void holdList() {
    pending_.push_back(std::async(std::launch::async, [port = port_] { return call(port, "GET", kHpas); }));
  }

  GatedStorage* gate_ = nullptr;
  std::unique_ptr<ApiServer> server_;
  std::uint16_t port_ = 0;
  std::vector<std::future<apiserver::testing::HttpReply>> pending_;
};

TEST_F(RequestLimitsTest, BeyondMaxRequestsInflightA429WithRetryAfter) {
  ApiServerOptions options;
  options.maxRequestsInflight = 2;
  start(options);
  gate_->closeGate();
  holdList();
  holdList();
  ASSERT_TRUE(gate_->waitForHeld(2));
  const auto refused = call(port_, "GET", kHpas + std::string("/web"));
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.header("retry-after"), "1");
  EXPECT_EQ(refused.json()["kind"], "Status");
  EXPECT_EQ(refused.json()["reason"], "TooManyRequests");
  EXPECT_EQ(refused.json()["details"]["retryAfterSeconds"], 1);
  // Mutating requests have their own limit, and watches are not counted at all.
  EXPECT_EQ(call(port_, "DELETE", kHpas + std::string("/web")).status, 404);
  apiserver::testing::WatchConnection watch(port_, kHpas + std::string("?watch=true&resourceVersion=1"));
  EXPECT_EQ(watch.status(), 200);
  gate_->openGate();
  for (auto& pending : pending_) EXPECT_EQ(pending.get().status, 200);
  pending_.clear();
  EXPECT_EQ(call(port_, "GET", kHpas + std::string("/web")).status, 404) << "the places are given back";
}

TEST_F(RequestLimitsTest, BeyondMaxMutatingRequestsInflightA429) {
  ApiServerOptions options;
  options.maxMutatingRequestsInflight = 1;
  start(options);
  gate_->closeGate();
  // deletecollection mutates, and lists before it deletes: it waits at the gate holding its place.
  pending_.push_back(std::async(std::launch::async, [port = port_] { return call(port, "DELETE", kHpas); }));
  ASSERT_TRUE(gate_->waitForHeld(1));
  const auto refused = call(port_, "DELETE", kHpas + std::string("/web"));
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.header("retry-after"), "1");
  EXPECT_EQ(call(port_, "GET", kHpas + std::string("/web")).status, 404) << "reads have their own limit";
}

TEST_F(RequestLimitsTest, HeavyRequestsLeaveTheHttpThreadsFree) {
  ApiServerOptions options;
  options.http.threads = 2;
  options.heavyRequestWorkers = 2;
  start(options);
  gate_->closeGate();
  for (int i = 0; i < 4; ++i) holdList();  // more than HTTP threads and workers together
  ASSERT_TRUE(gate_->waitForHeld(2));
  for (int i = 0; i < 5; ++i) {
    const auto health = call(port_, "GET", "/healthz");
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.body, "ok");
  }
  gate_->openGate();
  for (auto& pending : pending_) EXPECT_EQ(pending.get().status, 200);
  pending_.clear();
}

// A LIST the watch cache answers at once takes no worker: it is answered while every worker is
// held by LISTs that wait for a cache behind this server's own write.
TEST_F(RequestLimitsTest, AListTheWatchCacheHoldsIsAnsweredWhileEveryWorkerIsBusy) {
  ApiServerOptions options;
  options.http.threads = 2;
  options.heavyRequestWorkers = 2;
  start(options, true);
  // The first list of the namespaces makes their served bytes (on a worker: heavy); later ones share them.
  ASSERT_EQ(call(port_, "GET", "/api/v1/namespaces").status, 200);
  gate_->holdEventsUnder("/autoscaling/horizontalpodautoscalers/");
  ASSERT_EQ(call(port_, "POST", kHpas, R"({"metadata":{"name":"web"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3}})").status, 201);
  holdList();
  holdList();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // both reach the workers and wait there
  const auto namespaces = call(port_, "GET", "/api/v1/namespaces");
  EXPECT_EQ(namespaces.status, 200);
  EXPECT_EQ(namespaces.json()["kind"], "NamespaceList");
  for (auto& pending : pending_)
    EXPECT_EQ(pending.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
        << "the HPA lists wait for the cache to show the create";
  gate_->releaseEvents();
  for (auto& pending : pending_) {
    const auto listed = pending.get();
    EXPECT_EQ(listed.status, 200);
    EXPECT_EQ(listed.json()["items"].size(), 1u) << "the list shows the create";
  }
  pending_.clear();
}

TEST_F(RequestLimitsTest, ARequestPastTheRequestTimeoutIsA504TimeoutStatus) {
  ApiServerOptions options;
  options.http.requestTimeout = std::chrono::seconds(1);
  start(options);
  gate_->closeGate();
  const auto timedOut = call(port_, "GET", kHpas);
  EXPECT_EQ(timedOut.status, 504);
  EXPECT_EQ(timedOut.json()["reason"], "Timeout");
  EXPECT_THAT(timedOut.json()["message"].get<std::string>(), HasSubstr("request did not complete within requested timeout"));
  gate_->openGate();
  EXPECT_EQ(call(port_, "GET", kHpas).status, 200) << "the late answer is dropped and the server goes on";
  // Watches are long-running: the request timeout does not end them.
  apiserver::testing::WatchConnection watch(port_, kHpas + std::string("?watch=true&resourceVersion=1"));
  EXPECT_EQ(watch.status(), 200);
  EXPECT_EQ(call(port_, "POST", kHpas, R"({"metadata":{"name":"web"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3}})").status, 201);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto event = watch.next();
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ((*event)["type"], "ADDED");
}

TEST_F(RequestLimitsTest, YamlBodiesAreAcceptedAsKubeAcceptsThem) {
  start({});
  const std::string yaml =
      "apiVersion: autoscaling/v2\n"
      "kind: HorizontalPodAutoscaler\n"
      "metadata:\n"
      "  name: web\n"
      "  labels: {app: 'yes', tier: \"1\"}\n"
      "spec:\n"
      "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
      "  minReplicas: 2\n"
      "  maxReplicas: 7\n";
  const auto created = call(port_, "POST", kHpas, yaml, {{"Content-Type", "application/yaml"}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["spec"]["maxReplicas"], 7);
  EXPECT_EQ(created.json()["metadata"]["labels"]["app"], "yes") << "quoted scalars stay strings";
  const auto broken = call(port_, "POST", kHpas, "metadata: [unclosed", {{"Content-Type", "application/yaml"}});
  EXPECT_EQ(broken.status, 400);
  EXPECT_EQ(broken.json()["kind"], "Status");
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "[";
  EXPECT_EQ(call(port_, "POST", kHpas, "metadata: " + deep, {{"Content-Type", "application/yaml"}}).status, 400)
      << "nesting is bounded as in JSON bodies";
  const std::string laughs =
      "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
      "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n";
  EXPECT_EQ(call(port_, "POST", kHpas, laughs, {{"Content-Type", "application/yaml"}}).status, 400)
      << "aliases cannot expand into gigabytes";
  EXPECT_EQ(call(port_, "GET", "/healthz").status, 200);
}

TEST(InflightLimits, CountsEachKindAgainstItsOwnLimitAndZeroMeansNone) {
  InflightLimits limits(1, 0);
  auto first = limits.tryAcquire(false);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(limits.tryAcquire(false), nullptr);
  std::vector<std::unique_ptr<InflightLimits::Ticket>> mutating;
  for (int i = 0; i < 1000; ++i) mutating.push_back(limits.tryAcquire(true));
  EXPECT_EQ(std::count(mutating.begin(), mutating.end(), nullptr), 0);
  first.reset();
  EXPECT_NE(limits.tryAcquire(false), nullptr) << "a finished request gives its place back";
}

}  // namespace
}  // namespace fedhpa::apiserver
