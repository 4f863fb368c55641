// A shared-informer: list, then watch from the list's resourceVersion; on a stream's end watch
// again from the last version seen, on 410 Expired list again and deliver the differences; an
// indexed cache; add/update/delete delivered in order from one thread to every handler set
// added; hasSynced() after the first list. It rides out the server going away (reconnects with
// capped backoff). SharedInformers hands every controller of a process the same informer of a
// resource, so each resource is listed and watched once.
//
// What it caches is each object after the informer's transform (client-go's SetTransform: what no
// reader needs is dropped once, on arrival), kept as its compact JSON text rather than as a
// nlohmann::json tree: a tree costs 48-100 bytes per node, six to eight times the text, and a
// reader gets its own copy of the object either way (get() parses where it used to copy).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clusters/client/kube_client.h"

namespace fedhpa::clusters {

// The read side of an informer's cache, as a controller sees it (client-go's lister plus
// HasSynced): the seam reconcilers are written against, so that unit tests can hand them a map.
class Lister {
 public:
  virtual ~Lister() = default;
  // True once the first list has been delivered: before that an empty cache means "unknown".
  virtual bool hasSynced() const = 0;
  virtual std::optional<json> get(const std::string& namespaceName, const std::string& name) const = 0;
};

struct InformerHandlers {
  std::function<void(const json& object)> onAdd;
  std::function<void(const json& before, const json& after)> onUpdate;
  std::function<void(const json& lastState)> onDelete;
};

// Applied to every object a list or a watch event delivers, before it is cached or handed to a
// handler. It may drop or rewrite any field except metadata.name, namespace and resourceVersion
// (the cache's key, and what a write is made conditional on).
using ObjectTransform = std::function<void(json& object)>;

struct InformerOptions {
  std::string namespaceName;  // "" = all namespaces
  ObjectTransform transform;  // none: objects are cached as they came
  ListOptions selectors;      // label/field selectors for list and watch
  std::chrono::milliseconds initialBackoff{200};
  std::chrono::milliseconds maxBackoff{5000};
};

class Informer : public Lister {
 public:
  Informer(KubeClient& client, Resource resource, InformerHandlers handlers, InformerOptions options = {});
  ~Informer() override;
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Another controller's handlers, delivered after those before them. Only before start(): a
  // handler added later would miss what the cache already holds (client-go replays it; no
  // controller here needs that).
  void addHandlers(InformerHandlers handlers);
  void start();
  void stop();  // returns promptly: cancels the open watch
  // The server is known to answer again (its cluster turned Ready): a wait between failed tries
  // under way ends now, and the backoff starts again from initialBackoff. Nothing while watching.
  void retryNow();
  bool hasSynced() const override { return synced_; }
  // Waits until the first list has been delivered; false on timeout.
  bool waitForSync(std::chrono::milliseconds timeout);
  // How many changes the cache has taken. A caller that waits for something the cache will show
  // reads this, checks, and waits for a change past what it read: no change can slip between
  // its check and its wait, and it wakes when the change comes rather than at a polling tick.
  std::uint64_t changes() const;
  // Waits until the cache has taken a change past `seen` (or the informer stops); false on timeout.
  bool waitForChange(std::uint64_t seen, std::chrono::milliseconds timeout);

  std::optional<json> get(const std::string& namespaceName, const std::string& name) const override;
  std::vector<json> list() const;
  std::vector<json> listNamespace(const std::string& namespaceName) const;
  // The cache's keys ("namespace/name", objectKey's form, sorted), all or one namespace's, without
  // decoding any object.
  std::vector<std::string> keys() const;
  std::vector<std::string> keysInNamespace(const std::string& namespaceName) const;

 private:
  void run();
  std::string relist();
  void watchFrom(std::string resourceVersion);
  // Transformed: the object to cache and hand to handlers.
  json& prepared(json& object) const;
  void apply(const std::string& type, json object);
  enum class Woken { Stopped, TimedOut, RetryNow };
  Woken backOff(std::chrono::milliseconds duration);

  KubeClient& client_;
  Resource resource_;
  std::vector<InformerHandlers> handlers_;
  InformerOptions options_;
  bool started_ = false;
  std::atomic<bool> synced_{false};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::condition_variable changed_;  // synced, stopping, or a change applied
  std::uint64_t changes_ = 0;         // under mutex_
  bool backingOff_ = false;           // under mutex_: run() waits between failed tries
  bool retryNow_ = false;             // under mutex_: retryNow() ended that wait
  // By "namespace/name": each object's compact JSON text, after the transform.
  std::map<std::string, std::string> cache_;
  std::map<std::string, std::vector<std::string>> byNamespace_;  // the namespace index
  std::unique_ptr<WatchStream> current_;
  std::string lastSeenVersion_;  // only the informer's thread touches it
  std::thread thread_;
};

// client-go's SharedInformerFactory for one client: one informer per resource (and namespace and
// selectors), however many controllers ask for it; each asking adds its handlers. Every informer
// asked for before start() starts with it.
class SharedInformers {
 public:
  // Which transform an informer of each resource applies (client-go's WithTransform option of a
  // SharedInformerFactory): one per resource, so every controller sharing it reads the same fields.
  using TransformFor = std::function<ObjectTransform(const Resource&)>;
  explicit SharedInformers(KubeClient& client, TransformFor transformFor = {}) : client_(client), transformFor_(std::move(transformFor)) {}
  ~SharedInformers() { stop(); }
  SharedInformers(const SharedInformers&) = delete;
  SharedInformers& operator=(const SharedInformers&) = delete;

  Informer& informer(const Resource& resource, InformerHandlers handlers, const InformerOptions& options = {});
  void start();
  void stop();

 private:
  KubeClient& client_;
  TransformFor transformFor_;
  std::map<std::string, std::unique_ptr<Informer>> informers_;  // by resource, namespace and selectors
};

// "namespace/name" (just "name" for cluster-scoped objects), the key of caches and work queues.
std::string objectKey(const json& object);

}  // namespace fedhpa::clusters
