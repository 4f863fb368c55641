// What this controller last wrote to each member, kept until the member's informer has caught up
// with it (kube's ControllerExpectations, in the small). A reconcile that follows its own write
// must plan from that write: planned from a cache that still shows a member's old, lower max, it
// would hand the difference to another member as well, and the local maxima would add up to more
// than the federated max. The answer to a write is the member's state as of that write, so it
// stands in for the cache until the cache shows the same resourceVersion or a later one.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clusters/client/kube_client.h"
#include "federation/common/time_source.h"

namespace fedhpa::controller {

// Whether resourceVersion `a` is at least as new as `b`. Kubernetes calls resourceVersions opaque,
// but every API server fedhpa meets (kube-apiserver on etcd, fedhpa's own) hands out integers
// that grow; anything else is compared for equality only.
bool resourceVersionAtLeast(const std::string& a, const std::string& b);

class WriteExpectations {
 public:
  // `missed` gets the key of a watch event held back during a write (cacheShows) that turned out
  // not to echo it; without one, nothing is held back.
  explicit WriteExpectations(std::function<void(const std::string& key)> missed = {});

  // Which of a member's memberships a write went out in: forgetMember begins a new one, and the
  // outcome of a write sent before it is not recorded (the member it went to has left, and one
  // that joins again under that name is planned from its cache).
  using Membership = std::uint64_t;
  // A create or an update of the object is going out. Until its answer is in (written, or
  // notWritten when it failed), a watch event of the object may be its echo, arriving before the
  // answer that says so: cacheShows holds such events back, and the answer decides. Each call
  // is paired with one of written() or notWritten(), which get the membership it returns.
  Membership writing(const std::string& member, const std::string& key);
  // The write that writing() announced failed: what it held back is handed to `missed`.
  void notWritten(const std::string& member, const std::string& key, std::optional<Membership> sentIn = std::nullopt);
  // The member answered a create or an update with `object`; `basedOn` is the resourceVersion the
  // write was conditional on, when the caller wants to build on it (ownWriteOver). `sentIn`, here
  // and below: what writing() returned (nullopt: not checked, as for a member read, not written).
  void written(const std::string& member, const std::string& key, const clusters::json& object, const std::string& basedOn = "",
               std::optional<Membership> sentIn = std::nullopt);
  // The member deleted the object; `lastVersion` is the resourceVersion it had.
  void deleted(const std::string& member, const std::string& key, const std::string& lastVersion);
  // The member's object as this controller knows it: the cache's, unless the cache has not yet
  // seen this controller's last write to it (nullopt: there is none). A cache that has shown that
  // write (its watch event came before the write's answer) and shows no copy now has seen the
  // copy go since: the cache is right. `readCache` returns the cache's copy; it is called under
  // this object's lock, once the expectation is in hand. An informer stores an event before it
  // calls its handlers, so the echo that dropped an expectation (cacheShows) is in the cache read
  // after it. A copy read before the lookup could predate an echo that dropped the expectation in
  // between, and a stale, lower max would be planned from.
  std::optional<clusters::json> current(const std::string& member, const std::string& key,
                                        const std::function<std::optional<clusters::json>()>& readCache);
  // A write that could raise what the member holds (a create, a raise) went out and was not
  // answered: the member may have applied it, or may apply it yet. `baseVersion` is the version
  // it was conditional on; for a create, the version of any copy the cache still showed ("" none).
  void unanswered(const std::string& member, const std::string& key, const std::string& baseVersion, MonotonicTime at,
                  std::optional<Membership> sentIn = std::nullopt);
  // Where such a write stands. Settled (and forgotten) once the cache shows fedhpa's copy at a
  // later version than the write's base: the member has acted, on it or on something that makes
  // it fail. Due once the member has kept answering for `window` without the cache showing that:
  // no request is held longer, so one read of the member tells whether it was applied (the cache
  // may only be behind), and `settled` closes it.
  enum class Unanswered { None, Pending, Due };
  Unanswered unansweredWrite(const std::string& member, const std::string& key, const std::optional<clusters::json>& cached,
                             MonotonicTime now, bool answering, std::chrono::seconds window);
  void settled(const std::string& member, const std::string& key);
  // This controller's last write of the object, when that write was made over `baseVersion`: what
  // the object at `baseVersion` became through this controller alone, and so the base of a later
  // write planned from `baseVersion` too.
  std::optional<clusters::json> ownWriteOver(const std::string& member, const std::string& key, const std::string& baseVersion);
  // The cache now shows the object at `resourceVersion`: an expectation that version meets is
  // dropped. True when it is this controller's last write itself (a watch event that only echoes
  // that write tells the controller nothing it does not know), or when a write of the object is
  // under way (the event is held back: `missed` gets its key if no answer of those writes has
  // that version).
  bool cacheShows(const std::string& member, const std::string& key, const std::string& resourceVersion);
  // The object is gone for good (the federated HPA was deleted): nothing expected of it, from any
  // member or the federation, will be asked for again.
  void forgetKey(const std::string& key);
  // The member left: nothing is expected of it, and writes sent to it before are not recorded
  // when their outcomes come in.
  void forgetMember(const std::string& member);
  std::size_t pending() const;

 private:
  struct Entry {
    std::optional<clusters::json> object;  // nullopt: deleted
    std::string resourceVersion;
    std::string basedOn;
    // The cache showed resourceVersion (or a later one) before the write's answer came: a cache
    // that shows no copy has seen it deleted since, not missed the write.
    bool shown = false;
  };
  struct UnansweredWrite {
    std::string baseVersion;
    MonotonicTime answeringSince;  // reset whenever the member is found not answering
  };
  // The writes of one object under way, and what arrived and was answered meanwhile.
  struct InFlight {
    int writes = 0;
    std::vector<std::string> arrived;   // versions of the watch events held back
    std::vector<std::string> answered;  // versions the writes' answers had
  };
  // One write of the object ended, answered with `version` ("": failed). True when the last one
  // under way ended and an event held back was none of their answers. Called with mutex_ held.
  bool finishWrite(const std::string& member, const std::string& key, const std::string& version);
  // Whether the member has left since a write `sentIn` went out to it. Called with mutex_ held.
  bool leftSince(const std::string& member, std::optional<Membership> sentIn) const;

  std::function<void(const std::string& key)> missed_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, InFlight> inFlight_;  // by (member, key)
  std::map<std::pair<std::string, std::string>, Entry> entries_;  // by (member, key)
  std::map<std::pair<std::string, std::string>, UnansweredWrite> unanswered_;
  std::map<std::string, Membership> memberships_;  // by member: how often it was forgotten
};

}  // namespace fedhpa::controller
