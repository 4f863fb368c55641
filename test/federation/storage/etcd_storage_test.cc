// What the etcd backend adds to the conformance suite: several endpoints (one down), a watch that
// survives etcd restarting, acknowledged writes that survive etcd being killed, and the prefix
// that keeps several users of one etcd apart.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "federation/storage/etcd_storage.h"
#include "test/federation/storage/etcd_process.h"

namespace fedhpa::storage {
namespace {

std::unique_ptr<EtcdStorage> openEtcd(std::vector<std::string> endpoints, const std::string& prefix) {
  EtcdOptions options;
  options.client.endpoints = std::move(endpoints);
  options.client.requestTimeout = std::chrono::seconds(5);
  options.prefix = prefix;
  return EtcdStorage::open(options);
}

// Keys and values cross the gateway in base64: any bytes, any length, exactly back.
TEST(EtcdGatewayEncoding, Base64CarriesEveryByteAndRefusesWhatIsNotBase64) {
  EXPECT_EQ(toBase64(""), "");
  EXPECT_EQ(toBase64("f"), "Zg==");
  EXPECT_EQ(toBase64("fo"), "Zm8=");
  EXPECT_EQ(toBase64("foo"), "Zm9v");
  EXPECT_EQ(toBase64("/registry/\xff"), "L3JlZ2lzdHJ5L/8=");
  std::string every;
  for (int byte = 0; byte < 256; ++byte) every.push_back(static_cast<char>(byte));
  for (std::size_t length = 0; length <= every.size(); length += 85)
    EXPECT_EQ(fromBase64(toBase64(every.substr(0, length + length % 3))), every.substr(0, length + length % 3));
  EXPECT_THROW(fromBase64("Zm9"), StorageError);
  EXPECT_THROW(fromBase64("Zm9v!A=="), StorageError);
}

// An endpoint nothing listens on: a port that was free a moment ago.
std::string deadEndpoint() {
  testing::EtcdProcess gone("gone");
  const std::string url = gone.clientUrl();
  gone.kill();
  return url;
}

TEST(EtcdStorage, FailsOverPastAnEndpointThatIsDown) {
  testing::EtcdProcess etcd("failover");
  auto storage = openEtcd({deadEndpoint(), etcd.clientUrl()}, "/registry");
  const KeyValue created = storage->create("/r/a", "one");
  EXPECT_EQ(storage->update("/r/a", "two", created.modRevision).value, "two");
  EXPECT_EQ(storage->get("/r/a")->value, "two");
}

TEST(EtcdStorage, NoEndpointAnsweringIsUnavailable) {
  try {
    openEtcd({deadEndpoint()}, "/registry");
    ADD_FAILURE() << "opened without etcd";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), StorageError::Code::Unavailable);
  }
}

TEST(EtcdStorage, PrefixesKeepUsersOfOneEtcdApart) {
  testing::EtcdProcess etcd("prefix");
  auto first = openEtcd({etcd.clientUrl()}, "/registry");
  auto second = openEtcd({etcd.clientUrl()}, "/other");
  first->create("/r/a", "first");
  second->create("/r/a", "second");
  EXPECT_EQ(first->get("/r/a")->value, "first");
  EXPECT_EQ(second->list({"/r/", {}, {}, ""}).items.at(0)->value, "second");
  EXPECT_EQ(second->list({"/r/", {}, {}, ""}).items.at(0)->key, "/r/a") << "the prefix is not shown above the interface";
}

// Two storages on one etcd are two API servers: a stale write from either is a Conflict.
TEST(EtcdStorage, TwoServersOnOneEtcdSeeEachOthersWrites) {
  testing::EtcdProcess etcd("shared");
  auto one = openEtcd({etcd.clientUrl()}, "/registry");
  auto two = openEtcd({etcd.clientUrl()}, "/registry");
  std::mutex mutex;
  std::condition_variable seen;
  std::vector<std::string> keys;
  auto watch = two->watch("/r/", two->currentRevision(), [&](const WatchEvent& event) {
    std::lock_guard lock(mutex);
    keys.push_back(event.kv.key);
    seen.notify_all();
  });
  const KeyValue created = one->create("/r/a", "v1");
  two->update("/r/a", "v2", created.modRevision);
  try {
    one->update("/r/a", "stale", created.modRevision);
    ADD_FAILURE() << "a stale update went through";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), StorageError::Code::Conflict);
  }
  std::unique_lock lock(mutex);
  EXPECT_TRUE(seen.wait_for(lock, std::chrono::seconds(10), [&] { return keys.size() >= 2; }));
  EXPECT_EQ(keys, (std::vector<std::string>{"/r/a", "/r/a"}));
}

