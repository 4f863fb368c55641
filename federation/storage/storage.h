// The storage behind the API server: a revisioned key-value store in the shape of etcd v3, so that
// an etcd backend sits next to the SQLite one without anything above this interface changing.
// Every write gets the next revision of the whole store; revisions are strictly increasing and the
// API server uses an object's modRevision as its metadata.resourceVersion.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedhpa::storage {

using Revision = std::int64_t;

// What readers derive from one stored value (its decoded object, its bytes in each served
// version), each made once, by the first reader that needs it, and then shared by every reader of
// that same value: kube-apiserver's cacher keeps objects decoded and events serialized once per
// encoding in the same way. A form too big to keep (the decoded object: a JSON tree is about four
// times the bytes it came from, where kube's decoded Go struct is about their size) is shared
// only while some reader holds it (getWhileHeld). Storage never looks inside: the forms are its callers' types, named by
// its callers (one name, one type). Everything kept is const, so no reader can change what another
// reads; a new value of the key gets new forms.
class DerivedForms {
 public:
  template <class T, class Make>
  std::shared_ptr<const T> get(const std::string& name, Make&& make) {
    {
      std::lock_guard lock(mutex_);
      for (const auto& [formName, form] : forms_)
        if (formName == name) return std::static_pointer_cast<const T>(form);
    }
    // Made outside the lock: two readers racing both make it, the first one kept is what both use.
    std::shared_ptr<const T> made = std::make_shared<const T>(make());
    std::lock_guard lock(mutex_);
    for (const auto& [formName, form] : forms_)
      if (formName == name) return std::static_pointer_cast<const T>(form);
    forms_.emplace_back(name, made);
    return made;
  }

  // The same for a form too big to keep for the value's whole life (a decoded object: several
  // times its bytes): shared by the readers that hold it at the same time, freed when the last of
  // them lets it go, and made again by a reader that comes after that.
  template <class T, class Make>
  std::shared_ptr<const T> getWhileHeld(const std::string& name, Make&& make) {
    {
      std::lock_guard lock(mutex_);
      if (auto held = findHeld<T>(name)) return held;
    }
    std::shared_ptr<const T> made = std::make_shared<const T>(make());
    std::lock_guard lock(mutex_);
    if (auto held = findHeld<T>(name)) return held;
    for (auto& [formName, form] : held_)
      if (formName == name) {
        form = made;  // the expired one's slot
        return made;
      }
    held_.emplace_back(name, made);
    return made;
  }

  // The form if some reader made it already; nullptr otherwise (nothing is made).
  template <class T>
  std::shared_ptr<const T> find(const std::string& name) {
    std::lock_guard lock(mutex_);
    for (const auto& [formName, form] : forms_)
      if (formName == name) return std::static_pointer_cast<const T>(form);
    return nullptr;
  }

 private:
  template <class T>
  std::shared_ptr<const T> findHeld(const std::string& name) {  // under mutex_
    for (const auto& [formName, form] : held_)
      if (formName == name) return std::static_pointer_cast<const T>(form.lock());
    return nullptr;
  }

  std::mutex mutex_;
  std::vector<std::pair<std::string, std::shared_ptr<const void>>> forms_;  // a few: a linear search
  std::vector<std::pair<std::string, std::weak_ptr<const void>>> held_;     // getWhileHeld's
};

struct KeyValue {
  std::string key;
  std::string value;
  Revision createRevision = 0;
  Revision modRevision = 0;  // for a deleted key in a watch event: the revision of the delete
  // Set by the watch cache, shared by every copy of this value it hands out; unset from a backend
  // (each reader then derives its own).
  std::shared_ptr<DerivedForms> derived = nullptr;
};

// A value as a list hands it out: immutable and shared, so that the watch cache answers a list
// with the very values it holds (a pointer each) instead of copying every key and value out.
using SharedKeyValue = std::shared_ptr<const KeyValue>;

