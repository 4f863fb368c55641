// HpaReconciler over in-memory APIs, caches the test refreshes when it chooses, and a fake clock:
// placement from the caches alone, no writes when nothing changed, frozen shares for members that
// cannot be read, conditional writes, finalization that waits for unreachable members, and the
// safety invariant as a property over random interleavings of failures, stale caches and restarts.
#include "federation/controller/hpa_reconciler.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "federation/controller/deployment_reconciler.h"
#include "test/federation/common/fake_time_source.h"
#include "test/federation/controller/fake_api.h"

namespace fedhpa::controller {
namespace {

using testing::FakeApi;
using testing::SnapshotLister;
using fedhpa::testing::FakeTimeSource;
using clusters::json;

constexpr const char* kKey = "default/php-apache";

json federatedHpa(long long minReplicas, long long maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", "php-apache"}, {"namespace", "default"}, {"uid", "fed-uid"}, {"generation", 1}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "php-apache"}}},
            {"minReplicas", minReplicas},
            {"maxReplicas", maxReplicas}}}};
}

// Every write to a member goes through here: it holds one lock across the write, so it can tell
// what the write did to the sum of the local maxima over the members that still count (those not
// released), and it records any write that raised that sum above the federated max.
struct Observer {
  std::mutex mutex;
  std::function<long long()> federatedMax;
  // Over the members that count now, or over those that counted when a held write was sent (a
  // released member that comes back later is not that write's doing).
  std::function<long long(const std::optional<std::set<std::string>>&)> sumOfCountedMaxima;
  std::function<std::set<std::string>()> countedMembers;
  std::vector<std::string> violations;
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
    const long long before = observer_.sumOfCountedMaxima(whenSent.members);
    json result = write();
    ++observer_.writes;
    const long long after = observer_.sumOfCountedMaxima(whenSent.members);
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
  std::shared_ptr<SnapshotLister> hpas = std::make_shared<SnapshotLister>(*api, kHpas);
  std::shared_ptr<SnapshotLister> deployments = std::make_shared<SnapshotLister>(*api, kDeployments);
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
      const auto cached = federatedHpas_.get("default", "php-apache");
      return std::max(federatedMax(), cached ? (*cached)["spec"].value("maxReplicas", 0LL) : 0LL);
    };
    observer_.countedMembers = [this] {
      std::set<std::string> counted;
      for (const auto& member : members_)
        if (member.health != MemberHealth::Released) counted.insert(member.name);
      return counted;
    };
    observer_.sumOfCountedMaxima = [this](const std::optional<std::set<std::string>>& over) {
      const auto counted = over ? *over : observer_.countedMembers();
      long long sum = 0;
      for (const auto& member : members_) {
        if (!counted.count(member.name)) continue;
        if (const auto hpa = member.api->peek(kHpas, "default", "php-apache")) sum += (*hpa)["spec"].value("maxReplicas", 0LL);
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
    const auto hpa = federation_.peek(kHpas, "default", "php-apache");
    return hpa ? (*hpa)["spec"].value("maxReplicas", 0LL) : 0;
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

  FakeTimeSource time_;
  FakeApi federation_;
  SnapshotLister federatedHpas_{federation_, kHpas};
  SnapshotLister federatedDeployments_{federation_, kDeployments};
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

TEST_F(HpaReconcilerTest, PlacesFromTheCachesWithoutReadingAnyMember) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"1/4", "1/3", "1/3"}));
  for (const auto& member : members_) EXPECT_EQ(member.api->reads, 0) << member.name << " was read live";
  const auto federated = federation_.peek(kHpas, "default", "php-apache");
  EXPECT_EQ((*federated)["metadata"]["finalizers"], json::array({kFederationFinalizer}));
  EXPECT_TRUE((*federated)["metadata"]["annotations"].contains(kClusterStatusAnnotation));
}

