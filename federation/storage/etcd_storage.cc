#include "federation/storage/etcd_storage.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "federation/common/logging.h"

namespace fedhpa::storage {

using nlohmann::json;

namespace {

// etcd's range_end for every key starting with prefix.
std::string rangeEnd(const std::string& prefix) {
  std::string end = prefixEnd(prefix);
  if (end.empty()) end = std::string(1, '\0');  // etcd: "\0" as range_end means "to the end"
  return end;
}

// A gateway KeyValue as ours: base64 decoded, the backend's prefix taken off the key.
KeyValue keyValueOf(const json& kv, const std::string& etcdPrefix) {
  std::string key = fromBase64(kv.value("key", ""));
  if (key.compare(0, etcdPrefix.size(), etcdPrefix) == 0) key.erase(0, etcdPrefix.size());
  return {std::move(key), fromBase64(kv.value("value", "")), int64Field(kv, "create_revision"),
          int64Field(kv, "mod_revision")};
}

// The store's revision when etcd answered (every reply's header carries it).
Revision headerRevision(const json& reply) { return int64Field(reply.value("header", json::object()), "revision"); }

bool mentions(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// etcd's OutOfRange answers (a compacted or future revision) are our Expired; everything else that
// is not a 200 means etcd could not do it.
[[noreturn]] void throwFor(const EtcdReply& reply, const std::string& what) {
  const std::string message = reply.error();
  if (mentions(message, "required revision has been compacted") || mentions(message, "required revision is a future revision"))
    throw StorageError(StorageError::Code::Expired, what + ": " + message);
  throw StorageError(StorageError::Code::Unavailable, what + ": " + message);
}

json checked(EtcdReply reply, const std::string& what) {
  if (!reply.ok()) throwFor(reply, what);
  return std::move(reply.body);
}

json txnCompareModRevision(const std::string& key, Revision expected) {
  // mod_revision alone would also match an absent key when expected is 0: require existence too.
  return json::array({{{"key", key}, {"target", "MOD"}, {"result", "EQUAL"}, {"mod_revision", std::to_string(expected)}},
                      {{"key", key}, {"target", "CREATE"}, {"result", "NOT_EQUAL"}, {"create_revision", "0"}}});
}

// The failure branch of every txn reads the key back, so a failed compare tells a missing key
// (NotFound) from a changed one (Conflict) without a second round trip.
json readBack(const std::string& key) { return json::array({{{"request_range", {{"key", key}}}}}); }

const json& firstResponse(const json& txn, const char* kind) {
  static const json kEmpty = json::object();
  if (!txn.contains("responses") || txn["responses"].empty()) return kEmpty;
  const json& first = txn["responses"][0];
  return first.contains(kind) ? first[kind] : kEmpty;
}

}  // namespace

// An etcd watch on its own thread, reading the gateway's stream line by line. A broken stream (a
// member killed, a connection reset) is reopened on the next endpoint from the last revision seen,
// so the watcher sees neither a gap nor a duplicate; when that revision is compacted the watch ends.
class EtcdWatch : public Watch {
 public:
  struct Target {
    std::shared_ptr<EtcdClient> client;
    std::string etcdPrefix;  // the backend's prefix, stripped from every key delivered
    std::string key;         // the watched range, with the backend's prefix
    std::string rangeEnd;
  };

  static std::unique_ptr<EtcdStream> open(const Target& target, Revision afterRevision);

  EtcdWatch(Target target, Revision afterRevision, std::unique_ptr<EtcdStream> stream, WatchCallback onEvent)
      : shared_(std::make_shared<Shared>()) {
    shared_->stream = std::move(stream);
    thread_ = std::thread([shared = shared_, target = std::move(target), afterRevision, onEvent = std::move(onEvent)] {
      run(*shared, target, afterRevision, onEvent);
    });
  }

  ~EtcdWatch() override {
    {
      std::lock_guard lock(shared_->mutex);
      shared_->stopped = true;
      if (shared_->stream) shared_->stream->cancel();
    }
    shared_->wake.notify_all();
    // Destroyed from its own callback: the thread sees `stopped` when the callback returns.
    if (thread_.get_id() == std::this_thread::get_id()) thread_.detach();
    else thread_.join();
  }

