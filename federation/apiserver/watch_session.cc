#include "federation/apiserver/watch_session.h"

#include <algorithm>

#include "federation/api/machinery/protobuf.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/apiserver/object_meta.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

constexpr auto kBookmarkInterval = std::chrono::seconds(30);
// Far beyond any server's life, and far within what the clock can add to now.
constexpr std::chrono::seconds kLongestWatchTimeout = std::chrono::hours(24 * 365 * 100);

bool matches(const WatchParams& params, const StoredObject& object) {
  return !params.filter || params.filter(object.object());
}

// An event's line is its type's head, the object's served bytes and this.
constexpr std::string_view kEventTail = "}\n";

}  // namespace

WatchSession::WatchSession(PrivateTag, ResourceStore& store, WatchParams params, std::shared_ptr<http::ResponseStream> stream)
    : store_(store), params_(std::move(params)), stream_(std::move(stream)) {
  const auto now = std::chrono::steady_clock::now();
  // A negative timeout ends the watch at the first tick, as kube-apiserver's timer fires at once.
  // timeoutSeconds is any int64: in the clock's nanoseconds, added to now, it would overflow
  // (undefined, and in practice a deadline in the past), so it is clamped first.
  const auto timeout = std::clamp(params_.timeout, -kLongestWatchTimeout, kLongestWatchTimeout);
  deadline_ = timeout.count() != 0 ? now + timeout : std::chrono::steady_clock::time_point::max();
  nextBookmark_ = now + kBookmarkInterval;
}

WatchSession::~WatchSession() { stop(); }

std::shared_ptr<WatchSession> WatchSession::start(ResourceStore& store, WatchParams params,
                                                  std::shared_ptr<http::ResponseStream> stream) {
  auto session = std::make_shared<WatchSession>(PrivateTag{}, store, std::move(params), std::move(stream));
  const std::string& rv = session->params_.resourceVersion;
  try {
    if (rv.empty() || rv == "0") {
      // kubectl get NAME -w discards the first event: the current state comes first, as ADDED.
      const ListPage page = store.list({session->params_.namespaceName, session->params_.filter, std::nullopt, ""},
                                       [&](const StoredObject& object) { session->send(kAdded, object); });
      session->lastResourceVersion_ = page.resourceVersion;
      session->subscribe(std::stoll(page.resourceVersion));
    } else {
      std::size_t used = 0;
      storage::Revision after = -1;
      try {
        after = std::stoll(rv, &used);
      } catch (const std::exception&) {
      }
      if (after < 0 || used != rv.size()) throw api::ApiError::badRequest("invalid resourceVersion " + api::quoted(rv));
      session->lastResourceVersion_ = rv;
      session->subscribe(after);
    }
  } catch (const api::ApiError& error) {
    // The stream is open (its 200 sent): an error reading the store reaches the client as an
    // ERROR event, as kube-apiserver ends a watch.
    if (error.code() != 410 && error.code() < 500) throw;
    session->endWithError(error);
  } catch (const std::exception& error) {
    session->endWithError(api::ApiError::internal(error.what()));
  }
  return session;
}

void WatchSession::subscribe(storage::Revision afterRevision) {
  std::weak_ptr<WatchSession> weak = weak_from_this();
  subscription_ = store_.watch(params_.namespaceName, afterRevision, [weak](const StoreWatchEvent& event) {
    if (auto self = weak.lock()) self->onStoreEvent(event);
  });
}

// Runs on a storage delivery thread, where nothing may be thrown: an event that cannot be decoded
// or served ends this watch alone with an ERROR event (kube-apiserver's InternalError Status).
void WatchSession::onStoreEvent(const StoreWatchEvent& event) {
  if (endedWithError_ || stream_->closed()) return;  // nothing after its ERROR event
  try {
    deliver(event);
  } catch (const api::ApiError& error) {
    endWithError(error);
  } catch (const std::exception& error) {
    endWithError(api::ApiError::internal(error.what()));
  }
}

void WatchSession::endWithError(const api::ApiError& error) {
  if (error.code() >= 500)
    FEDHPA_LOG(error) << "ending a watch of " << store_.type().names().resource << ": " << error.what();
  endedWithError_ = true;
  try {
    sendError(error);
  } catch (const std::exception&) {
    // Nothing more can be told to this client: the stream still ends.
  }
  stream_->close();
}

