// The fixture of HpaReconciler's tests: in-memory APIs, caches the test refreshes when it
// chooses, a fake clock, and members whose every write is observed against the safety invariant
// (no write raises the sum of the local maxima above the federated max). A write can also be made
// to lose its answer or to be applied late, for the property over random interleavings.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "federation/controller/cache_transforms.h"
#include "federation/controller/deployment_reconciler.h"
#include "federation/controller/hpa_reconciler.h"
#include "test/federation/common/fake_time_source.h"
#include "test/federation/controller/fake_api.h"

namespace fedhpa::controller::testing {

inline constexpr const char* kKey = "default/php-apache";

inline json federatedHpa(long long minReplicas, long long maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "php-apache"}, {"namespace", "default"}, {"uid", "fed-uid"}, {"generation", 1}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "php-apache"}}},
            {"minReplicas", minReplicas},
            {"maxReplicas", maxReplicas}}}};
}

// Every write to a member goes through here: it holds one lock across the write, so it can tell
// what the write did to the sums of the local maxima and minima over the members that still count
// (those not released). It records any write that raised the maxima above the federated max
// (`violations`), and any that lowered the minima below the federated min (`minViolations`).
struct Observer {
  std::mutex mutex;
  std::function<long long()> federatedMax;
  std::function<long long()> federatedMin;
  // Of a spec field ("maxReplicas", "minReplicas"), over the members that count now, or over
  // those that counted when a held write was sent (a released member that comes back later is not
  // that write's doing).
  std::function<long long(const char* field, const std::optional<std::set<std::string>>&)> sumOfCounted;
  std::function<std::set<std::string>()> countedMembers;
  std::vector<std::string> violations;
  std::vector<std::string> minViolations;
  int writes = 0;
};

// What counted when a write was sent: the federated max and the members not released.
struct Counted {
  long long federatedMax = 0;
  std::optional<std::set<std::string>> members;
};

// What becomes of one write sent to a member: answered, applied with its answer lost (a timeout
// after the member acted), or held by the member and applied later, its sender told of a timeout.
enum class Fate { Answered, AnswerLost, AppliedLater };

class ObservedClient : public clusters::KubeClient {
 public:
  ObservedClient(FakeApi& api, Observer& observer, std::string member, TimeSource& clock)
      : api_(api), observer_(observer), member_(std::move(member)), clock_(clock) {}
  std::function<Fate()> fateOfNextWrite = [] { return Fate::Answered; };

  json get(const clusters::Resource& r, const std::string& ns, const std::string& name) override { return api_.get(r, ns, name); }
  json list(const clusters::Resource& r, const std::string& ns, const clusters::ListOptions& o) override { return api_.list(r, ns, o); }
  json create(const clusters::Resource& r, const std::string& ns, const json& object) override {
    return observed("create", [=, this] { return api_.create(r, ns, object); });
  }
  json update(const clusters::Resource& r, const json& object, const std::string& sub) override {
    return observed("update", [=, this] { return api_.update(r, object, sub); });
  }
  json mergePatch(const clusters::Resource& r, const std::string& ns, const std::string& name, const json& patch,
                  const std::string& sub) override {
    return observed("patch", [=, this] { return api_.mergePatch(r, ns, name, patch, sub); });
  }
  json remove(const clusters::Resource& r, const std::string& ns, const std::string& name, const std::string& policy,
              const std::string& version) override {
    return observed("delete", [=, this] { return api_.remove(r, ns, name, policy, version); });
  }
  std::unique_ptr<clusters::WatchStream> watch(const clusters::Resource& r, const std::string& ns, const std::string& v,
                                               const clusters::ListOptions& o) override {
    return api_.watch(r, ns, v, o);
  }
  int probe(const std::string& path) override { return api_.probe(path); }

  // The writes the member holds: applied now (each as any write is, observed), or dropped.
  void applyHeldWrites() {
    auto held = std::move(held_);
    held_.clear();
    for (auto& write : held) try {
        observed(write.verb, write.run, Fate::Answered, write.whenSent);
      } catch (const clusters::ClientError&) {  // a 409 or an AlreadyExists nobody hears of
      }
  }
  void dropHeldWrites() { held_.clear(); }
  // How long the oldest write it holds has been held.
  std::chrono::nanoseconds heldSince(MonotonicTime now) const { return held_.empty() ? std::chrono::nanoseconds(0) : now - heldAt_; }

