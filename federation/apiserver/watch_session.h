// One open watch: storage events for one resource, filtered by namespace and selectors, converted
// to the requested version (or to one-row Tables), written as one JSON event per line to a chunked
// response. Ends on the client's disconnect, on timeoutSeconds, or when the server stops.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <condition_variable>

#include "federation/apiserver/http/http_types.h"
#include "federation/apiserver/resource_store.h"
#include "federation/apiserver/table.h"

namespace fedhpa::apiserver {

struct WatchParams {
  std::string namespaceName;
  std::string version;                             // served version the events are converted to
  std::function<bool(const nlohmann::json&)> filter;  // selectors on the stored form; empty = all
  std::string resourceVersion;                     // "" or "0": start with the current objects as ADDED
  bool allowBookmarks = false;
  std::chrono::seconds timeout{0};                 // 0: none; negative: ends at once
  std::optional<IncludeObject> table;              // set: every event carries a one-row Table
  bool protobuf = false;                           // kube's protobuf stream: length-prefixed WatchEvents
};

class WatchSession : public std::enable_shared_from_this<WatchSession> {
  struct PrivateTag {};  // construction goes through start(), which subscribes after the initial events

 public:
  WatchSession(PrivateTag, ResourceStore& store, WatchParams params, std::shared_ptr<http::ResponseStream> stream);
  // Sends the initial events (or an ERROR event when resourceVersion is too old) and subscribes.
  static std::shared_ptr<WatchSession> start(ResourceStore& store, WatchParams params,
                                             std::shared_ptr<http::ResponseStream> stream);
  ~WatchSession();

  // Called about once a second: bookmarks and the timeout. Returns false once the session is over.
  bool tick(std::chrono::steady_clock::time_point now);
  void stop();

 private:
  void subscribe(storage::Revision afterRevision);
  void onStoreEvent(const StoreWatchEvent& event);
  void deliver(const StoreWatchEvent& event);
  void endWithError(const api::ApiError& error);
  // An event's line is a head, the object's served bytes and a tail: the object's bytes go out
  // from where the watch cache keeps them, whatever the number of watchers.
  struct EventType {
    std::string_view name;  // ADDED, MODIFIED, DELETED
    std::string_view head;  // the event's line up to its object
  };
  static constexpr EventType kAdded{"ADDED", R"({"type":"ADDED","object":)"};
  static constexpr EventType kModified{"MODIFIED", R"({"type":"MODIFIED","object":)"};
  static constexpr EventType kDeleted{"DELETED", R"({"type":"DELETED","object":)"};
  void send(const EventType& type, const StoredObject& object);
  void sendError(const api::ApiError& error);
  void write(const nlohmann::json& event);

  ResourceStore& store_;
  WatchParams params_;
  std::shared_ptr<http::ResponseStream> stream_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point nextBookmark_;
  std::mutex mutex_;
  std::string lastResourceVersion_;
  bool columnsSent_ = false;
  // Set before the ERROR event is sent: the stream closes asynchronously, and no event may follow it.
  std::atomic<bool> endedWithError_ = false;
  std::unique_ptr<storage::Watch> subscription_;
};

// Owns every open watch and ticks them from one thread.
class WatchRegistry {
 public:
  WatchRegistry();
  ~WatchRegistry();
  void add(std::shared_ptr<WatchSession> session);
  std::size_t size();
  void stopAll();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::list<std::shared_ptr<WatchSession>> sessions_;
  std::thread ticker_;
};

}  // namespace fedhpa::apiserver