// A first placement writes the federated HPA twice: the finalizer, with the breakdown the plan
// leads to, before any member is written, then the status; plus its one Event.
TEST_F(HpaReconcilerTest, AFirstPlacementWritesTheFederatedHpaTwice) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  const int before = federation_.writes;
  reconcile();
  events_.reset();  // flushes the placement's Event
  EXPECT_EQ(federation_.writes - before, 2 + 1);
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"1/4", "1/3", "1/3"}));
  const auto federated = federation_.peek(kHpas, "default", "php-apache");
  EXPECT_EQ((*federated)["metadata"]["finalizers"], json::array({kFederationFinalizer}));
  const json breakdown = json::parse((*federated)["metadata"]["annotations"].value(kClusterStatusAnnotation, "{}"));
  EXPECT_EQ(breakdown["member1"]["max"], 4);
  EXPECT_EQ(breakdown["member3"]["max"], 3);
  EXPECT_TRUE((*federated).contains("status"));
  events_ = std::make_unique<EventRecorder>(federation_, time_);
  restartController();
}

// At a round trip of 0 the watch event of a write mostly comes before the write's answer: it is
// still that write's echo, and brings no second reconcile.
TEST_F(HpaReconcilerTest, TheEchoOfAWriteThatComesBeforeItsAnswerIsAnEcho) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  const auto federationEchoes = eventsBeforeAnswers(federation_, "");
  std::vector<std::shared_ptr<std::vector<bool>>> memberEchoes;
  for (auto& member : members_) memberEchoes.push_back(eventsBeforeAnswers(*member.api, member.name));
  reconcile();
  EXPECT_EQ(*federationEchoes, (std::vector<bool>{true, true})) << "the finalizer, then the status";
  for (const auto& echoes : memberEchoes) EXPECT_EQ(*echoes, std::vector<bool>{true}) << "the create";
  EXPECT_TRUE(requeued_.empty()) << "requeued: " << requeued_.front();
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"1/4", "1/3", "1/3"}));
  restartController();  // posts the placement's Event now: nothing writes to the federation below
  federation_.afterWrite = nullptr;
  for (auto& member : members_) member.api->afterWrite = nullptr;
}

// Someone else's change that comes while a write is under way is held back like an echo, and
// once the answer shows it was not one, its key goes back to the queue: nothing is missed.
TEST_F(HpaReconcilerTest, SomeoneElsesChangeDuringAWriteGoesBackToTheQueue) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  const auto echoes = eventsBeforeAnswers(*members_[1].api, "member2", [](json& hpa) { hpa["metadata"]["labels"]["team"] = "web"; });
  reconcile();
  EXPECT_EQ(*echoes, std::vector<bool>{true}) << "held back while the create was under way";
  EXPECT_EQ(requeued_, std::vector<std::string>{kKey});
  members_[1].api->afterWrite = nullptr;
  refreshCaches();
  EXPECT_NO_THROW(reconciler_->reconcile(kKey, /*unlessUnchanged=*/true));
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"1/4", "1/3", "1/3"}));
}

TEST_F(HpaReconcilerTest, AReconcileWithNothingToChangeWritesNothing) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  restartController();  // posts the placement's Event now, so that no write arrives late below
  refreshCaches();
  const int memberWrites = observer_.writes, federationWrites = federation_.writes;
  for (int i = 0; i < 3; ++i) reconcile();
  EXPECT_EQ(observer_.writes, memberWrites) << "members hold the defaulted spec; it must compare equal";
  EXPECT_EQ(federation_.writes, federationWrites);
}

// The status goes out off the reconcile, over the version the finalizer write returned: a
// reconcile whose federation cache has not seen its own writes yet plans from them, instead of
// writing the finalizer again over a stale version (409).
TEST_F(HpaReconcilerTest, ItsOwnFederationWritesStandInForAStaleCache) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  reconcile();
  for (auto& member : members_) member.hpas->refresh();  // the federation cache stays as it was
  saturate(members_[0]);
  members_[0].hpas->refresh();
  EXPECT_NO_THROW(reconcile());
  EXPECT_TRUE(retried_.empty()) << "status write sent back: " << retried_.front();
  const auto federated = federation_.peek(kHpas, "default", "php-apache");
  EXPECT_EQ((*federated)["status"].value("currentReplicas", 0), 4) << "member1 saturated at its max 4";
  EXPECT_EQ((*federated)["metadata"]["finalizers"], json::array({kFederationFinalizer}));
}