 private:
  // A held write is judged by what counted when it was sent: a user's later edit that lowers the
  // federated max, or a released member coming back, cannot call back what is on its way.
  json observed(const std::string& verb, const std::function<json()>& write, std::optional<Fate> fate = std::nullopt,
                const Counted& whenSent = {}) {
    if (!fate) fate = fateOfNextWrite();
    if (*fate == Fate::AppliedLater) {
      if (held_.empty()) heldAt_ = clock_.monotonicTime();
      std::lock_guard lock(observer_.mutex);
      held_.push_back({verb, write, {observer_.federatedMax(), observer_.countedMembers()}});
      throw clusters::ClientError(clusters::ClientError::Kind::ConnectionFailure, 0, "", "timed out (the member applies it later)");
    }
    std::lock_guard lock(observer_.mutex);
    const long long before = observer_.sumOfCounted("maxReplicas", whenSent.members);
    const long long minimaBefore = observer_.sumOfCounted("minReplicas", whenSent.members);
    json result = write();
    ++observer_.writes;
    const long long after = observer_.sumOfCounted("maxReplicas", whenSent.members);
    const long long minimaAfter = observer_.sumOfCounted("minReplicas", whenSent.members);
    if (minimaAfter < minimaBefore && minimaAfter < observer_.federatedMin())
      observer_.minViolations.push_back(verb + " on " + member_ + " lowered the sum of local minima from " +
                                        std::to_string(minimaBefore) + " to " + std::to_string(minimaAfter) +
                                        " < federated min " + std::to_string(observer_.federatedMin()));
    if (after > before && after > std::max(observer_.federatedMax(), whenSent.federatedMax))
      observer_.violations.push_back(verb + " on " + member_ + " raised the sum of local maxima from " +
                                     std::to_string(before) + " to " + std::to_string(after) + " > federated max " +
                                     std::to_string(observer_.federatedMax()));
    if (*fate == Fate::AnswerLost) throw clusters::ClientError(clusters::ClientError::Kind::ConnectionFailure, 0, "", "timed out (applied)");
    return result;
  }
  FakeApi& api_;
  Observer& observer_;
  std::string member_;
  TimeSource& clock_;
  struct HeldWrite {
    std::string verb;
    std::function<json()> run;
    Counted whenSent;
  };
  std::vector<HeldWrite> held_;
  MonotonicTime heldAt_{};
};

struct TestMember {
  std::string name;
  std::shared_ptr<FakeApi> api = std::make_shared<FakeApi>();
  // The controller-manager's transforms: reconcile reads only what its caches keep.
  std::shared_ptr<SnapshotLister> hpas = std::make_shared<SnapshotLister>(*api, kHpas, trimMemberHpa);
  std::shared_ptr<SnapshotLister> deployments = std::make_shared<SnapshotLister>(*api, kDeployments, trimMemberDeployment);
  std::shared_ptr<ObservedClient> client;
  MemberHealth health = MemberHealth::Healthy;
};

class HpaReconcilerTest : public ::testing::Test, public MemberClusters {
 protected:
  void SetUp() override { build(3); }

  void build(int count) {
    members_.clear();
    for (int i = 1; i <= count; ++i) {
      TestMember member;
      member.name = "member" + std::to_string(i);
      member.client = std::make_shared<ObservedClient>(*member.api, observer_, member.name, time_);
      members_.push_back(std::move(member));
    }
    // A user's edit that lowers the max is not fedhpa's to honour before its cache has seen it.
    observer_.federatedMax = [this] {
      return std::max(federatedMax(), federatedHpas_.getSpec("default", "php-apache", "maxReplicas", 0).value_or(0));
    };
    observer_.countedMembers = [this] {
      std::set<std::string> counted;
      for (const auto& member : members_)
        if (member.health != MemberHealth::Released) counted.insert(member.name);
      return counted;
    };
    // A user's edit that raises the min, likewise.
    observer_.federatedMin = [this] {
      const long long now = federation_.peekSpec(kHpas, "default", "php-apache", "minReplicas", 1).value_or(0);
      return std::min(now, federatedHpas_.getSpec("default", "php-apache", "minReplicas", 1).value_or(now));
    };
    observer_.sumOfCounted = [this](const char* field, const std::optional<std::set<std::string>>& over) {
      const auto counted = over ? *over : observer_.countedMembers();
      long long sum = 0;
      for (const auto& member : members_) {
        if (!counted.count(member.name)) continue;
        sum += member.api->peekSpec(kHpas, "default", "php-apache", field, 0).value_or(0);
      }
      return sum;
    };
    restartController();
  }
  void restartController() {
    status_.reset();  // its writes call into the reconciler
    reconciler_.reset();
    events_.reset();
    events_ = std::make_unique<EventRecorder>(federation_, time_);
    status_ = std::make_unique<StatusWriter>(2, [this](const std::string& key) { retried_.push_back(key); });
    reconciler_ = std::make_unique<HpaReconciler>(
        ReconcilerContext{federation_, federatedHpas_, federatedDeployments_, *this, *calls_, time_, metrics_, *events_, *status_,
                          [this](const std::string& key) {
                            std::lock_guard lock(requeuedMutex_);
                            requeued_.push_back(key);
                          }},
        policy());
  }
  // One reconcile of the HPA, and the status write it handed over.
  void reconcile() {
    try {
      reconciler_->reconcile(kKey);
    } catch (...) {
      status_->waitUntilIdle();
      throw;
    }
    status_->waitUntilIdle();
  }
  static partitioner::Policy policy() {
    partitioner::Policy policy;
    policy.scaleForbiddenWindow = std::chrono::seconds(0);
    return policy;
  }