  bool ended() const override { return shared_->ended.load(); }

 private:
  struct Shared {
    std::mutex mutex;
    std::condition_variable wake;
    bool stopped = false;
    std::unique_ptr<EtcdStream> stream;  // replaced under the mutex; next() is called without it
    std::atomic<bool> ended{false};
  };

  static bool stopped(Shared& shared) {
    std::lock_guard lock(shared.mutex);
    return shared.stopped;
  }

  // Delivers one message's events; false when the watch must not go on (stopped, cancelled, or its
  // callback failed).
  static bool deliver(Shared& shared, const Target& target, const json& result, Revision& last,
                      const WatchCallback& onEvent) {
    if (result.value("canceled", false)) {
      if (int64Field(result, "compact_revision") > 0) {
        FEDHPA_LOG(warning) << "etcd watch on " << target.key << " ended: revision " << last + 1 << " is compacted";
        shared.ended = true;
        return false;
      }
      throw StorageError(StorageError::Code::Unavailable, "etcd cancelled the watch: " + result.value("cancel_reason", ""));
    }
    if (!result.contains("events")) {
      // A progress notification: every event up to this revision has been sent.
      if (!result.value("created", false)) last = std::max(last, headerRevision(result));
      return true;
    }
    for (const json& raw : result["events"]) {
      WatchEvent event;
      const KeyValue kv = keyValueOf(raw.value("kv", json::object()), target.etcdPrefix);
      if (raw.contains("prev_kv")) event.previous = keyValueOf(raw["prev_kv"], target.etcdPrefix);
      if (raw.value("type", "PUT") == "DELETE") {
        // etcd's delete event carries only the key and the delete's revision; the last value is prev_kv.
        event.type = WatchEvent::Type::Delete;
        event.kv = event.previous.value_or(kv);
        event.kv.key = kv.key;
        event.kv.modRevision = kv.modRevision;
      } else {
        event.type = WatchEvent::Type::Put;
        event.kv = kv;
      }
      if (event.kv.modRevision <= last) continue;  // already delivered before a reconnect
      if (stopped(shared)) return false;
      if (!deliverToWatch(onEvent, event, "etcd watch on " + target.key)) {
        // Reopening would deliver the same event again: the watch ends instead.
        shared.ended = true;
        return false;
      }
      last = event.kv.modRevision;
    }
    return true;
  }