// A key an event brought back is skipped only when nothing it plans from changed: a change on a
// member is acted on, and so is whatever a failed reconcile left undone.
TEST_F(HpaReconcilerTest, UnlessUnchangedSkipsOnlyWhatItAlreadyDid) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  members_[1].api->reachable = false;  // Healthy as far as the cache knows: its write fails
  EXPECT_THROW(reconcile(), clusters::ClientError);
  members_[1].api->reachable = true;
  time_.advance(std::chrono::seconds(10));  // the circuit closes again
  EXPECT_NO_THROW(reconciler_->reconcile(kKey, /*unlessUnchanged=*/true));
  status_->waitUntilIdle();
  EXPECT_EQ(limits(members_[1]), "1/3") << "the failed write was skipped as unchanged";
  refreshCaches();  // the caches show exactly this controller's writes
  const int writes = observer_.writes + federation_.writes;
  reconciler_->reconcile(kKey, true);
  status_->waitUntilIdle();
  EXPECT_EQ(observer_.writes + federation_.writes, writes);
  saturate(members_[0]);
  idle(members_[1]);
  idle(members_[2]);
  refreshCaches();
  reconciler_->reconcile(kKey, true);
  status_->waitUntilIdle();
  EXPECT_GT(std::stoi(limits(members_[0]).substr(2)), 4) << "member1's saturation was skipped as unchanged";
}

TEST_F(HpaReconcilerTest, SaturationMovesMaxFromIdleMembersLoweringsFirst) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  saturate(members_[0]);
  idle(members_[1]);
  idle(members_[2]);
  ASSERT_TRUE(converge());
  const auto now = allLimits();
  EXPECT_GT(std::stoi(now[0].substr(2)), 4) << now[0];
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
}

TEST_F(HpaReconcilerTest, AnUnknownMemberKeepsItsShareFrozen) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  members_[1].health = MemberHealth::Unknown;  // NotReady, within the grace
  members_[1].api->reachable = false;
  saturate(members_[0]);
  idle(members_[2]);
  ASSERT_TRUE(converge());
  EXPECT_EQ(limits(members_[1]), "1/3") << "nobody may write to a member it cannot read";
  const auto now = allLimits();
  EXPECT_EQ(std::stoi(now[0].substr(2)) + std::stoi(now[2].substr(2)), 7) << "10 less the frozen 3";
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
}

TEST_F(HpaReconcilerTest, AReleasedMembersShareGoesToTheOthers) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  members_[2].api->reachable = false;
  members_[2].health = MemberHealth::Released;  // NotReady past the grace
  ASSERT_TRUE(converge());
  const auto now = allLimits();
  EXPECT_EQ(std::stoi(now[0].substr(2)) + std::stoi(now[1].substr(2)), 10);
}

TEST_F(HpaReconcilerTest, AMemberNeverReadSinceStartBlocksRaisesButNotLowerings) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  // A restart with member3 unreachable: its cache never syncs; the federated max goes down, then up.
  members_[2].api->reachable = false;
  members_[2].health = MemberHealth::Unknown;
  members_[2].hpas->forget();
  restartController();
  federation_.touch(kHpas, "default", "php-apache", [](json& hpa) { hpa["spec"]["maxReplicas"] = 6; });
  reconcileRounds(3);
  EXPECT_EQ(limits(members_[2]), "1/3");
  const auto lowered = allLimits();
  EXPECT_LE(std::stoi(lowered[0].substr(2)) + std::stoi(lowered[1].substr(2)), 3);
  federation_.touch(kHpas, "default", "php-apache", [](json& hpa) { hpa["spec"]["maxReplicas"] = 20; });
  refreshCaches();
  EXPECT_THROW(reconcile(), clusters::ClientError) << "the raise must wait for member3";
  EXPECT_EQ(allLimits(), lowered);
  members_[2].api->reachable = true;
  members_[2].health = MemberHealth::Healthy;
  ASSERT_TRUE(converge());
  const auto raised = allLimits();
  EXPECT_EQ(std::stoi(raised[0].substr(2)) + std::stoi(raised[1].substr(2)) + std::stoi(raised[2].substr(2)), 20);
}

