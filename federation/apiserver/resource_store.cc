#include "federation/apiserver/resource_store.h"

#include <algorithm>
#include <utility>

#include "federation/api/machinery/protobuf.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/apiserver/object_meta.h"

namespace fedhpa::apiserver {

namespace {

using storage::StorageError;

constexpr int kUpdateAttempts = 16;
constexpr const char* kOrphanFinalizer = "orphan";

// The continue token carries the revision the first page was read at and the last key returned,
// so every page of one list shows the store as it was at the same moment (kube-apiserver does the same).
struct ContinuePoint {
  storage::Revision revision;
  std::string startAfterKey;
};

std::string encodeContinue(const ContinuePoint& point) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const std::string raw = json{{"rv", point.revision}, {"start", point.startAfterKey}}.dump();
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : raw) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(buffer >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (6 - bits)) & 63];
  return out;
}

ContinuePoint decodeContinue(const std::string& token) {
  std::string raw;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : token) {
    int value;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    else if (c >= '0' && c <= '9') value = c - '0' + 52;
    else if (c == '-') value = 62;
    else if (c == '_') value = 63;
    else throw api::ApiError::badRequest("invalid continue token");
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      raw += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  json parsed;
  try {
    parsed = api::machinery::parseUntrustedJson(raw);
  } catch (const api::machinery::JsonInputError&) {
    throw api::ApiError::badRequest("invalid continue token");
  }
  if (!parsed.is_object() || !parsed.contains("rv") || !parsed["rv"].is_number_integer() ||
      !parsed.contains("start") || !parsed["start"].is_string())
    throw api::ApiError::badRequest("invalid continue token");
  return {parsed["rv"].get<storage::Revision>(), parsed["start"].get<std::string>()};
}

[[noreturn]] void throwUnavailable(const StorageError& error) {
  throw api::ApiError::internal("storage: " + std::string(error.what()));
}

// kube-apiserver's garbage collector takes the orphan finalizer away once the dependents are
// orphaned. Nothing here has dependents the server knows of, so "orphan" alone holds nothing up;
// a controller with its own finalizer still sees it until that finalizer is gone.
bool deletionMayComplete(const std::vector<std::string>& finalizers) {
  return finalizers.empty() || (finalizers.size() == 1 && finalizers.front() == kOrphanFinalizer);
}

json withoutResourceVersion(json object) {
  if (object.contains("metadata")) object["metadata"].erase("resourceVersion");
  return object;
}

// An object as it reads back from storage: the stored bytes carry no resourceVersion; the
// revision the write got is it.
json withResourceVersion(json object, storage::Revision revision) {
  object["metadata"]["resourceVersion"] = std::to_string(revision);
  return object;
}

// A stored value that does not read back as an object (written around this server, or an etcd
// delete event without its last value) is the server's fault, never the client's: a 500
// InternalError Status, as kube-apiserver answers an object it cannot decode.
json decode(const storage::KeyValue& kv) {
  // Named only on failure: every stored version a reader meets is decoded here.
  const auto undecodable = [&](const std::string& why) {
    return api::ApiError::internal("unable to decode " + kv.key + " at revision " + std::to_string(kv.modRevision) + ": " + why);
  };
  json object;
  try {
    object = json::parse(kv.value);
  } catch (const json::exception& error) {
    throw undecodable(error.what());
  }
  if (!object.is_object() || (object.contains("metadata") && !object["metadata"].is_object()))
    throw undecodable("the stored value is not an object with object metadata");
  return withResourceVersion(std::move(object), kv.modRevision);
}

}  // namespace

StoredObject::StoredObject(const api::ResourceType& type, storage::SharedKeyValue kv)
    : type_(&type),
      kv_(std::move(kv)),
      // A value straight from a backend has nobody to share its forms with: this object keeps them.
      derived_(kv_->derived ? kv_->derived : std::make_shared<storage::DerivedForms>()) {}

StoredObject::StoredObject(const api::ResourceType& type, storage::KeyValue kv)
    : StoredObject(type, std::make_shared<const storage::KeyValue>(std::move(kv))) {}