  static void run(Shared& shared, const Target& target, Revision last, const WatchCallback& onEvent) {
    auto backoff = std::chrono::milliseconds(100);
    EtcdStream* stream = nullptr;
    {
      std::lock_guard lock(shared.mutex);
      stream = shared.stream.get();
    }
    for (;;) {
      try {
        while (auto message = stream->next()) {
          if (message->contains("error")) throw StorageError(StorageError::Code::Unavailable, message->dump());
          if (!deliver(shared, target, message->value("result", json::object()), last, onEvent)) return;
          backoff = std::chrono::milliseconds(100);
        }
      } catch (const std::exception& error) {
        if (!stopped(shared)) FEDHPA_LOG(debug) << "etcd watch on " << target.key << ": " << error.what();
      }
      for (;;) {  // reopen from the last revision delivered
        {
          std::unique_lock lock(shared.mutex);
          if (shared.wake.wait_for(lock, backoff, [&] { return shared.stopped; })) return;
        }
        backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
        try {
          auto reopened = open(target, last);
          std::lock_guard lock(shared.mutex);
          if (shared.stopped) return;
          shared.stream = std::move(reopened);
          stream = shared.stream.get();
          break;
        } catch (const StorageError& error) {
          if (error.code() == StorageError::Code::Expired) {
            FEDHPA_LOG(warning) << "etcd watch on " << target.key << " ended: " << error.what();
            shared.ended = true;
            return;
          }
          FEDHPA_LOG(debug) << "etcd watch on " << target.key << ": " << error.what();
        } catch (const std::exception& error) {  // an unreadable answer: try again, as after a broken stream
          FEDHPA_LOG(debug) << "etcd watch on " << target.key << ": " << error.what();
        }
      }
    }
  }

  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

// Opens a watch delivering every change after afterRevision, or throws Expired when that
// revision is compacted or was never reached. etcd would accept either (it cancels a compacted
// start after "created", and waits for a future one), so a range at that revision asks first.
std::unique_ptr<EtcdStream> EtcdWatch::open(const Target& target, Revision afterRevision) {
  const json probe = {{"key", toBase64(target.key)}, {"count_only", true},
                      {"revision", std::to_string(std::max<Revision>(afterRevision, 1))}};
  checked(target.client->call("/v3/kv/range", probe, true, true), "watch " + target.key);
  auto stream = target.client->stream(
      "/v3/watch", {{"create_request",
                     {{"key", toBase64(target.key)}, {"range_end", toBase64(target.rangeEnd)},
                      {"start_revision", std::to_string(afterRevision + 1)}, {"prev_kv", true}, {"progress_notify", true}}}});
  const auto first = stream->next();
  if (!first || !first->contains("result") || !(*first)["result"].value("created", false))
    throw StorageError(StorageError::Code::Unavailable, "etcd watch " + target.key + ": not created: " +
                                                            (first ? first->dump() : std::string("stream ended")));
  if ((*first)["result"].value("canceled", false))
    throw StorageError(StorageError::Code::Expired, "etcd watch " + target.key + ": " + first->dump());
  return stream;
}

class EtcdStorage::Impl {
 public:
  explicit Impl(EtcdOptions options)
      : client_(std::make_shared<EtcdClient>(options.client)), prefix_(options.prefix),
        historyLimit_(static_cast<Revision>(options.historyLimit)) {
    compacted_ = findCompactedRevision();
  }

  std::optional<KeyValue> get(const std::string& key) {
    const json& reply = checked(client_->call("/v3/kv/range", {{"key", toBase64(prefix_ + key)}}, true), "get " + key);
    if (!reply.contains("kvs") || reply["kvs"].empty()) return std::nullopt;
    return keyValue(reply["kvs"][0]);
  }

  ListResult list(const ListOptions& options) {
    const bool exclusive = !options.startAfterKey.empty() && options.startAfterKey >= options.prefix;
    // "\0" after a key is the first key after it.
    const std::string from = exclusive ? options.startAfterKey + std::string(1, '\0') : options.prefix;
    json request = {{"key", toBase64(prefix_ + from)}, {"range_end", toBase64(rangeEnd(prefix_ + options.prefix))}};
    if (options.atRevision) request["revision"] = std::to_string(*options.atRevision);
    if (options.limit) request["limit"] = std::to_string(*options.limit);
    const json& reply =
        checked(client_->call("/v3/kv/range", request, true, options.atRevision.has_value()), "list " + options.prefix);
    ListResult result;
    result.revision = options.atRevision.value_or(headerRevision(reply));
    if (reply.contains("kvs"))
      for (const json& kv : reply["kvs"]) result.items.push_back(std::make_shared<const KeyValue>(keyValue(kv)));
    result.more = reply.value("more", false);
    return result;
  }

  KeyValue create(const std::string& key, const std::string& value) {
    const std::string etcdKey = toBase64(prefix_ + key);
    const std::string etcdValue = toBase64(value);
    const json txn = {
        {"compare", json::array({{{"key", etcdKey}, {"target", "CREATE"}, {"result", "EQUAL"}, {"create_revision", "0"}}})},
        {"success", json::array({{{"request_put", {{"key", etcdKey}, {"value", etcdValue}}}}})}};
    // No failure branch, unlike update's: a compare that fails on the first try means the key
    // exists, and only a resent create needs what it holds, so it reads it then. etcd parses no
    // unused read with every create.
    bool earlierTryMayHaveApplied = false;
    const json& reply = checked(client_->callWrite("/v3/kv/txn", txn, earlierTryMayHaveApplied), "create " + key);
    if (!reply.value("succeeded", false)) {
      if (earlierTryMayHaveApplied)
        if (auto current = get(key); current && current->value == value) return earlierTryApplied(*current);
      throw StorageError(StorageError::Code::AlreadyExists, key + " already exists");
    }
    const Revision revision = headerRevision(reply);
    compactBehind(revision);
    return {key, value, revision, revision};
  }