TEST_F(HpaReconcilerTest, AStaleCacheGetsAConflictNotAnOverwrite) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  saturate(members_[0]);  // bumps member1's resourceVersion behind the cache's back
  refreshCaches();
  idle(members_[1]);      // member2 changes after the cache was refreshed
  EXPECT_THROW(reconcile(), clusters::ClientError);
  ASSERT_TRUE(converge());
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
}

// A copy of fedhpa's that the member holds but neither the cache nor the controller's memory shows
// (a create whose watch event has not arrived, its expectation gone): the create is refused with
// AlreadyExists. That copy holds limits nobody knows, so nothing is raised until the cache shows it;
// it is not taken for someone else's HPA, whose share would go to the other members.
TEST_F(HpaReconcilerTest, ACreateRefusedForACopyTheCacheDoesNotShowRaisesNothing) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  // Member3 is lowered and the others raised by hand, and member1's cache loses its copy.
  members_[0].api->touch(kHpas, "default", "php-apache", [](json& hpa) { hpa["spec"]["maxReplicas"] = 6; });
  members_[2].api->touch(kHpas, "default", "php-apache", [](json& hpa) { hpa["spec"]["maxReplicas"] = 1; });
  members_[1].api->touch(kHpas, "default", "php-apache", [](json& hpa) { hpa["spec"]["maxReplicas"] = 3; });
  restartController();  // no expectations: only the caches speak
  federatedHpas_.refresh();
  members_[1].hpas->refresh();
  members_[2].hpas->refresh();
  members_[0].hpas->hide("default", "php-apache");  // synced, but without member1's copy
  for (int round = 0; round < 4; ++round) {
    time_.advance(std::chrono::seconds(1));
    federatedHpas_.refresh();
    members_[1].hpas->refresh();
    members_[2].hpas->refresh();
    EXPECT_THROW(reconciler_->reconcile(kKey), clusters::ClientError);
  }
  EXPECT_EQ(limits(members_[0]), "1/6") << "the refused create wrote nothing";
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
  EXPECT_LE(std::stoi(limits(members_[1]).substr(2)) + std::stoi(limits(members_[2]).substr(2)), 4)
      << "nothing raised while member1 may hold anything";
  ASSERT_TRUE(converge());  // member1's cache shows its copy again: it is planned for, not foreign
  const auto now = allLimits();
  EXPECT_EQ(std::stoi(now[0].substr(2)) + std::stoi(now[1].substr(2)) + std::stoi(now[2].substr(2)), 10);
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
}

TEST_F(HpaReconcilerTest, DeletionKeepsTheFinalizerWhileAMemberWithACopyIsUnreachable) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  members_[1].api->reachable = false;
  members_[1].health = MemberHealth::Released;  // even past the grace: it still holds a copy
  federation_.remove(kHpas, "default", "php-apache", "", "");
  refreshCaches();
  EXPECT_THROW(reconcile(), clusters::ClientError);
  EXPECT_EQ(limits(members_[0]), "-");
  EXPECT_EQ(limits(members_[2]), "-");
  EXPECT_TRUE(federation_.peek(kHpas, "default", "php-apache")) << "the finalizer must stay";
  members_[1].api->reachable = true;
  members_[1].health = MemberHealth::Healthy;
  ASSERT_TRUE(converge());
  EXPECT_EQ(limits(members_[1]), "-");
  EXPECT_FALSE(federation_.peek(kHpas, "default", "php-apache")) << "released once every copy is gone";
}

