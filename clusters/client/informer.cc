#include "clusters/client/informer.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "federation/common/logging.h"

namespace fedhpa::clusters {

namespace {

std::string metaField(const json& object, const char* field) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  return meta->value(field, "");
}

// What an informer caches is an object with a name; anything else is an answer no Kubernetes API
// sends, and the list or watch that carried it is not trusted (run() lists again).
json& namedObject(json& object) {
  if (!object.is_object() || metaField(object, "name").empty()) throw std::runtime_error("an object without metadata.name: " + object.dump().substr(0, 200));
  return object;
}

}  // namespace

std::string objectKey(const json& object) {
  const std::string ns = metaField(object, "namespace");
  return ns.empty() ? metaField(object, "name") : ns + "/" + metaField(object, "name");
}

Informer::Informer(KubeClient& client, Resource resource, InformerHandlers handlers, InformerOptions options)
    : client_(client), resource_(std::move(resource)), handlers_{std::move(handlers)}, options_(std::move(options)) {}

Informer::~Informer() { stop(); }

void Informer::addHandlers(InformerHandlers handlers) {
  if (started_) throw std::logic_error("Informer::addHandlers after start()");
  handlers_.push_back(std::move(handlers));
}

void Informer::start() {
  started_ = true;
  thread_ = std::thread([this] { run(); });
}

void Informer::stop() {
  stopping_ = true;
  {
    std::lock_guard lock(mutex_);
    if (current_) current_->cancel();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Informer::waitForSync(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return synced_.load(); });
}

std::uint64_t Informer::changes() const {
  std::lock_guard lock(mutex_);
  return changes_;
}

bool Informer::waitForChange(std::uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return changes_ != seen || stopping_.load(); });
}

std::optional<json> Informer::get(const std::string& namespaceName, const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = cache_.find(namespaceName.empty() ? name : namespaceName + "/" + name);
  if (it == cache_.end()) return std::nullopt;
  return *it->second;
}

std::vector<json> Informer::list() const {
  std::lock_guard lock(mutex_);
  std::vector<json> out;
  out.reserve(cache_.size());
  for (const auto& [key, object] : cache_) out.push_back(*object);
  return out;
}

std::vector<std::string> Informer::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  out.reserve(cache_.size());
  for (const auto& [key, object] : cache_) out.push_back(key);
  return out;
}

std::vector<json> Informer::listNamespace(const std::string& namespaceName) const {
  std::lock_guard lock(mutex_);
  std::vector<json> out;
  const auto keys = byNamespace_.find(namespaceName);
  if (keys == byNamespace_.end()) return out;
  for (const auto& key : keys->second) out.push_back(*cache_.at(key));
  return out;
}

bool Informer::sleepUnlessStopped(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  return !changed_.wait_for(lock, duration, [&] { return stopping_.load(); });
}

void Informer::run() {
  auto backoff = options_.initialBackoff;
  std::string resourceVersion;
  while (!stopping_) {
    std::optional<std::string> failure;
    try {
      if (resourceVersion.empty()) resourceVersion = relist();
      watchFrom(resourceVersion);
      // watchFrom returns with the last version it saw when the server ended the stream.
      backoff = options_.initialBackoff;
    } catch (const ClientError& error) {
      if (!stopping_ && error.kind() == ClientError::Kind::Expired) {
        FEDHPA_LOG(debug) << "informer " << resource_.resource << ": " << error.what() << "; listing again";
        resourceVersion.clear();
        continue;
      }
      failure = error.what();
      // After a failed watch the version we hold may be gone from the server's history (a
      // restarted server, say); a 410 on the next watch sends us to list again.
    } catch (const std::exception& error) {
      // An answer no Kubernetes API sends (a list that is no object, an item without metadata):
      // nothing read from it is trusted, so the informer lists again after the backoff.
      failure = std::string("unreadable answer: ") + error.what();
      resourceVersion.clear();
    }
    if (failure) {
      if (stopping_) break;
      FEDHPA_LOG(debug) << "informer " << resource_.resource << ": " << *failure << "; retrying in " << backoff.count() << "ms";
      if (!sleepUnlessStopped(backoff)) break;
      backoff = std::min(backoff * 2, options_.maxBackoff);
    }
    if (!resourceVersion.empty()) resourceVersion = lastSeenVersion_;
  }
}