  KeyValue update(const std::string& key, const std::string& value, Revision expected) {
    const std::string etcdKey = toBase64(prefix_ + key);
    const std::string etcdValue = toBase64(value);
    const json txn = {{"compare", txnCompareModRevision(etcdKey, expected)},
                      {"success", json::array({{{"request_put", {{"key", etcdKey}, {"value", etcdValue}, {"prev_kv", true}}}}})},
                      {"failure", readBack(etcdKey)}};
    bool earlierTryMayHaveApplied = false;
    const json& reply = checked(client_->callWrite("/v3/kv/txn", txn, earlierTryMayHaveApplied), "update " + key);
    if (!reply.value("succeeded", false)) {
      if (auto ours = earlierTryOf(reply, etcdValue, earlierTryMayHaveApplied)) return *ours;
      throwCompareFailed(key, reply);
    }
    const Revision revision = headerRevision(reply);
    const json& put = firstResponse(reply, "response_put");
    compactBehind(revision);
    return {key, value, int64Field(put.value("prev_kv", json::object()), "create_revision"), revision};
  }

  KeyValue remove(const std::string& key, Revision expected) {
    const std::string etcdKey = toBase64(prefix_ + key);
    const json txn = {{"compare", txnCompareModRevision(etcdKey, expected)},
                      {"success", json::array({{{"request_delete_range", {{"key", etcdKey}, {"prev_kv", true}}}}})},
                      {"failure", readBack(etcdKey)}};
    const json& reply = checked(client_->call("/v3/kv/txn", txn, false), "delete " + key);
    if (!reply.value("succeeded", false)) throwCompareFailed(key, reply);
    const json& deleted = firstResponse(reply, "response_delete_range");
    if (!deleted.contains("prev_kvs") || deleted["prev_kvs"].empty())
      throw StorageError(StorageError::Code::Unavailable, "delete " + key + ": etcd returned no previous value");
    KeyValue last = keyValue(deleted["prev_kvs"][0]);
    last.modRevision = headerRevision(reply);
    compactBehind(last.modRevision);
    return last;
  }

  std::unique_ptr<Watch> watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) {
    EtcdWatch::Target target{client_, prefix_, prefix_ + prefix, rangeEnd(prefix_ + prefix)};
    auto stream = EtcdWatch::open(target, afterRevision);
    return std::make_unique<EtcdWatch>(std::move(target), afterRevision, std::move(stream), std::move(onEvent));
  }

  Revision currentRevision() {
    const json& reply =
        checked(client_->call("/v3/kv/range", {{"key", toBase64(prefix_)}, {"count_only", true}}, true), "revision");
    return headerRevision(reply);
  }

  Revision oldestRevision() {
    const Revision found = findCompactedRevision();
    std::lock_guard lock(compactionMutex_);
    compacted_ = std::max(compacted_, found);
    return compacted_;
  }

 private:
  KeyValue keyValue(const json& kv) const { return keyValueOf(kv, prefix_); }

  // A write sent again after a try whose answer was lost fails its compare when that try applied.
  // It was ours when the key holds exactly the bytes written: a create's bytes carry the object's
  // new uid, so no other writer's match them; another writer's bytes equal to an update's would
  // leave the key as this update wanted anyway.
  std::optional<KeyValue> earlierTryOf(const json& reply, const std::string& etcdValue, bool earlierTryMayHaveApplied) const {
    if (!earlierTryMayHaveApplied) return std::nullopt;
    const json& range = firstResponse(reply, "response_range");
    if (!range.contains("kvs") || range["kvs"].empty() || range["kvs"][0].value("value", "") != etcdValue)
      return std::nullopt;
    return earlierTryApplied(keyValue(range["kvs"][0]));
  }

