// kube-apiserver's generic registry store for one resource: the object lifecycle (uid, generation,
// resourceVersion, finalizers, deletion, status subresource rules, defaulting, validation) over a
// revisioned Storage. It works on the stored ("internal") form only; versions, HTTP, patches and
// tables are the REST layer's business.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "federation/api/resource.h"
#include "federation/storage/storage.h"

namespace fedhpa::apiserver {

using nlohmann::json;

enum class Subresource { Main, Status };

enum class PropagationPolicy { Orphan, Background, Foreground };

struct DeleteOptions {
  std::optional<PropagationPolicy> propagationPolicy;
  std::optional<std::string> preconditionUid;
  std::optional<std::string> preconditionResourceVersion;
  bool dryRun = false;
};

struct DeleteResult {
  json object;
  bool deleted = false;  // false: still present, waiting for its finalizers
};

struct ListRequest {
  std::string namespaceName;               // "" = all namespaces (or cluster-scoped)
  std::function<bool(const json&)> filter;  // label and field selectors; empty = everything
  std::optional<std::size_t> limit;
  std::string continueToken;
  // resourceVersion=X with resourceVersionMatch=Exact: the list as it was at X (410 once X is
  // compacted). With NotOlderThan (or no match, X > 0): a list at X or later. Neither: the latest.
  std::optional<storage::Revision> exactRevision = std::nullopt;
  std::optional<storage::Revision> notOlderThan = std::nullopt;
};

// One stored version of an object, as the store hands it to readers. Its decoded (internal) form
// and its JSON in each served version are derived once per stored version: behind the watch cache
// they are kept with the cached value, so every LIST and watcher reading that version shares them
// instead of parsing and serializing the object again (kube-apiserver's cacher keeps decoded
// objects, and serializes each watch event once per encoding, the same way). Immutable: both
// forms are handed out const, so no request can change what another one reads. The StoredObject
// itself is one reader's handle, used on one thread at a time; what it derives is shared.
class StoredObject {
 public:
  StoredObject(const api::ResourceType& type, storage::SharedKeyValue kv);
  StoredObject(const api::ResourceType& type, storage::KeyValue kv);

  // The internal (stored) form, metadata.resourceVersion set.
  const json& object() const;
  // The object converted to a served version and serialized: what a response carries.
  std::shared_ptr<const std::string> servedJson(const std::string& version) const;
  // The same if a reader made it already, else nullptr (nothing is converted or serialized).
  std::shared_ptr<const std::string> servedJsonIfMade(const std::string& version) const;
  // Its protobuf encoding in a served version ("k8s\0" + envelope), made once and shared the same way.
  std::shared_ptr<const std::string> servedProtobuf(const std::string& version) const;
  // A protobuf watch event of it: the frame's head (length, event type), made once per event type
  // and version, and the shared encoding it precedes. Every protobuf watcher sends the same bytes.
  struct ProtobufWatchEvent {
    std::string head;
    std::shared_ptr<const std::string> object;
  };
  std::shared_ptr<const ProtobufWatchEvent> servedProtobufWatchEvent(const std::string& type, const std::string& version) const;
  std::string resourceVersion() const { return std::to_string(kv_->modRevision); }

 private:
  std::shared_ptr<const json> decoded() const;

  const api::ResourceType* type_;
  storage::SharedKeyValue kv_;
  std::shared_ptr<storage::DerivedForms> derived_;  // kv_'s own, or this object's when it has none
  mutable std::shared_ptr<const json> object_;  // looked up once per StoredObject
};

struct ListPage {
  std::vector<json> items;
  std::string resourceVersion;
  std::string continueToken;  // "" when this was the last page
};

// The proposed new object, computed from the current one (a PUT body, or a patch applied to it).
using Transform = std::function<json(const json& current)>;

enum class WatchEventType { Added, Modified, Deleted };

struct StoreWatchEvent {
  WatchEventType type;
  StoredObject object;                    // for Deleted, the last state (at the delete's revision)
  std::optional<StoredObject> previous;   // the object before this change, when there was one
};

// Create must be refused when the namespace does not exist or is terminating (kube-apiserver's
// NamespaceLifecycle admission). Throws ApiError; unset for cluster-scoped resources.
using NamespaceAdmission = std::function<void(const std::string& namespaceName)>;

// kube-apiserver's BeginCreate and BeginUpdate (genericregistry.Store): a resource's own step
// between defaulting and validation, given the object about to be written (and, on update, the
// stored one). It may change the object (an allocator fills in what it allocated) or throw an
// ApiError. What it returns is called once the write is committed (true) or abandoned (false:
// refused, retried after a conflict, a dry run), so that an allocator gives back what an
// abandoned write took. Writes to the status subresource do not call it.
struct WriteHooks {
  using Finish = std::function<void(bool committed)>;
  std::function<Finish(json& object)> beginCreate;
  std::function<Finish(const json& current, json& next)> beginUpdate;
};

class ResourceStore {
 public:
  ResourceStore(std::shared_ptr<const api::ResourceType> type, storage::Storage& storage,
                NamespaceAdmission namespaceAdmission = {});
  // Before the server serves: the hooks are read without a lock.
  void setWriteHooks(WriteHooks hooks) { hooks_ = std::move(hooks); }