// The decoded tree is about four times the stored bytes: a cached value keeps it only while a
// reader holds it (the served forms, made from it once, stay), so that 10,000 cached objects cost
// their bytes rather than their trees. Readers of one event at the same time (its watchers) share
// one decode; a filtered watch or list that comes later decodes again.
std::shared_ptr<const json> StoredObject::decoded() const {
  if (!object_) object_ = derived_->getWhileHeld<json>("object", [&] { return decode(*kv_); });
  return object_;
}

const json& StoredObject::object() const { return *decoded(); }

std::shared_ptr<const std::string> StoredObject::servedJsonIfMade(const std::string& version) const {
  return derived_->find<std::string>("json:" + version);
}

std::shared_ptr<const std::string> StoredObject::servedJson(const std::string& version) const {
  return derived_->get<std::string>("json:" + version, [&] {
    return api::machinery::dumpSafe(type_->fromInternal(object(), version));
  });
}

std::shared_ptr<const std::string> StoredObject::servedProtobuf(const std::string& version) const {
  return derived_->get<std::string>("protobuf:" + version, [&] {
    return api::machinery::encodeKubernetesProtobuf(type_->fromInternal(object(), version));
  });
}

std::shared_ptr<const StoredObject::ProtobufWatchEvent> StoredObject::servedProtobufWatchEvent(const std::string& type,
                                                                                               const std::string& version) const {
  return derived_->get<ProtobufWatchEvent>("protobuf-watch:" + type + ":" + version, [&] {
    auto object = servedProtobuf(version);
    std::string head = api::machinery::protobufWatchFrameHead(type, object->size());
    return ProtobufWatchEvent{std::move(head), std::move(object)};
  });
}

ResourceStore::ResourceStore(std::shared_ptr<const api::ResourceType> type, storage::Storage& storage,
                             NamespaceAdmission namespaceAdmission)
    : type_(std::move(type)), storage_(storage), namespaceAdmission_(std::move(namespaceAdmission)) {}

std::string ResourceStore::resourcePrefix(const api::ResourceType& type) {
  const auto& names = type.names();
  return "/" + (names.group.empty() ? std::string("core") : names.group) + "/" + names.resource + "/";
}

std::string ResourceStore::keyPrefix(const std::string& namespaceName) const {
  std::string prefix = resourcePrefix(*type_);
  if (type_->names().namespaced && !namespaceName.empty()) prefix += namespaceName + "/";
  return prefix;
}

std::string ResourceStore::key(const std::string& namespaceName, const std::string& name) const {
  return keyPrefix(namespaceName) + name;
}

std::string ResourceStore::encode(const json& object) const { return withoutResourceVersion(object).dump(); }

void ResourceStore::validateOrThrow(const json& object, const json* old) const {
  auto causes = type_->validate(object, old);
  if (!causes.empty())
    throw api::ApiError::invalid(type_->names().group, type_->names().kind, metaString(object, "name"),
                                 std::move(causes));
}