TEST(EtcdStorage, WatchGoesOnAcrossAnEtcdRestartWithoutGapOrDuplicate) {
  testing::EtcdProcess etcd("restart");
  auto storage = openEtcd({etcd.clientUrl()}, "/registry");
  std::mutex mutex;
  std::condition_variable seen;
  std::vector<std::string> values;
  auto watch = storage->watch("/r/", storage->currentRevision(), [&](const WatchEvent& event) {
    std::lock_guard lock(mutex);
    values.push_back(event.kv.value);
    seen.notify_all();
  });
  storage->create("/r/a", "before");
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(seen.wait_for(lock, std::chrono::seconds(10), [&] { return values.size() >= 1; }));
  }
  etcd.restart();
  storage->create("/r/b", "after");
  std::unique_lock lock(mutex);
  EXPECT_TRUE(seen.wait_for(lock, std::chrono::seconds(20), [&] { return values.size() >= 2; }));
  EXPECT_EQ(values, (std::vector<std::string>{"before", "after"}));
  EXPECT_FALSE(watch->ended());
}

// --etcd-cafile/--etcd-certfile/--etcd-keyfile: etcd serving https and requiring client
// certificates; without the client certificate nothing gets through.
TEST(EtcdStorage, SpeaksTlsWithAClientCertificate) {
  const auto dir = std::filesystem::temp_directory_path() / ("fedhpa-etcd-tls-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string d = dir.string();
  const std::string script =
      "cd " + d + " && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout ca.key -out ca.crt -subj /CN=test-ca"
      " 2>/dev/null && for who in server client; do openssl req -newkey rsa:2048 -nodes -keyout $who.key -out $who.csr"
      " -subj /CN=$who 2>/dev/null && printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' > $who.ext"
      " && openssl x509 -req -in $who.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out $who.crt -extfile $who.ext"
      " 2>/dev/null || exit 1; done";
  ASSERT_EQ(std::system(script.c_str()), 0) << "openssl could not make the test certificates";
  const EtcdTlsFiles client{d + "/ca.crt", d + "/client.crt", d + "/client.key"};
  testing::EtcdProcess etcd("tls", {d + "/server.crt", d + "/server.key", d + "/ca.crt"}, client);
  EtcdOptions options;
  options.client.endpoints = {etcd.clientUrl()};
  options.client.tls = client;
  auto storage = EtcdStorage::open(options);
  const KeyValue created = storage->create("/r/a", "secret");
  EXPECT_EQ(storage->get("/r/a")->value, "secret");
  EXPECT_EQ(created.createRevision, created.modRevision);

  options.client.tls = {d + "/ca.crt", "", ""};
  try {
    EtcdStorage::open(options);
    ADD_FAILURE() << "etcd answered a client without a certificate";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), StorageError::Code::Unavailable);
  }
  std::filesystem::remove_all(dir);
}

// A writer creates keys as fast as etcd acknowledges them while etcd is killed with SIGKILL at a
// random moment; after a restart every acknowledged key is there.
TEST(EtcdStorage, AcknowledgedWritesSurviveSigkillOfEtcd) {
  testing::EtcdProcess etcd("sigkill");
  std::mt19937 random(4242);
  std::vector<int> acknowledged;
  int nextKey = 0;
  for (int round = 0; round < 4; ++round) {
    auto storage = openEtcd({etcd.clientUrl()}, "/registry");
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::thread writer([&] {
      for (int key = nextKey; !stop; ++key) {
        try {
          storage->create("/r/" + std::to_string(key), "value-" + std::to_string(key));
        } catch (const StorageError&) {
          return;  // etcd is gone: this write is not acknowledged
        }
        std::lock_guard lock(mutex);
        acknowledged.push_back(key);
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(100, 600)(random)));
    etcd.kill();
    stop = true;
    writer.join();
    etcd.restart();
    storage = openEtcd({etcd.clientUrl()}, "/registry");
    for (int key : acknowledged) {
      const auto kv = storage->get("/r/" + std::to_string(key));
      ASSERT_TRUE(kv) << "acknowledged key " << key << " lost in round " << round;
      EXPECT_EQ(kv->value, "value-" + std::to_string(key));
    }
    nextKey = acknowledged.empty() ? 0 : acknowledged.back() + 2;  // past one that may be unacknowledged
  }
  EXPECT_GT(acknowledged.size(), 20u);
}

}  // namespace
}  // namespace fedhpa::storage