  const api::ResourceType& type() const { return *type_; }
  // The key prefix of every object of a resource type (in every namespace).
  static std::string resourcePrefix(const api::ResourceType& type);

  json create(const std::string& namespaceName, json object, bool dryRun);
  json get(const std::string& namespaceName, const std::string& name);
  // The object as a list shows it now (behind the watch cache: its copy, no storage read), nullopt
  // when absent. Not a quorum read: a write made through another API server a moment ago may not
  // show yet, so an absent answer is only "not seen here".
  std::optional<StoredObject> getFromList(const std::string& namespaceName, const std::string& name);
  ListPage list(const ListRequest& request);
  // The same page, each object handed to onItem in turn (the page's items stay empty), so that a
  // large list is never copied: a response is written from the objects' shared served forms.
  ListPage list(const ListRequest& request, const std::function<void(const StoredObject&)>& onItem);
  // The same, only when the storage answers it at once from memory (storage::Storage::
  // listFromMemory: the watch cache, caught up); nullopt otherwise, and whatever onItem was
  // handed then is to be dropped (a page filtered by selectors may take several reads).
  std::optional<ListPage> listFromMemory(const ListRequest& request,
                                         const std::function<void(const StoredObject&)>& onItem);
  // Read-modify-write: retries on concurrent writes unless the proposal carries a resourceVersion,
  // which then must match (409 otherwise).
  json update(const std::string& namespaceName, const std::string& name, const Transform& transform,
              Subresource subresource, bool dryRun);
  DeleteResult remove(const std::string& namespaceName, const std::string& name, const DeleteOptions& options);

  // Events for objects in namespaceName ("" = all) with resourceVersion > afterRevision.
  std::unique_ptr<storage::Watch> watch(const std::string& namespaceName, storage::Revision afterRevision,
                                        std::function<void(const StoreWatchEvent&)> onEvent);
  storage::Revision currentRevision() { return storage_.currentRevision(); }

 private:
  std::optional<ListPage> readList(const ListRequest& request, const std::function<void(const StoredObject&)>& onItem,
                                   bool fromMemoryOnly);
  std::string keyPrefix(const std::string& namespaceName) const;
  std::string key(const std::string& namespaceName, const std::string& name) const;
  // The stored key-value and its object; 404 when absent.
  std::pair<storage::KeyValue, json> readCurrent(const std::string& namespaceName, const std::string& name);
  // The watch cache's copy (storage::Storage::cachedGuess), decoded once and shared; nullopt: none.
  std::optional<std::pair<storage::KeyValue, json>> readCachedGuess(const std::string& namespaceName, const std::string& name);
  std::string encode(const json& object) const;
  void validateOrThrow(const json& object, const json* old) const;
  // A hook's Finish, called exactly once: with true when told the write committed, with false
  // when it goes out of scope before that.
  class PendingWrite {
   public:
    PendingWrite() = default;
    explicit PendingWrite(WriteHooks::Finish finish) : finish_(std::move(finish)) {}
    PendingWrite(PendingWrite&& other) noexcept : finish_(std::exchange(other.finish_, {})) {}
    PendingWrite& operator=(PendingWrite&& other) noexcept {
      finish(false);
      finish_ = std::exchange(other.finish_, {});
      return *this;
    }
    ~PendingWrite() { finish(false); }
    void finish(bool committed) {
      if (auto callback = std::exchange(finish_, {})) callback(committed);
    }

   private:
    WriteHooks::Finish finish_;
  };
  json prepareUpdate(const json& current, json proposed, Subresource subresource, PendingWrite& pending) const;
  json commitUpdate(const storage::KeyValue& currentKv, const json& current, const json& next, bool dryRun);

  std::shared_ptr<const api::ResourceType> type_;
  storage::Storage& storage_;
  NamespaceAdmission namespaceAdmission_;
  WriteHooks hooks_;
};

}  // namespace fedhpa::apiserver