// Lists everything and delivers what changed against the cache: adds, updates, and deletes for
// objects that vanished while we were not watching.
std::string Informer::relist() {
  const json page = client_.list(resource_, options_.namespaceName, options_.selectors);
  const std::string listedVersion = page.value("metadata", json::object()).value("resourceVersion", "");
  std::map<std::string, json> fresh;
  json items = page.value("items", json::array());
  for (auto& item : items) {
    const std::string key = objectKey(namedObject(item));
    fresh[key] = std::move(item);
  }
  std::map<std::string, std::shared_ptr<const json>> before;
  {
    std::lock_guard lock(mutex_);
    before = cache_;
  }
  for (const auto& [key, object] : before)
    if (!fresh.count(key)) apply("DELETED", *object);
  for (auto& [key, object] : fresh) apply(before.count(key) ? "MODIFIED" : "ADDED", std::move(object));
  {
    // Set under the mutex that waitForSync checks it under: set between a waiter's check and its
    // sleep, the notification would find nobody waiting and the waiter would sleep its timeout.
    std::lock_guard lock(mutex_);
    synced_ = true;
  }
  changed_.notify_all();
  lastSeenVersion_ = listedVersion;
  return lastSeenVersion_;
}

void Informer::watchFrom(std::string resourceVersion) {
  auto stream = client_.watch(resource_, options_.namespaceName, resourceVersion, options_.selectors);
  WatchStream* raw = stream.get();
  {
    std::lock_guard lock(mutex_);
    current_ = std::move(stream);
    if (stopping_) raw->cancel();
  }
  while (auto event = raw->next()) {
    const std::string type = event->value("type", "");
    json& object = (*event)["object"];
    if (type == "ERROR") throw errorFromStatus(object.value("code", 500), object.dump());
    const std::string version = metaField(object, "resourceVersion");
    if (!version.empty()) lastSeenVersion_ = version;
    if (type != "BOOKMARK") apply(type, std::move(namedObject(object)));
  }
  std::lock_guard lock(mutex_);
  current_.reset();
}

void Informer::apply(const std::string& type, json object) {
  const std::string key = objectKey(object);
  const std::string ns = metaField(object, "namespace");
  auto stored = std::make_shared<const json>(std::move(object));
  std::shared_ptr<const json> before;
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) before = it->second;
    auto& keys = byNamespace_[ns];
    if (type == "DELETED") {
      cache_.erase(key);
      keys.erase(std::remove(keys.begin(), keys.end(), key), keys.end());
    } else {
      if (!before) keys.push_back(key);
      cache_[key] = stored;
    }
    ++changes_;
  }
  changed_.notify_all();
  for (const auto& handlers : handlers_) {
    if (type == "DELETED") {
      if (handlers.onDelete) handlers.onDelete(before ? *before : *stored);
    } else if (before) {
      if (handlers.onUpdate && *before != *stored) handlers.onUpdate(*before, *stored);
    } else if (handlers.onAdd) {
      handlers.onAdd(*stored);
    }
  }
}

Informer& SharedInformers::informer(const Resource& resource, InformerHandlers handlers, const InformerOptions& options) {
  const std::string key = resource.path(options.namespaceName) + "?" + options.selectors.labelSelector + "&" +
                          options.selectors.fieldSelector;
  auto& informer = informers_[key];
  if (!informer) {
    informer = std::make_unique<Informer>(client_, resource, std::move(handlers), options);
  } else {
    informer->addHandlers(std::move(handlers));
  }
  return *informer;
}

void SharedInformers::start() {
  for (auto& [key, informer] : informers_) informer->start();
}

void SharedInformers::stop() {
  for (auto& [key, informer] : informers_) informer->stop();
}

}  // namespace fedhpa::clusters