json ResourceStore::create(const std::string& namespaceName, json object, bool dryRun) {
  const auto& names = type_->names();
  if (!object.is_object()) throw api::ApiError::badRequest("the body of the request must be an object");
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (names.namespaced) {
    const std::string bodyNamespace = metaString(object, "namespace");
    if (!bodyNamespace.empty() && bodyNamespace != namespaceName)
      throw api::ApiError::badRequest("the namespace of the provided object does not match the namespace sent on the request");
    meta["namespace"] = namespaceName;
  } else {
    meta.erase("namespace");
  }
  if (!metaString(object, "resourceVersion").empty())
    throw api::ApiError::badRequest("resourceVersion should not be set on objects to be created");
  const bool generated = metaString(object, "name").empty() && !metaString(object, "generateName").empty();
  if (generated) meta["name"] = generateNameFrom(metaString(object, "generateName"));
  if (metaString(object, "name").empty())
    throw api::ApiError::invalid(names.group, names.kind, "", {api::fieldRequired("metadata.name")});

  if (meta.contains("managedFields") && meta["managedFields"].is_array() && meta["managedFields"].empty())
    meta.erase("managedFields");
  meta["uid"] = newUid();
  meta["creationTimestamp"] = rfc3339Now(api::Clock::now());
  meta["generation"] = 1;
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("selfLink");
  if (type_->hasStatusSubresource()) object.erase("status");
  api::machinery::canonicalizeQuantities(object);  // kube stores a quantity in canonical form: "0.5" as "500m"
  type_->applyDefaults(object);
  PendingWrite pending(hooks_.beginCreate ? hooks_.beginCreate(object) : WriteHooks::Finish{});
  validateOrThrow(object, nullptr);
  if (names.namespaced && namespaceAdmission_) namespaceAdmission_(namespaceName);
  if (dryRun) {
    // A dry run answers as the real create would, AlreadyExists included.
    if (storage_.get(key(namespaceName, metaString(object, "name"))))
      throw api::ApiError::alreadyExists(names.groupResource(), metaString(object, "name"));
    return object;
  }

  try {
    object["metadata"].erase("resourceVersion");  // at most "" (refused otherwise above); never stored
    const storage::KeyValue stored = storage_.create(key(namespaceName, metaString(object, "name")), object.dump());
    pending.finish(true);
    return withResourceVersion(std::move(object), stored.modRevision);  // not parsed back from the bytes
  } catch (const StorageError& error) {
    if (error.code() == StorageError::Code::AlreadyExists)
      throw api::ApiError::alreadyExists(names.groupResource(), metaString(object, "name"));
    throwUnavailable(error);
  }
}

json ResourceStore::get(const std::string& namespaceName, const std::string& name) {
  try {
    const auto kv = storage_.get(key(namespaceName, name));
    if (!kv) throw api::ApiError::notFound(type_->names().groupResource(), name);
    return decode(*kv);
  } catch (const StorageError& error) {
    throwUnavailable(error);
  }
}

std::optional<StoredObject> ResourceStore::getFromList(const std::string& namespaceName, const std::string& name) {
  try {
    // Every key under this prefix starts with the name; the one equal to it, if any, comes first.
    const std::string wanted = key(namespaceName, name);
    storage::ListResult result = storage_.list({wanted, {}, {}, ""});
    if (result.items.empty() || result.items.front()->key != wanted) return std::nullopt;
    return StoredObject(*type_, std::move(result.items.front()));
  } catch (const StorageError& error) {
    throwUnavailable(error);
  }
}

ListPage ResourceStore::list(const ListRequest& request) {
  std::vector<json> items;
  ListPage page = list(request, [&](const StoredObject& object) { items.push_back(object.object()); });
  page.items = std::move(items);
  return page;
}

ListPage ResourceStore::list(const ListRequest& request, const std::function<void(const StoredObject&)>& onItem) {
  return *readList(request, onItem, false);
}

std::optional<ListPage> ResourceStore::listFromMemory(const ListRequest& request,
                                                      const std::function<void(const StoredObject&)>& onItem) {
  return readList(request, onItem, true);
}