class StorageError : public std::runtime_error {
 public:
  enum class Code {
    NotFound,       // update/remove of a missing key
    AlreadyExists,  // create of a present key
    Conflict,       // update/remove with a revision that is not the key's modRevision
    Expired,        // list or watch at a revision older than the kept history
    Unavailable,    // the backend cannot be reached or failed (I/O error, disk full)
  };
  StorageError(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Code code() const { return code_; }

 private:
  Code code_;
};

struct ListOptions {
  std::string prefix;                     // keys starting with this, in key order
  std::optional<Revision> atRevision;     // the store as it was at this revision; default: now
  std::optional<std::size_t> limit;       // at most this many items
  std::string startAfterKey;              // continue: only keys > this one
};

struct ListResult {
  std::vector<SharedKeyValue> items;
  Revision revision = 0;                  // the revision the list was read at
  bool more = false;                      // items remain after the last one returned
};

struct WatchEvent {
  enum class Type { Put, Delete };
  Type type = Type::Put;
  KeyValue kv;                            // Put: the new value; Delete: the last value, modRevision = delete's
  std::optional<KeyValue> previous;       // the value before this event, when there was one
  bool created() const { return type == Type::Put && kv.createRevision == kv.modRevision; }
};

// An open watch. Destroying it cancels it: no callback runs after the destructor returns.
class Watch {
 public:
  virtual ~Watch() = default;
  // True once the watch can deliver nothing more: a networked backend lost its stream and the
  // history it would resume from is compacted. The watcher lists again, as after Expired.
  virtual bool ended() const { return false; }
};

using WatchCallback = std::function<void(const WatchEvent&)>;

// Runs a watch's callback on a backend's delivery thread: false, with the error logged under
// `watch`'s name, when it threw. Let out of that thread, the exception would end the process.
bool deliverToWatch(const WatchCallback& onEvent, const WatchEvent& event, const std::string& watch);

// The first key after every key that starts with prefix; empty when there is none (prefix empty
// or all 0xff bytes).
std::string prefixEnd(std::string prefix);

class Storage {
 public:
  virtual ~Storage() = default;

  virtual std::optional<KeyValue> get(const std::string& key) = 0;
  // The key's value as a cache in front of the backend holds it, offered only while that cache
  // shows every write of this key made through it: a first guess for a write conditional on the value's
  // modRevision (kube-apiserver's GuaranteedUpdate starts from the watch cache's object). It may
  // still be behind the backend (another server's write), so it never answers a read. nullopt:
  // no guess, read the backend.
  virtual std::optional<KeyValue> cachedGuess(const std::string& key) {
    (void)key;
    return std::nullopt;
  }
  virtual ListResult list(const ListOptions& options) = 0;  // Expired if atRevision is compacted away
  // The list as a cache in front of the backend answers it at once, from memory: without waiting
  // for the cache to catch up and without reading the backend, so that a caller may answer it on
  // a thread that must not block. nullopt: only list() can answer it.
  virtual std::optional<ListResult> listFromMemory(const ListOptions& options) {
    (void)options;
    return std::nullopt;
  }

  // Each returns the stored KeyValue with its new modRevision, once the write is durable.
  virtual KeyValue create(const std::string& key, const std::string& value) = 0;
  virtual KeyValue update(const std::string& key, const std::string& value, Revision expectedModRevision) = 0;
  // Returns the deleted KeyValue with modRevision set to the delete's revision.
  virtual KeyValue remove(const std::string& key, Revision expectedModRevision) = 0;

  // Calls onEvent, in revision order, for every change to keys under prefix with revision >
  // afterRevision: first the kept history, then live changes. Throws Expired when afterRevision is
  // older than the kept history. Callbacks run on a thread of the backend's; they must be quick.
  // A callback that throws ends its own watch (no more events, ended() true) and nothing else:
  // the exception is logged, never let out of the delivery thread, and every other watch goes on.
  virtual std::unique_ptr<Watch> watch(const std::string& prefix, Revision afterRevision, WatchCallback onEvent) = 0;

  virtual Revision currentRevision() = 0;
  // The oldest revision a watch or list can still start from (history kept for resumption).
  virtual Revision oldestRevision() = 0;
};

}  // namespace fedhpa::storage