TEST_F(HpaReconcilerTest, PlacementIsOneEventNotOnePerMember) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  events_.reset();  // flushes
  const auto events = federation_.all({"", "v1", "events", true});
  int rebalanced = 0;
  for (const auto& [key, event] : events) rebalanced += event.value("reason", "") == "Rebalanced";
  EXPECT_EQ(rebalanced, 1);
  events_ = std::make_unique<EventRecorder>(federation_, time_);
}

// A Rebalanced Event tells what the members hold: when a lowering fails, the raises it would have
// made room for wait, and the Event names only the lowering that went through.
TEST_F(HpaReconcilerTest, TheEventNamesOnlyTheMovesTheMembersGot) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  saturate(members_[0]);
  idle(members_[1]);
  idle(members_[2]);
  refreshCaches();
  const auto rebalanced = [&] {
    restartController();  // flushes the Events recorded so far (the reconciler holds the recorder)
    std::set<std::string> messages;
    for (const auto& [key, event] : federation_.all({"", "v1", "events", true}))
      if (event.value("reason", "") == "Rebalanced") messages.insert(event.value("message", ""));
    return messages;
  };
  const auto before = rebalanced();
  members_[1].api->reachable = false;  // Healthy as far as the cache knows: its lowering fails
  EXPECT_THROW(reconcile(), clusters::ClientError);
  EXPECT_EQ(limits(members_[0]), "1/4") << "member1's raise waits for member2's lowering";
  std::vector<std::string> added;
  for (const auto& message : rebalanced())
    if (!before.count(message)) added.push_back(message);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_NE(added[0].find("member3 now"), std::string::npos) << added[0];
  EXPECT_EQ(added[0].find("member1 now"), std::string::npos) << added[0];
  EXPECT_EQ(added[0].find("member2 now"), std::string::npos) << added[0];
}

// A member that leaves before its cache showed fedhpa's writes, and joins again without the copy:
// what the controller expected of it goes with it, and the copy is placed again at once.
TEST_F(HpaReconcilerTest, AMemberThatLeftIsPlannedFromItsCacheWhenItComesBack) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  reconcile();  // the copies are written; the member caches have not shown them yet
  ASSERT_NE(limits(members_[1]), "-");
  members_[1].api->remove(kHpas, "default", "php-apache", "");  // a fresh cluster under that name
  reconciler_->forgetMember("member2");
  refreshCaches();
  EXPECT_NO_THROW(reconcile()) << "a write planned from an expectation the member no longer meets";
  EXPECT_NE(limits(members_[1]), "-");
}

