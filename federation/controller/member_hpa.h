// What the HPA controller knows of one member and of the copy of one federated HPA it holds: the
// reconciler's inputs, shared by the pure steps it calls (classification, write phases, status).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "partitioner/types.h"

namespace fedhpa::clusters {
class KubeClient;
class Lister;
}  // namespace fedhpa::clusters

namespace fedhpa::controller {

// How far the controller can trust what it knows of a member.
enum class MemberHealth {
  Healthy,   // Ready, its informer synced, its calls getting through: what the cache says is so
  Unknown,   // NotReady within the grace, not yet synced or probed, or not answering: it keeps
             // whatever it holds, and its share is frozen
  Released,  // NotReady for longer than the grace: its share goes to the others
};

struct Member {
  std::string name;
  std::map<std::string, std::string> labels;
  MemberHealth health = MemberHealth::Unknown;
  std::shared_ptr<clusters::KubeClient> client;         // for writes
  std::shared_ptr<const clusters::Lister> hpas;         // the member's fedhpa-managed HPAs
  std::shared_ptr<const clusters::Lister> deployments;  // the member's fedhpa-managed Deployments
  // The member's fedhpa-managed copies of the other propagated objects, by resource ("configmaps").
  std::map<std::string, std::shared_ptr<const clusters::Lister>> copies = {};
};

// What reconcile knows of one member's copy.
struct MemberHpa {
  Member member;
  std::optional<nlohmann::json> hpa;          // the local HPA fedhpa manages, as last known
  std::optional<partitioner::Limits> limits;  // what the member may hold (of hpa, or recorded)
  std::string cacheVersion;                   // of fedhpa's copy in the cache ("": it shows none)
  bool foreign = false;                       // an HPA of that name fedhpa did not create
  // The member may hold more than the cache shows: a create was refused for a name the cache
  // does not show, or a create or raise went unanswered. Nothing is raised until that settles.
  bool unseen = false;
};

}  // namespace fedhpa::controller
