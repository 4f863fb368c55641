#include "clusters/client/informer.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

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
  std::string text;
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(namespaceName.empty() ? name : namespaceName + "/" + name);
    if (it == cache_.end()) return std::nullopt;
    text = it->second;
  }
  return json::parse(text);  // outside the lock: readers on other threads do not wait for it
}

std::vector<json> Informer::list() const {
  std::vector<std::string> texts;
  {
    std::lock_guard lock(mutex_);
    texts.reserve(cache_.size());
    for (const auto& [key, text] : cache_) texts.push_back(text);
  }
  std::vector<json> out;
  out.reserve(texts.size());
  for (const auto& text : texts) out.push_back(json::parse(text));
  return out;
}

std::vector<json> Informer::listNamespace(const std::string& namespaceName) const {
  std::vector<std::string> texts;
  {
    std::lock_guard lock(mutex_);
    const auto keys = byNamespace_.find(namespaceName);
    if (keys == byNamespace_.end()) return {};
    for (const auto& key : keys->second) texts.push_back(cache_.at(key));
  }
  std::vector<json> out;
  out.reserve(texts.size());
  for (const auto& text : texts) out.push_back(json::parse(text));
  return out;
}

std::vector<std::string> Informer::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  out.reserve(cache_.size());
  for (const auto& [key, text] : cache_) out.push_back(key);
  return out;
}

std::vector<std::string> Informer::keysInNamespace(const std::string& namespaceName) const {
  std::lock_guard lock(mutex_);
  const auto keys = byNamespace_.find(namespaceName);
  return keys == byNamespace_.end() ? std::vector<std::string>{} : keys->second;
}

void Informer::retryNow() {
  {
    std::lock_guard lock(mutex_);
    if (!backingOff_) return;
    retryNow_ = true;
  }
  changed_.notify_all();
}

Informer::Woken Informer::backOff(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  backingOff_ = true;
  changed_.wait_for(lock, duration, [&] { return stopping_.load() || retryNow_; });
  backingOff_ = false;
  const bool retry = std::exchange(retryNow_, false);
  if (stopping_) return Woken::Stopped;
  return retry ? Woken::RetryNow : Woken::TimedOut;
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
      const Woken woken = backOff(backoff);
      if (woken == Woken::Stopped) break;
      backoff = woken == Woken::RetryNow ? options_.initialBackoff : std::min(backoff * 2, options_.maxBackoff);
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
    const std::string key = objectKey(prepared(item));
    fresh[key] = std::move(item);
  }
  std::vector<std::string> vanished;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, text] : cache_)
      if (!fresh.count(key)) vanished.push_back(text);
  }
  for (const auto& text : vanished) apply("DELETED", json::parse(text));
  // apply() tells an add from an update by what the cache holds.
  for (auto& [key, object] : fresh) apply("MODIFIED", std::move(object));
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
    if (type != "BOOKMARK") apply(type, std::move(prepared(object)));
  }
  std::lock_guard lock(mutex_);
  current_.reset();
}

json& Informer::prepared(json& object) const {
  namedObject(object);
  if (options_.transform) options_.transform(object);
  return namedObject(object);  // a transform that lost the name is a bug: nothing read from it is trusted
}

void Informer::apply(const std::string& type, json object) {
  const std::string key = objectKey(object);
  const std::string ns = metaField(object, "namespace");
  std::string text = object.dump();
  text.shrink_to_fit();  // dump() grows its string by doubling: up to half of it would be slack
  std::optional<std::string> before;
  bool unchanged = false;
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) {
      unchanged = it->second == text;
      before = std::move(it->second);
    }
    auto& keys = byNamespace_[ns];
    if (type == "DELETED") {
      if (it != cache_.end()) cache_.erase(it);
      keys.erase(std::remove(keys.begin(), keys.end(), key), keys.end());
    } else if (it != cache_.end()) {
      it->second = std::move(text);
    } else {
      keys.push_back(key);
      cache_.emplace(key, std::move(text));
    }
    ++changes_;
  }
  changed_.notify_all();
  // An update that changed nothing the transform kept is no update to any handler.
  if (type != "DELETED" && unchanged) return;
  std::optional<json> beforeObject;  // decoded for the first handler that takes it
  const auto previous = [&]() -> const json& {
    if (!beforeObject) beforeObject = json::parse(*before);
    return *beforeObject;
  };
  for (const auto& handlers : handlers_) {
    if (type == "DELETED") {
      if (handlers.onDelete) handlers.onDelete(before ? previous() : object);
    } else if (before) {
      if (handlers.onUpdate) handlers.onUpdate(previous(), object);
    } else if (handlers.onAdd) {
      handlers.onAdd(object);
    }
  }
}

Informer& SharedInformers::informer(const Resource& resource, InformerHandlers handlers, const InformerOptions& options) {
  const std::string key = resource.path(options.namespaceName) + "?" + options.selectors.labelSelector + "&" +
                          options.selectors.fieldSelector;
  auto& informer = informers_[key];
  if (!informer) {
    InformerOptions withTransform = options;
    if (transformFor_ && !withTransform.transform) withTransform.transform = transformFor_(resource);
    informer = std::make_unique<Informer>(client_, resource, std::move(handlers), withTransform);
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