// The safety invariant over random interleavings: members that fail, come back and are released;
// writes whose answers are lost, and writes a member applies only after their sender gave up on
// them; caches that lag, or that lose the controller's own create once it has stopped expecting
// it (a relist from a stale list); members that change under fedhpa (409s); federated max edits;
// controller restarts; a clock that moves. No write may ever raise the counted sum above the
// federated max, and once everything is healthy again the members hold exactly the federated max.
TEST_F(HpaReconcilerTest, PropertyNoWriteEverRaisesTheSumAboveTheFederatedMax) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 random(seed);
    auto chance = [&](int percent) { return std::uniform_int_distribution<int>(0, 99)(random) < percent; };
    const int count = std::uniform_int_distribution<int>(2, 5)(random);
    federation_.reset();
    federatedHpas_.forget();
    calls_ = std::make_unique<MemberCalls>(time_);
    build(count);
    for (std::size_t i = 0; i < members_.size(); ++i)  // each its own dice: members are written concurrently
      members_[i].client->fateOfNextWrite = [dice = std::mt19937(seed * 31 + i)]() mutable {
        const int roll = std::uniform_int_distribution<int>(0, 99)(dice);
        return roll < 5 ? Fate::AnswerLost : roll < 10 ? Fate::AppliedLater : Fate::Answered;
      };
    federation_.put(kHpas, federatedHpa(1, std::uniform_int_distribution<int>(count, 4 * count)(random)));
    std::vector<std::chrono::milliseconds> downFor(members_.size(), std::chrono::milliseconds(0));
    for (int step = 0; step < 250; ++step) {
      auto& member = members_[std::uniform_int_distribution<std::size_t>(0, members_.size() - 1)(random)];
      const std::size_t index = &member - members_.data();
      if (chance(40)) {
        try {
          reconcile();
        } catch (const clusters::ClientError&) {
        }
      }
      if (chance(25)) federatedHpas_.refresh();
      if (chance(20) && member.api->reachable) {
        member.hpas->refresh();
      }
      // A member applies what it held within 30 s while it keeps answering; one that stops
      // answering has dropped it (kube-apiserver gives up on a request after its timeout).
      for (auto& each : members_) {
        if (!each.api->reachable) each.client->dropHeldWrites();
        else if (chance(30) || each.client->heldSince(time_.monotonicTime()) >= std::chrono::seconds(22))
          each.client->applyHeldWrites();
      }
      if (chance(8)) saturate(member);
      if (chance(8)) idle(member);
      if (chance(4)) member.api->reachable = !member.api->reachable;
      if (chance(3))
        federation_.touch(kHpas, "default", "php-apache", [&](json& hpa) {
          hpa["spec"]["maxReplicas"] = std::uniform_int_distribution<int>(count, 4 * count)(random);
        });
      if (chance(2)) {  // a new process: its caches start empty, and only reachable members sync
        // It leads only once the old one's lease has run out, and by then its writes are answered.
        for (auto& each : members_) each.api->reachable ? each.client->applyHeldWrites() : each.client->dropHeldWrites();
        restartController();
        for (auto& each : members_) {
          each.hpas->forget();
          if (each.api->reachable) each.hpas->refresh();
        }
      }
      const auto elapsed = std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 8000)(random));
      time_.advance(elapsed);
      // Health as the prober sees it: a failed member is noticed late, released after a 40 s grace.
      std::lock_guard lock(observer_.mutex);
      downFor[index] = member.api->reachable ? std::chrono::milliseconds(0) : downFor[index] + elapsed;
      for (std::size_t i = 0; i < members_.size(); ++i) {
        if (members_[i].api->reachable) members_[i].health = MemberHealth::Healthy;
        else if (downFor[i] >= std::chrono::seconds(40)) members_[i].health = MemberHealth::Released;
        else if (downFor[i] >= std::chrono::seconds(10)) members_[i].health = MemberHealth::Unknown;
      }
    }
    ASSERT_TRUE(observer_.violations.empty()) << "seed " << seed << ": " << observer_.violations.front();
    // Everyone back, and load gone (statuses frozen at saturation would trade a replica back
    // and forth; a member's real HPA would have scaled up and ended that).
    for (auto& member : members_) member.api->reachable ? member.client->applyHeldWrites() : member.client->dropHeldWrites();
    for (auto& member : members_) {
      member.api->reachable = true;
      member.health = MemberHealth::Healthy;
      member.client->fateOfNextWrite = [] { return Fate::Answered; };
      idle(member);
    }
    ASSERT_TRUE(converge()) << "seed " << seed;
    long long sum = 0, minimum = 0;
    for (const auto& member : members_)
      if (const auto hpa = member.api->peek(kHpas, "default", "php-apache")) {
        sum += (*hpa)["spec"].value("maxReplicas", 0LL);
        minimum += (*hpa)["spec"].value("minReplicas", 0LL);
        EXPECT_GE((*hpa)["spec"].value("minReplicas", 0LL), 1);
      }
    EXPECT_EQ(sum, federatedMax()) << "seed " << seed;
    EXPECT_GE(minimum, 1) << "seed " << seed;
    ASSERT_TRUE(observer_.violations.empty()) << "seed " << seed << ": " << observer_.violations.front();
  }
}

}  // namespace
}  // namespace fedhpa::controller
