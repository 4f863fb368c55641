// In-memory Kubernetes APIs for the reconcilers' unit tests: FakeApi keeps objects with growing
// resourceVersions and answers as kube-apiserver does where reconcile depends on it (409 on a
// stale resourceVersion or precondition, 404, 409 AlreadyExists, the status subresource, HPA
// defaulting); it can be made unreachable. SnapshotLister is an informer cache the test refreshes
// when it chooses, so that a cache can be as stale as a test needs.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "clusters/client/informer.h"
#include "clusters/client/kube_client.h"
#include "federation/api/hpa_defaults.h"

namespace fedhpa::controller::testing {

using clusters::ClientError;
using clusters::json;
using clusters::Resource;

inline std::optional<long long> specField(const json& object, const char* field, long long absent) {
  const auto spec = object.find("spec");
  return spec == object.end() ? absent : spec->value(field, absent);
}

class FakeApi : public clusters::KubeClient {
 public:
  // Runs after every successful write, with the resource written.
  std::function<void(const Resource&)> afterWrite;
  std::atomic<bool> reachable{true};
  std::atomic<int> writes{0};  // Events are posted from the recorder's thread
  std::atomic<int> reads{0};

  json get(const Resource& resource, const std::string& ns, const std::string& name) override {
    std::lock_guard lock(mutex_);
    check();
    ++reads;
    const auto it = objects_.find(keyOf(resource, ns, name));
    if (it == objects_.end()) throw ClientError(ClientError::Kind::NotFound, 404, "NotFound", name + " not found");
    return it->second;
  }
  json list(const Resource& resource, const std::string& ns, const clusters::ListOptions&) override {
    std::lock_guard lock(mutex_);
    check();
    ++reads;
    json items = json::array();
    for (const auto& [key, object] : objects_)
      if (key.rfind(resource.resource + "/" + ns, 0) == 0) items.push_back(object);
    return {{"items", items}};
  }
  json create(const Resource& resource, const std::string& ns, const json& object) override {
    json stored;
    {
      std::lock_guard lock(mutex_);
      check();
      const std::string name = object["metadata"].value("name", object["metadata"].value("generateName", "") + std::to_string(revision_ + 1));
      const std::string key = keyOf(resource, ns, name);
      if (objects_.count(key)) throw ClientError(ClientError::Kind::AlreadyExists, 409, "AlreadyExists", name + " already exists");
      stored = object;
      stored["metadata"]["name"] = name;
      if (resource.namespaced) stored["metadata"]["namespace"] = ns;
      stored["metadata"]["uid"] = "uid-" + name;
      stored["metadata"]["generation"] = 1;
      defaulted(resource, stored);
      stored["metadata"]["resourceVersion"] = std::to_string(++revision_);
      objects_[key] = stored;
      ++writes;
    }
    if (afterWrite) afterWrite(resource);
    return stored;
  }
  json update(const Resource& resource, const json& object, const std::string& subresource = "") override {
    json stored;
    {
      std::lock_guard lock(mutex_);
      check();
      const auto& meta = object["metadata"];
      const std::string key = keyOf(resource, meta.value("namespace", ""), meta.value("name", ""));
      const auto it = objects_.find(key);
      if (it == objects_.end()) throw ClientError(ClientError::Kind::NotFound, 404, "NotFound", "not found");
      if (meta.value("resourceVersion", "") != it->second["metadata"].value("resourceVersion", ""))
        throw ClientError(ClientError::Kind::Conflict, 409, "Conflict", "the object has been modified");
      stored = it->second;
      if (subresource == "status") {
        stored["status"] = object.value("status", json::object());
      } else {
        const json status = stored.value("status", json());
        stored = object;
        if (!status.is_null()) stored["status"] = status;
        defaulted(resource, stored);
      }
      stored["metadata"]["resourceVersion"] = std::to_string(++revision_);
      const auto finalizers = stored["metadata"].value("finalizers", json::array());
      if (stored["metadata"].contains("deletionTimestamp") && finalizers.empty()) objects_.erase(it);
      else it->second = stored;
      ++writes;
    }
    if (afterWrite) afterWrite(resource);
    return stored;
  }
  json mergePatch(const Resource& resource, const std::string& ns, const std::string& name, const json& patch,
                  const std::string& subresource = "") override {
    json current;
    {
      std::lock_guard lock(mutex_);
      check();
      const auto it = objects_.find(keyOf(resource, ns, name));
      if (it == objects_.end()) throw ClientError(ClientError::Kind::NotFound, 404, "NotFound", name + " not found");
      current = it->second;  // not a read the client made: the server's own, as kube-apiserver's patcher
    }
    if (subresource == "status") current["status"] = patch.value("status", json::object());
    else current.merge_patch(patch);
    return update(resource, current, subresource);
  }
  json remove(const Resource& resource, const std::string& ns, const std::string& name, const std::string&,
              const std::string& resourceVersion = "") override {
    json last;
    {
      std::lock_guard lock(mutex_);
      check();
      const auto it = objects_.find(keyOf(resource, ns, name));
      if (it == objects_.end()) throw ClientError(ClientError::Kind::NotFound, 404, "NotFound", name + " not found");
      if (!resourceVersion.empty() && resourceVersion != it->second["metadata"].value("resourceVersion", ""))
        throw ClientError(ClientError::Kind::Conflict, 409, "Conflict", "precondition failed");
      last = it->second;
      if (!last["metadata"].value("finalizers", json::array()).empty()) {
        last["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
        last["metadata"]["resourceVersion"] = std::to_string(++revision_);
        it->second = last;
      } else {
        objects_.erase(it);
      }
      ++writes;
    }
    if (afterWrite) afterWrite(resource);
    return last;
  }
  std::unique_ptr<clusters::WatchStream> watch(const Resource&, const std::string&, const std::string&,
                                               const clusters::ListOptions&) override {
    throw ClientError(ClientError::Kind::Other, 500, "", "the fake does not watch");
  }
  int probe(const std::string&) override { return reachable ? 200 : 0; }

  void reset() {
    std::lock_guard lock(mutex_);
    objects_.clear();
    reachable = true;
    writes = 0;
    reads = 0;
  }

  // The test's own access, whether reachable or not (what is really there).
  std::optional<json> peek(const Resource& resource, const std::string& ns, const std::string& name) const {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(keyOf(resource, ns, name));
    return it == objects_.end() ? std::nullopt : std::optional<json>(it->second);
  }
  // One integer of an object's spec, read in place (the fixture's observer reads them around every
  // write): nullopt when the object is absent, `absent` when the field is.
  std::optional<long long> peekSpec(const Resource& resource, const std::string& ns, const std::string& name, const char* field,
                                    long long absent) const {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(keyOf(resource, ns, name));
    return it == objects_.end() ? std::nullopt : specField(it->second, field, absent);
  }
  std::map<std::string, json> all(const Resource& resource) const {
    std::lock_guard lock(mutex_);
    std::map<std::string, json> out;
    for (const auto& [key, object] : objects_)
      if (key.rfind(resource.resource + "/", 0) == 0) out[key.substr(resource.resource.size() + 1)] = object;
    return out;
  }
  // Something other than fedhpa changes an object (a member's HPA controller writing status).
  void touch(const Resource& resource, const std::string& ns, const std::string& name, const std::function<void(json&)>& change) {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(keyOf(resource, ns, name));
    if (it == objects_.end()) return;
    change(it->second);
    it->second["metadata"]["resourceVersion"] = std::to_string(++revision_);
  }
  void put(const Resource& resource, json object) {
    std::lock_guard lock(mutex_);
    const auto& meta = object["metadata"];
    object["metadata"]["resourceVersion"] = std::to_string(++revision_);
    objects_[keyOf(resource, meta.value("namespace", ""), meta.value("name", ""))] = object;
  }

 private:
  static std::string keyOf(const Resource& resource, const std::string& ns, const std::string& name) {
    return resource.resource + "/" + (resource.namespaced ? ns + "/" : "") + name;
  }
  void check() const {
    if (!reachable) throw ClientError(ClientError::Kind::ConnectionFailure, 0, clusters::kConnectionRefused, "connection refused");
  }
  // As kube-apiserver stores an autoscaling/v2 HPA: defaults filled in.
  static void defaulted(const Resource& resource, json& object) {
    if (resource.resource == "horizontalpodautoscalers" && object.contains("spec")) api::applyHpaV2Defaults(object["spec"]);
  }

  mutable std::mutex mutex_;
  std::map<std::string, json> objects_;  // by resource/namespace/name
  long long revision_ = 100;
};

// An informer cache that shows what the test last copied into it from a FakeApi, each object
// through the informer's transform when one is given (as the controller-manager's caches are).
class SnapshotLister : public clusters::Lister {
 public:
  SnapshotLister(const FakeApi& api, Resource resource, clusters::ObjectTransform transform = {})
      : api_(api), resource_(std::move(resource)), transform_(std::move(transform)) {}
  bool hasSynced() const override {
    std::lock_guard lock(mutex_);
    return synced_;
  }
  std::optional<json> get(const std::string& ns, const std::string& name) const override {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(ns + "/" + name);
    return it == objects_.end() ? std::nullopt : std::optional<json>(it->second);
  }
  // As FakeApi::peekSpec, of what the cache shows.
  std::optional<long long> getSpec(const std::string& ns, const std::string& name, const char* field, long long absent) const {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(ns + "/" + name);
    return it == objects_.end() ? std::nullopt : specField(it->second, field, absent);
  }
  void refresh() {
    auto objects = api_.all(resource_);
    if (transform_)
      for (auto& [key, object] : objects) transform_(object);
    std::lock_guard lock(mutex_);
    objects_ = std::move(objects);
    synced_ = true;
  }
  void hide(const std::string& ns, const std::string& name) {  // synced, but this object not shown yet
    std::lock_guard lock(mutex_);
    objects_.erase(ns + "/" + name);
  }
  void forget() {  // a new process: nothing read yet
    std::lock_guard lock(mutex_);
    objects_.clear();
    synced_ = false;
  }

 private:
  const FakeApi& api_;
  Resource resource_;
  clusters::ObjectTransform transform_;
  mutable std::mutex mutex_;
  std::map<std::string, json> objects_;
  bool synced_ = false;
};

}  // namespace fedhpa::controller::testing
