// What this controller last wrote to each member, kept until the member's informer has caught up
// with it (kube's ControllerExpectations, in the small). A reconcile that follows its own write
// must plan from that write: planned from a cache that still shows a member's old, lower max, it
// would hand the difference to another member as well, and the local maxima would add up to more
// than the federated max. The answer to a write is the member's state as of that write, so it
// stands in for the cache until the cache shows the same resourceVersion or a later one.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "clusters/client/kube_client.h"

namespace fedhpa::controller {

// Whether resourceVersion `a` is at least as new as `b`. Kubernetes calls resourceVersions opaque,
// but every API server fedhpa meets (kube-apiserver on etcd, fedhpa's own) hands out integers
// that grow; anything else is compared for equality only.
bool resourceVersionAtLeast(const std::string& a, const std::string& b);

class WriteExpectations {
 public:
  // The member answered a create or an update with `object`.
  void written(const std::string& member, const std::string& key, const clusters::json& object);
  // The member deleted the object; `lastVersion` is the resourceVersion it had.
  void deleted(const std::string& member, const std::string& key, const std::string& lastVersion);
  // The member's object as this controller knows it: the cache's, unless the cache has not yet
  // seen this controller's last write to it (nullopt: there is none).
  std::optional<clusters::json> current(const std::string& member, const std::string& key,
                                        const std::optional<clusters::json>& cached);
  void forgetMember(const std::string& member);
  std::size_t pending() const;

 private:
  struct Entry {
    std::optional<clusters::json> object;  // nullopt: deleted
    std::string resourceVersion;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;  // by (member, key)
};

}  // namespace fedhpa::controller