void WatchSession::deliver(const StoreWatchEvent& event) {
  // An object that stops (or starts) matching the selectors leaves (or enters) the watch, as
  // kube-apiserver's filtered watches report it.
  const bool nowMatches = event.type != WatchEventType::Deleted && matches(params_, event.object);
  const bool matchedBefore = event.previous && matches(params_, *event.previous);
  switch (event.type) {
    case WatchEventType::Added:
      if (nowMatches) send(kAdded, event.object);
      break;
    case WatchEventType::Modified:
      if (nowMatches && matchedBefore) send(kModified, event.object);
      else if (nowMatches) send(kAdded, event.object);
      else if (matchedBefore) send(kDeleted, event.object);
      break;
    case WatchEventType::Deleted:
      if (matches(params_, event.object)) send(kDeleted, event.object);
      break;
  }
  std::lock_guard lock(mutex_);
  lastResourceVersion_ = event.object.resourceVersion();
}

void WatchSession::send(const EventType& type, const StoredObject& object) {
  if (params_.protobuf) {
    // The frame, head and object, is made once per stored version and event type and shared by
    // every protobuf watcher, as the JSON event below.
    auto event = object.servedProtobufWatchEvent(std::string(type.name), params_.version);
    const std::string_view head = event->head;
    const std::string_view bytes = *event->object;
    if (!stream_->write(http::SharedChunk{head, {std::move(event), bytes}, {}})) stream_->close();
    return;
  }
  if (!params_.table) {
    // The object's served bytes are made once per stored version and shared by every watcher:
    // the stream queues a reference to them, not a copy.
    auto served = object.servedJson(params_.version);
    const std::string_view bytes = *served;
    if (!stream_->write(http::SharedChunk{type.head, {std::move(served), bytes}, kEventTail})) stream_->close();
    return;
  }
  const auto& resourceType = store_.type();
  const json& internalObject = object.object();
  const json served = resourceType.fromInternal(internalObject, params_.version);
  json table;
  {
    std::lock_guard lock(mutex_);
    TableOptions options{*params_.table, !columnsSent_};
    columnsSent_ = true;
    table = buildTable(resourceType, {internalObject}, {served}, options, api::Clock::now());
  }
  table["metadata"]["resourceVersion"] = object.resourceVersion();
  write({{"type", type.name}, {"object", std::move(table)}});
}

void WatchSession::sendError(const api::ApiError& error) { write({{"type", "ERROR"}, {"object", error.toStatus()}}); }

void WatchSession::write(const json& event) {
  const bool written =
      params_.protobuf
          ? stream_->write(api::machinery::protobufWatchFrame(event["type"].get<std::string>(),
                                                               api::machinery::encodeKubernetesProtobuf(event["object"])))
          : stream_->write(api::machinery::dumpSafe(event) + "\n");
  if (!written) stream_->close();
}

bool WatchSession::tick(std::chrono::steady_clock::time_point now) {
  if (stream_->closed()) return false;
  if (now >= deadline_) {
    stream_->close();
    return false;
  }
  if (subscription_ && subscription_->ended()) {
    // The storage lost its stream and cannot resume it: the client lists again, as after compaction.
    sendError(api::ApiError::expired("the storage watch ended: its history was compacted while it reconnected"));
    stream_->close();
    return false;
  }
  if (params_.allowBookmarks && now >= nextBookmark_) {
    nextBookmark_ = now + kBookmarkInterval;
    const auto& names = store_.type().names();
    std::string rv;
    {
      std::lock_guard lock(mutex_);
      rv = lastResourceVersion_;
    }
    write({{"type", "BOOKMARK"},
           {"object",
            {{"kind", names.kind}, {"apiVersion", names.apiVersion(params_.version)}, {"metadata", {{"resourceVersion", rv}}}}}});
  }
  return true;
}

void WatchSession::stop() {
  subscription_.reset();
  stream_->close();
}

WatchRegistry::WatchRegistry() : ticker_([this] { run(); }) {}

WatchRegistry::~WatchRegistry() {
  stopAll();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  ticker_.join();
}

void WatchRegistry::add(std::shared_ptr<WatchSession> session) {
  std::lock_guard lock(mutex_);
  sessions_.push_back(std::move(session));
}

std::size_t WatchRegistry::size() {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void WatchRegistry::stopAll() {
  std::list<std::shared_ptr<WatchSession>> sessions;
  {
    std::lock_guard lock(mutex_);
    sessions.swap(sessions_);
  }
  for (auto& session : sessions) session->stop();
}

void WatchRegistry::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    const auto now = std::chrono::steady_clock::now();
    std::list<std::shared_ptr<WatchSession>> finished;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if ((*it)->tick(now)) {
        ++it;
      } else {
        finished.push_back(std::move(*it));
        it = sessions_.erase(it);
      }
    }
    // Sessions are destroyed outside the lock: their storage watches join dispatcher work.
    lock.unlock();
    finished.clear();
    lock.lock();
  }
}

}  // namespace fedhpa::apiserver