  std::vector<Member> members() override {
    std::vector<Member> out;
    for (const auto& member : members_) {
      // As the manager judges it: a member whose cache has not synced is not Healthy.
      const bool unsynced = member.health == MemberHealth::Healthy && !member.hpas->hasSynced();
      out.push_back({member.name, {}, unsynced ? MemberHealth::Unknown : member.health, member.client, member.hpas,
                     member.deployments});
    }
    return out;
  }

  long long federatedMax() {
    return federation_.peekSpec(kHpas, "default", "php-apache", "maxReplicas", 0).value_or(0);
  }
  void refreshCaches() {
    federatedHpas_.refresh();
    federatedDeployments_.refresh();
    for (auto& member : members_)
      if (member.api->reachable) member.hpas->refresh(), member.deployments->refresh();
  }
  // Reconciles with fresh caches until a reconcile neither fails nor writes anything.
  bool converge() {
    for (int round = 0; round < 20; ++round) {
      time_.advance(std::chrono::seconds(10));  // circuits opened by earlier failures close again
      refreshCaches();
      const int writes = observer_.writes + federation_.writes;
      try {
        reconcile();
      } catch (const clusters::ClientError&) {
        continue;
      }
      if (observer_.writes + federation_.writes == writes) return true;
    }
    return false;
  }
  // Reconciles `rounds` times with fresh caches, whatever each one throws.
  void reconcileRounds(int rounds) {
    for (int round = 0; round < rounds; ++round) {
      refreshCaches();
      try {
        reconcile();
      } catch (const clusters::ClientError&) {
      }
    }
  }
  std::string limits(const TestMember& member) {
    const auto hpa = member.api->peek(kHpas, "default", "php-apache");
    if (!hpa) return "-";
    return std::to_string((*hpa)["spec"].value("minReplicas", 0)) + "/" + std::to_string((*hpa)["spec"].value("maxReplicas", 0));
  }
  std::vector<std::string> allLimits() {
    std::vector<std::string> out;
    for (const auto& member : members_) out.push_back(limits(member));
    return out;
  }
  // The member's own HPA controller reports it wants more than its max.
  void saturate(TestMember& member) {
    member.api->touch(kHpas, "default", "php-apache", [](json& hpa) {
      const long long max = hpa["spec"].value("maxReplicas", 1LL);
      hpa["status"] = {{"currentReplicas", max},
                       {"desiredReplicas", max},
                       {"currentMetrics",
                        json::array({{{"type", "Resource"},
                                      {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", 240}}}}}}})},
                       {"conditions",
                        json::array({{{"type", "ScalingLimited"}, {"status", "True"}, {"reason", "TooManyReplicas"}}})}};
    });
  }
  void idle(TestMember& member) {
    member.api->touch(kHpas, "default", "php-apache", [](json& hpa) {
      const long long min = hpa["spec"].value("minReplicas", 1LL);
      hpa["status"] = {{"currentReplicas", min},
                       {"desiredReplicas", min},
                       {"currentMetrics",
                        json::array({{{"type", "Resource"},
                                      {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", 5}}}}}}})}};
    });
  }

  fedhpa::testing::FakeTimeSource time_;
  FakeApi federation_;
  SnapshotLister federatedHpas_{federation_, kHpas, federationObjectTransform()};
  SnapshotLister federatedDeployments_{federation_, kDeployments, federationObjectTransform()};
  Observer observer_;
  std::vector<TestMember> members_;
  std::unique_ptr<MemberCalls> calls_ = std::make_unique<MemberCalls>(time_);
  ControllerMetrics metrics_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<HpaReconciler> reconciler_;
  std::vector<std::string> retried_;      // keys the status writer sent back
  std::mutex requeuedMutex_;
  std::vector<std::string> requeued_;  // keys of events held back during a write that did not echo it
  // Delivers the HPA's watch event to the reconciler from inside each of its writes to `api`, after
  // the write and before its answer (as a watch can at a round trip of 0); `change` first makes
  // it someone else's change instead. Returns what echoesOwnWrite said of each, in order.
  std::shared_ptr<std::vector<bool>> eventsBeforeAnswers(FakeApi& api, const std::string& source,
                                                          std::function<void(json&)> change = {}) {
    auto echoes = std::make_shared<std::vector<bool>>();
    api.afterWrite = [this, &api, source, change, echoes](const clusters::Resource& resource) {
      if (resource.resource != kHpas.resource) return;
      if (change) api.touch(kHpas, "default", "php-apache", change);
      const auto object = api.peek(kHpas, "default", "php-apache");
      std::lock_guard lock(requeuedMutex_);
      if (object) echoes->push_back(reconciler_->echoesOwnWrite(source, *object));
    };
    return echoes;
  }
  std::unique_ptr<StatusWriter> status_;  // destroyed first: its writes call into the reconciler
};

}  // namespace fedhpa::controller::testing