std::optional<ListPage> ResourceStore::readList(const ListRequest& request,
                                                const std::function<void(const StoredObject&)>& onItem,
                                                bool fromMemoryOnly) {
  storage::ListOptions options;
  options.prefix = keyPrefix(request.namespaceName);
  if (!request.continueToken.empty()) {
    const ContinuePoint point = decodeContinue(request.continueToken);
    options.atRevision = point.revision;
    options.startAfterKey = point.startAfterKey;
  }
  if (request.exactRevision) options.atRevision = *request.exactRevision;
  ListPage page;
  std::size_t count = 0;
  try {
    // Selectors apply before the limit, so keep reading until the page is full or the keys end.
    for (;;) {
      if (request.limit) options.limit = *request.limit - count;
      std::optional<storage::ListResult> read = fromMemoryOnly ? storage_.listFromMemory(options) : storage_.list(options);
      if (!read) return std::nullopt;
      storage::ListResult& result = *read;
      if (!options.atRevision && request.notOlderThan && result.revision < *request.notOlderThan) {
        // A cache behind a write made through another API server: the list as of that write, from
        // a snapshot or the storage, as kube's cacher waits until it has reached it.
        if (fromMemoryOnly) return std::nullopt;
        options.atRevision = *request.notOlderThan;
        continue;
      }
      options.atRevision = result.revision;
      if (!result.items.empty()) options.startAfterKey = result.items.back()->key;
      for (auto& kv : result.items) {
        const StoredObject object(*type_, std::move(kv));
        if (request.filter && !request.filter(object.object())) continue;
        ++count;
        onItem(object);
      }
      page.resourceVersion = std::to_string(result.revision);
      if (!result.more) break;
      if (request.limit && count >= *request.limit) {
        page.continueToken = encodeContinue({result.revision, options.startAfterKey});
        break;
      }
    }
  } catch (const StorageError& error) {
    if (error.code() == StorageError::Code::Expired && request.continueToken.empty())
      throw api::ApiError::expired("The resourceVersion for the provided list is too old.");
    if (error.code() == StorageError::Code::Expired)
      throw api::ApiError::expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new "
          "list without the continue parameter, or use the continue token in this response to retrieve the "
          "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
          "that were created, modified, or deleted between the time the first chunk was returned and now may "
          "show up in the list.");
    throwUnavailable(error);
  }
  return page;
}

json ResourceStore::prepareUpdate(const json& current, json proposed, Subresource subresource, PendingWrite& pending) const {
  if (!proposed.is_object()) throw api::ApiError::badRequest("the body of the request must be an object");
  const auto& names = type_->names();
  const auto proposedVersion = resourceVersionOf(proposed);
  const auto currentVersion = resourceVersionOf(current);
  if (proposedVersion && proposedVersion != currentVersion)
    throw api::ApiError::staleResourceVersion(names.groupResource(), metaString(current, "name"));
  if (!proposed["metadata"].is_object()) proposed["metadata"] = json::object();
  // A uid in the object is a precondition (kube-apiserver's DefaultUpdatedObjectInfo); a namespace
  // must be the request's (EnsureObjectNamespaceMatchesRequestNamespace).
  const std::string proposedUid = metaString(proposed, "uid");
  if (!proposedUid.empty() && proposedUid != metaString(current, "uid"))
    throw api::ApiError::conflict(names.groupResource(), metaString(current, "name"),
                                  "Precondition failed: UID in precondition: " + proposedUid +
                                      ", UID in object meta: " + metaString(current, "uid"));
  const std::string proposedNamespace = metaString(proposed, "namespace");
  if (names.namespaced && !proposedNamespace.empty() && proposedNamespace != metaString(current, "namespace"))
    throw api::ApiError::badRequest("the namespace of the provided object does not match the namespace sent on the request");
  const std::string proposedName = metaString(proposed, "name");
  if (!proposedName.empty() && proposedName != metaString(current, "name"))
    throw api::ApiError::badRequest("the name of the object (" + proposedName +
                                    ") does not match the name on the URL (" + metaString(current, "name") + ")");

  std::optional<json> proposedManagedFields;
  if (proposed["metadata"].contains("managedFields")) proposedManagedFields = proposed["metadata"]["managedFields"];
  json next;
  if (subresource == Subresource::Status) {
    // A write to /status changes the status and nothing else.
    next = current;
    if (proposed.contains("status")) next["status"] = proposed["status"];
    else next.erase("status");
  } else {
    next = std::move(proposed);
    if (type_->hasStatusSubresource()) {
      if (current.contains("status")) next["status"] = current["status"];
      else next.erase("status");
    }
    for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                              "generation", "name", "namespace"}) {
      if (current["metadata"].contains(field)) next["metadata"][field] = current["metadata"][field];
      else next["metadata"].erase(field);
    }
    next["metadata"].erase("selfLink");
  }
  // managedFields are the field manager's: a proposal without them keeps the stored ones (writers
  // inside the server), an empty list drops them.
  if (proposedManagedFields) next["metadata"]["managedFields"] = std::move(*proposedManagedFields);
  else if (current["metadata"].contains("managedFields")) next["metadata"]["managedFields"] = current["metadata"]["managedFields"];
  else next["metadata"].erase("managedFields");
  if (next["metadata"].contains("managedFields") && next["metadata"]["managedFields"].is_array() &&
      next["metadata"]["managedFields"].empty())
    next["metadata"].erase("managedFields");
  next["apiVersion"] = current["apiVersion"];
  next["kind"] = current["kind"];
  next["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"];
  api::machinery::canonicalizeQuantities(next);
  type_->applyDefaults(next);

  if (isBeingDeleted(current)) {
    const auto before = finalizersOf(current);
    for (const auto& finalizer : finalizersOf(next))
      if (std::find(before.begin(), before.end(), finalizer) == before.end())
        throw api::ApiError::invalid(names.group, names.kind, metaString(current, "name"),
                                     {api::fieldInvalid("metadata.finalizers", finalizer,
                                                        "no new finalizers can be added if the object is being deleted")});
  }
  if (subresource == Subresource::Main && hooks_.beginUpdate) pending = PendingWrite(hooks_.beginUpdate(current, next));
  validateOrThrow(next, &current);
  if (specDiffers(next, current))
    next["metadata"]["generation"] = current["metadata"].value("generation", std::int64_t{0}) + 1;
  return next;
}