  static KeyValue earlierTryApplied(KeyValue current) {
    FEDHPA_LOG(info) << "etcd: a write whose answer was lost had applied; taking its revision";
    return current;
  }

  [[noreturn]] static void throwCompareFailed(const std::string& key, const json& reply) {
    const json& range = firstResponse(reply, "response_range");
    if (!range.contains("kvs") || range["kvs"].empty()) throw StorageError(StorageError::Code::NotFound, key + " not found");
    throw StorageError(StorageError::Code::Conflict,
                       key + " was modified at revision " + std::to_string(int64Field(range["kvs"][0], "mod_revision")));
  }

  // etcd tells its compaction revision only to a watch that starts before it: when revision 1 is
  // gone, a watch from 1 is cancelled with compact_revision right after it is created.
  Revision findCompactedRevision() {
    const EtcdReply first = client_->call("/v3/kv/range", {{"key", toBase64(prefix_)}, {"count_only", true}, {"revision", "1"}}, true, true);
    if (first.ok()) return 0;
    if (!mentions(first.error(), "compacted")) throwFor(first, "compaction revision");
    auto stream = client_->stream("/v3/watch", {{"create_request", {{"key", toBase64(prefix_)}, {"start_revision", "1"}}}});
    for (int messages = 0; messages < 3; ++messages) {
      const auto message = stream->next();
      if (!message) break;
      const json result = message->value("result", json::object());
      if (result.value("canceled", false)) return int64Field(result, "compact_revision");
    }
    throw StorageError(StorageError::Code::Unavailable, "etcd did not tell its compaction revision");
  }

  // kube-apiserver compacts every five minutes; here history is counted in revisions, as SQLite's
  // is, so both backends expire the same requests. Compaction runs once the history is an eighth
  // over the limit, by the first writer to see it; another API server doing the same is harmless.
  void compactBehind(Revision revision) {
    if (historyLimit_ <= 0) return;
    const Revision target = revision - historyLimit_;
    std::unique_lock lock(compactionMutex_, std::try_to_lock);
    if (!lock.owns_lock() || target - compacted_ <= historyLimit_ / 8) return;
    const EtcdReply reply = client_->call("/v3/kv/compaction", {{"revision", std::to_string(target)}}, true, true);
    if (reply.ok() || mentions(reply.error(), "compacted")) compacted_ = std::max(compacted_, target);
    else FEDHPA_LOG(warning) << "etcd compaction to revision " << target << ": " << reply.error();
  }

  std::shared_ptr<EtcdClient> client_;  // shared with watch threads, which may outlive this storage
  std::string prefix_;
  Revision historyLimit_;
  std::mutex compactionMutex_;
  Revision compacted_ = 0;  // the newest compaction known (ours or another API server's)
};

EtcdStorage::EtcdStorage(PrivateTag, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EtcdStorage::~EtcdStorage() = default;

std::unique_ptr<EtcdStorage> EtcdStorage::open(EtcdOptions options) {
  return std::make_unique<EtcdStorage>(PrivateTag{}, std::make_unique<Impl>(std::move(options)));
}

std::optional<KeyValue> EtcdStorage::get(const std::string& key) { return impl_->get(key); }
ListResult EtcdStorage::list(const ListOptions& options) { return impl_->list(options); }
KeyValue EtcdStorage::create(const std::string& key, const std::string& value) { return impl_->create(key, value); }
KeyValue EtcdStorage::update(const std::string& key, const std::string& value, Revision expectedModRevision) {
  return impl_->update(key, value, expectedModRevision);
}
KeyValue EtcdStorage::remove(const std::string& key, Revision expectedModRevision) {
  return impl_->remove(key, expectedModRevision);
}
std::unique_ptr<Watch> EtcdStorage::watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) {
  return impl_->watch(prefix, afterRevision, std::move(onEvent));
}
Revision EtcdStorage::currentRevision() { return impl_->currentRevision(); }
Revision EtcdStorage::oldestRevision() { return impl_->oldestRevision(); }

}  // namespace fedhpa::storage