json ResourceStore::commitUpdate(const storage::KeyValue& currentKv, const json& current, const json& next,
                                 bool dryRun) {
  if (next == current) return current;  // a no-op write keeps the resourceVersion
  // The last finalizer of an object being deleted is gone: the deletion completes now.
  if (isBeingDeleted(next) && deletionMayComplete(finalizersOf(next))) {
    if (dryRun) return next;
    storage_.remove(currentKv.key, currentKv.modRevision);
    return next;
  }
  if (dryRun) return next;
  const storage::KeyValue stored = storage_.update(currentKv.key, encode(next), currentKv.modRevision);
  return withResourceVersion(next, stored.modRevision);  // not parsed back from the bytes
}

std::pair<storage::KeyValue, json> ResourceStore::readCurrent(const std::string& namespaceName, const std::string& name) {
  auto kv = storage_.get(key(namespaceName, name));
  if (!kv) throw api::ApiError::notFound(type_->names().groupResource(), name);
  json object = decode(*kv);
  return {std::move(*kv), std::move(object)};
}

std::optional<std::pair<storage::KeyValue, json>> ResourceStore::readCachedGuess(const std::string& namespaceName,
                                                                                   const std::string& name) {
  auto kv = storage_.cachedGuess(key(namespaceName, name));
  if (!kv) return std::nullopt;
  json object = StoredObject(*type_, *kv).object();
  return std::pair{std::move(*kv), std::move(object)};
}

// The first try starts from the watch cache's copy when there is one, as kube-apiserver's
// GuaranteedUpdate does with its cachedExistingObject: the write is conditional on that copy's
// revision, so a copy behind the store costs a try from the store, never a lost write. Whatever
// short of a write the copy leads to (a refusal, a no-op; a dry run never starts from it) is
// decided again from the store.
json ResourceStore::update(const std::string& namespaceName, const std::string& name, const Transform& transform,
                           Subresource subresource, bool dryRun) {
  const auto& names = type_->names();
  bool mayGuess = !dryRun;
  for (int conflicts = 0;;) {
    try {
      std::optional<std::pair<storage::KeyValue, json>> read;
      if (std::exchange(mayGuess, false)) read = readCachedGuess(namespaceName, name);
      const bool guessed = read.has_value();
      if (!guessed) read = readCurrent(namespaceName, name);
      const auto& [currentKv, current] = *read;
      json next;
      PendingWrite pending;
      try {
        next = prepareUpdate(current, transform(current), subresource, pending);
      } catch (const api::ApiError&) {
        if (guessed) continue;
        throw;
      }
      if (guessed && next == current) continue;
      json written = commitUpdate(currentKv, current, next, dryRun);
      pending.finish(!dryRun);
      return written;
    } catch (const StorageError& error) {
      // Someone wrote between our read and our write; a proposal without a resourceVersion is
      // recomputed from the new state (kube-apiserver's GuaranteedUpdate), up to a bound.
      const bool retryable = error.code() == StorageError::Code::Conflict ||
                             error.code() == StorageError::Code::NotFound;
      if (!retryable) throwUnavailable(error);
      if (++conflicts >= kUpdateAttempts) throw api::ApiError::staleResourceVersion(names.groupResource(), name);
    }
  }
}

DeleteResult ResourceStore::remove(const std::string& namespaceName, const std::string& name,
                                   const DeleteOptions& options) {
  const auto& names = type_->names();
  for (int attempt = 0;; ++attempt) {
    try {
      const auto [currentKv, current] = readCurrent(namespaceName, name);
      if (options.preconditionUid && *options.preconditionUid != metaString(current, "uid"))
        throw api::ApiError::conflict(names.groupResource(), name,
                                      "Precondition failed: UID in precondition: " + *options.preconditionUid +
                                          ", UID in object meta: " + metaString(current, "uid"));
      if (options.preconditionResourceVersion &&
          *options.preconditionResourceVersion != metaString(current, "resourceVersion"))
        throw api::ApiError::conflict(names.groupResource(), name,
                                      "Precondition failed: ResourceVersion in precondition: " +
                                          *options.preconditionResourceVersion + ", ResourceVersion in object meta: " +
                                          metaString(current, "resourceVersion"));

      auto finalizers = finalizersOf(current);
      const auto orphan = std::find(finalizers.begin(), finalizers.end(), kOrphanFinalizer);
      if (options.propagationPolicy == PropagationPolicy::Orphan && orphan == finalizers.end())
        finalizers.push_back(kOrphanFinalizer);
      else if (options.propagationPolicy && *options.propagationPolicy != PropagationPolicy::Orphan &&
               orphan != finalizers.end())
        finalizers.erase(orphan);

      if (deletionMayComplete(finalizers)) {
        if (!options.dryRun) storage_.remove(currentKv.key, currentKv.modRevision);
        return {current, true};
      }
      // Finalizers pending: mark the object and leave it, visible, until they are all removed.
      json next = current;
      setFinalizers(next, finalizers);
      if (!isBeingDeleted(next)) {
        next["metadata"]["deletionTimestamp"] = rfc3339Now(api::Clock::now());
        next["metadata"]["deletionGracePeriodSeconds"] = 0;
        next["metadata"]["generation"] = current["metadata"].value("generation", std::int64_t{0}) + 1;
      }
      return {commitUpdate(currentKv, current, next, options.dryRun), false};
    } catch (const StorageError& error) {
      const bool retryable = error.code() == StorageError::Code::Conflict;
      if (!retryable && error.code() == StorageError::Code::NotFound)
        throw api::ApiError::notFound(names.groupResource(), name);
      if (!retryable) throwUnavailable(error);
      if (attempt + 1 >= kUpdateAttempts) throw api::ApiError::staleResourceVersion(names.groupResource(), name);
    }
  }
}

std::unique_ptr<storage::Watch> ResourceStore::watch(const std::string& namespaceName,
                                                     storage::Revision afterRevision,
                                                     std::function<void(const StoreWatchEvent&)> onEvent) {
  try {
    return storage_.watch(keyPrefix(namespaceName), afterRevision,
                          [this, onEvent = std::move(onEvent)](const storage::WatchEvent& event) {
                            WatchEventType type = WatchEventType::Deleted;
                            if (event.type == storage::WatchEvent::Type::Put)
                              type = event.created() ? WatchEventType::Added : WatchEventType::Modified;
                            StoreWatchEvent out{type, StoredObject(*type_, event.kv), std::nullopt};
                            if (event.previous) out.previous.emplace(*type_, *event.previous);
                            onEvent(out);
                          });
  } catch (const StorageError& error) {
    if (error.code() == StorageError::Code::Expired)
      throw api::ApiError::expired("too old resource version: " + std::to_string(afterRevision) + " (" +
                                   std::to_string(storage_.oldestRevision()) + ")");
    throwUnavailable(error);
  }
}

}  // namespace fedhpa::apiserver
