// HpaReconciler over in-memory APIs, caches the test refreshes when it chooses, and a fake clock:
// placement from the caches alone, no writes when nothing changed, frozen shares for members that
// cannot be read, conditional writes, and finalization that waits for unreachable members. The
// safety invariant over random interleavings is hpa_reconciler_property_test.cc's.
#include "federation/controller/hpa_reconciler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "federation/controller/cluster_selector.h"
#include "test/federation/controller/hpa_reconciler_fixture.h"

namespace fedhpa::controller {
namespace {

using testing::Fate;
using testing::federatedHpa;
using testing::HpaReconcilerTest;
using testing::kKey;
using clusters::json;

TEST_F(HpaReconcilerTest, PlacesFromTheCachesWithoutReadingAnyMember) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"1/4", "1/3", "1/3"}));
  for (const auto& member : members_) EXPECT_EQ(member.api->reads, 0) << member.name << " was read live";
  const auto federated = federation_.peek(kHpas, "default", "php-apache");
  EXPECT_EQ((*federated)["metadata"]["finalizers"], json::array({kFederationFinalizer}));
  EXPECT_TRUE((*federated)["metadata"]["annotations"].contains(kClusterStatusAnnotation));
}

// The caches hold only what reconcile reads (cache_transforms.h), so no write may send a cached
// object back whole: someone else's annotations and labels on the federated HPA and on the
// members' copies, and what the members' HPA controllers wrote, outlive every write fedhpa makes:
// a change of limits, the status, and an orphaning delete.
TEST_F(HpaReconcilerTest, WritesFromTrimmedCachesKeepWhatTheCachesLeftOut) {
  json hpa = federatedHpa(1, 10);
  hpa["metadata"]["annotations"] = {{"kubectl.kubernetes.io/last-applied-configuration", federatedHpa(1, 10).dump()},
                                    {"example.com/owner", "team-a"}};
  federation_.put(kHpas, hpa);
  ASSERT_TRUE(converge());
  for (auto& member : members_)
    member.api->touch(kHpas, "default", "php-apache", [](json& copy) {
      copy["metadata"]["annotations"]["example.com/audited"] = "yes";
      copy["metadata"]["labels"]["example.com/team"] = "a";
      copy["status"] = {{"currentReplicas", 1}, {"desiredReplicas", 1},
                        {"conditions", json::array({{{"type", "AbleToScale"}, {"status", "True"}, {"reason", "ReadyForNewScale"},
                                                      {"message", "recommended size matches current size"}}})}};
    });
  refreshCaches();
  EXPECT_FALSE((*members_[0].hpas->get("default", "php-apache"))["metadata"].contains("annotations")) << "the cache keeps none of it";
  federation_.touch(kHpas, "default", "php-apache", [](json& object) { object["spec"]["maxReplicas"] = 20; });
  ASSERT_TRUE(converge());
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"1/7", "1/7", "1/6"}));
  for (const auto& member : members_) {
    const json copy = *member.api->peek(kHpas, "default", "php-apache");
    EXPECT_EQ(copy["metadata"]["annotations"].value("example.com/audited", ""), "yes") << member.name;
    EXPECT_EQ(copy["metadata"]["labels"].value("example.com/team", ""), "a") << member.name;
    EXPECT_EQ(copy["status"]["conditions"][0].value("message", ""), "recommended size matches current size") << member.name;
  }
  const json federated = *federation_.peek(kHpas, "default", "php-apache");
  EXPECT_EQ(federated["metadata"]["annotations"].value("example.com/owner", ""), "team-a");
  EXPECT_TRUE(federated["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_TRUE(federated["metadata"]["annotations"].contains(kClusterStatusAnnotation));
  EXPECT_EQ(federated["status"].value("currentReplicas", 0), 3);

  federation_.touch(kHpas, "default", "php-apache", [](json& object) { object["metadata"]["finalizers"].push_back("orphan"); });
  federation_.remove(kHpas, "default", "php-apache", "", "");
  ASSERT_TRUE(converge());
  const json released = *federation_.peek(kHpas, "default", "php-apache");  // "orphan" is not fedhpa's to remove
  EXPECT_EQ(released["metadata"]["finalizers"], json::array({"orphan"}));
  EXPECT_EQ(released["metadata"]["annotations"].value("example.com/owner", ""), "team-a");
  for (const auto& member : members_) {
    const json copy = *member.api->peek(kHpas, "default", "php-apache");
    EXPECT_FALSE(copy["metadata"]["labels"].contains(kManagedByLabel)) << member.name << " is no longer fedhpa's";
    EXPECT_EQ(copy["metadata"]["labels"].value("example.com/team", ""), "a") << member.name;
    EXPECT_EQ(copy["metadata"]["annotations"].value("example.com/audited", ""), "yes") << member.name;
  }
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

// A copy whose create was echoed before its answer, deleted on the member before anything else
// reconciled the key: the delete's event finds the copy gone, and it is placed again.
TEST_F(HpaReconcilerTest, ACopyDeletedAfterItsEchoCameBeforeTheAnswerIsPlacedAgain) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  const auto echoes = eventsBeforeAnswers(*members_[1].api, "member2");
  reconcile();
  EXPECT_EQ(*echoes, std::vector<bool>{true}) << "the create's echo";
  members_[1].api->afterWrite = nullptr;
  refreshCaches();  // where the echo had left member2's cache
  members_[1].api->remove(kHpas, "default", "php-apache", "");  // someone deletes the copy
  refreshCaches();
  reconciler_->reconcile(kKey, /*unlessUnchanged=*/true);  // the key the DELETED event queued
  status_->waitUntilIdle();
  EXPECT_EQ(limits(members_[1]), "1/3") << "a delete hidden by the copy the create answered with";
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

// Max moves from idle members to a saturated one, and min with it. The min a lowered member gives
// up is taken from it only once the saturated member holds it: lowered together with the max, it
// left the local minima short of the federated min until the raise was in (or for as long as a
// raise that failed left it so).
TEST_F(HpaReconcilerTest, MinMovesWithoutTheMinimaFallingShortOfTheFederatedMin) {
  for (const int federatedMin : {2, 4, 6, 8})
    for (const int count : {2, 3}) {
      SCOPED_TRACE("federated min " + std::to_string(federatedMin) + ", " + std::to_string(count) + " members");
      federation_.reset();
      federatedHpas_.forget();
      build(count);
      federation_.put(kHpas, federatedHpa(federatedMin, 10));
      ASSERT_TRUE(converge());
      saturate(members_[0]);
      for (int i = 1; i < count; ++i) idle(members_[i]);
      ASSERT_TRUE(converge());
      long long minima = 0;
      for (const auto& member : members_) minima += (*member.api->peek(kHpas, "default", "php-apache"))["spec"].value("minReplicas", 0LL);
      EXPECT_GE(minima, federatedMin);
      EXPECT_TRUE(observer_.minViolations.empty()) << observer_.minViolations.front();
      EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
      observer_.minViolations.clear();
    }
}

class LabelledMembersTest : public HpaReconcilerTest {
 protected:
  std::vector<Member> members() override {
    auto out = HpaReconcilerTest::members();
    for (auto& member : out) member.labels = {{"name", member.name}};
    return out;
  }
};

// A member the selector no longer picks loses its copy, and its min goes to the others. They take
// it first, as far as their max lets them; deleted first, the copy took its min from the sum.
TEST_F(LabelledMembersTest, AMemberLeftOutOfTheSelectionTakesNoMinTheOthersHaveNotTaken) {
  build(2);
  federation_.put(kHpas, federatedHpa(2, 10));
  ASSERT_TRUE(converge());
  ASSERT_EQ(allLimits(), (std::vector<std::string>{"1/5", "1/5"}));
  federation_.touch(kHpas, "default", "php-apache", [](json& hpa) {
    hpa["metadata"]["annotations"][kClusterSelectorAnnotation] = R"([{"key":"name","operator":"NotIn","values":["member2"]}])";
  });
  ASSERT_TRUE(converge());
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"2/10", "-"}));
  EXPECT_TRUE(observer_.minViolations.empty()) << observer_.minViolations.front();
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

// A raise whose answer was lost leaves its member unseen until the cache or a read settles it:
// that member is out of the plan, and a member out of the plan keeps its copy and its share.
// Written as "not in the plan", it lost its HPA (and, through the target list, its Deployment).
TEST_F(HpaReconcilerTest, AMemberWhoseRaiseWentUnansweredKeepsItsCopyAndItsShare) {
  build(2);
  federation_.put(kHpas, federatedHpa(2, 10));
  ASSERT_TRUE(converge());
  const auto placed = allLimits();
  saturate(members_[0]);
  idle(members_[1]);
  refreshCaches();
  bool first = true;
  members_[0].client->fateOfNextWrite = [&first] { return std::exchange(first, false) ? Fate::AppliedLater : Fate::Answered; };
  EXPECT_THROW(reconcile(), clusters::ClientError) << "member1's raise timed out";
  members_[0].client->dropHeldWrites();  // it never arrived
  const auto afterLostRaise = allLimits();
  EXPECT_EQ(afterLostRaise[0], placed[0]);
  time_.advance(std::chrono::seconds(1));
  refreshCaches();
  EXPECT_THROW(reconcile(), clusters::ClientError) << "raises wait until member1 is settled";
  EXPECT_EQ(allLimits(), afterLostRaise) << "member1 is out of the plan: nothing is written to it, nor given of its share";
  ASSERT_TRUE(converge());
  EXPECT_NE(limits(members_[0]), "-");
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
}

// A member's lister that, once armed, lets the informer thread take the echo of the controller's
// last write (the cache refreshed, then the event handler run) right after a read returned what
// the cache held before it.
class EchoAfterReadLister : public clusters::Lister {
 public:
  EchoAfterReadLister(std::shared_ptr<clusters::Lister> inner, std::function<void()> echo)
      : inner_(std::move(inner)), echo_(std::move(echo)) {}
  bool hasSynced() const override { return inner_->hasSynced(); }
  std::optional<json> get(const std::string& ns, const std::string& name) const override {
    auto held = inner_->get(ns, name);
    if (std::exchange(armed, false))  // on a thread of its own, as an informer's: it may wait for a lock
      std::async(std::launch::async, echo_).wait_for(std::chrono::seconds(1));
    return held;
  }
  mutable bool armed = false;

 private:
  std::shared_ptr<clusters::Lister> inner_;
  std::function<void()> echo_;
};

class EchoRaceTest : public HpaReconcilerTest {
 protected:
  std::vector<Member> members() override {
    auto out = HpaReconcilerTest::members();
    if (racing) out[0].hpas = racing;
    return out;
  }
  std::shared_ptr<EchoAfterReadLister> racing;
};

// The echo of a raise drops the controller's expectation of it. Arriving between the reconcile's
// read of the cache and its lookup of that expectation, it left the reconcile with the read from
// before the raise: member1's old, lower max, and the difference was handed to member2 as well.
TEST_F(EchoRaceTest, AnEchoBetweenTheCacheReadAndTheExpectationLeavesNoStaleMax) {
  build(2);
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  saturate(members_[0]);
  idle(members_[1]);
  refreshCaches();
  reconcile();  // member2 lowered, member1 raised: both answered, the caches not refreshed
  saturate(members_[1]);
  members_[1].hpas->refresh();
  racing = std::make_shared<EchoAfterReadLister>(members_[0].hpas, [this] {
    members_[0].hpas->refresh();
    reconciler_->echoesOwnWrite("member1", *members_[0].api->peek(kHpas, "default", "php-apache"));
  });
  racing->armed = true;
  time_.advance(std::chrono::seconds(30));
  try {
    reconcile();
  } catch (const clusters::ClientError&) {  // a 409 on member1, whose cache the plan did not know
  }
  EXPECT_TRUE(observer_.violations.empty()) << observer_.violations.front();
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

// A create that timed out may still be applied by its member: the finalizer stays until that is
// settled, or the copy would outlive its federated HPA with nothing left to delete it.
TEST_F(HpaReconcilerTest, DeletionWaitsForACreateThatWentUnanswered) {
  build(2);
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  bool first = true;
  members_[1].client->fateOfNextWrite = [&first] { return std::exchange(first, false) ? Fate::AppliedLater : Fate::Answered; };
  EXPECT_THROW(reconcile(), clusters::ClientError) << "member2's create timed out";
  federation_.remove(kHpas, "default", "php-apache", "", "");
  time_.advance(std::chrono::seconds(3));
  refreshCaches();
  EXPECT_THROW(reconcile(), clusters::ClientError) << "deletion waits for member2";
  EXPECT_TRUE(federation_.peek(kHpas, "default", "php-apache")) << "the finalizer must stay";
  members_[1].client->applyHeldWrites();  // member2 creates the copy after all
  ASSERT_TRUE(converge());
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"-", "-"}));
  EXPECT_FALSE(federation_.peek(kHpas, "default", "php-apache")) << "released once every copy is gone";
}

// Deleting a federated HPA expects each member's copy gone; once the HPA itself is gone, nothing
// of it is kept (a controller that lives long would otherwise grow with every HPA deleted).
TEST_F(HpaReconcilerTest, ADeletedHpaLeavesNoExpectationsBehind) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  federation_.remove(kHpas, "default", "php-apache", "", "");
  ASSERT_TRUE(converge());
  ASSERT_FALSE(federation_.peek(kHpas, "default", "php-apache"));
  EXPECT_EQ(allLimits(), (std::vector<std::string>{"-", "-", "-"}));
  EXPECT_EQ(reconciler_->pendingExpectations(), 0u);
}

// What the dashboard and the alerts read: each member's share as a series, the HPA's own limits,
// one rebalance per placement; all gone with the HPA, so deleted HPAs leave no series behind.
TEST_F(HpaReconcilerTest, MetricsShowEveryMembersShareUntilTheHpaIsDeleted) {
  federation_.put(kHpas, federatedHpa(1, 10));
  ASSERT_TRUE(converge());
  const std::string labels = "{namespace=\"default\",name=\"php-apache\"";
  std::string text = metrics_.render(0);
  EXPECT_NE(text.find("fedhpa_federated_hpa_max_replicas" + labels + "} 10\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fedhpa_federated_hpa_min_replicas" + labels + "} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fedhpa_federated_hpa_member_max_replicas" + labels + ",cluster=\"member1\"} 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fedhpa_federated_hpa_member_max_replicas" + labels + ",cluster=\"member3\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fedhpa_federated_hpa_member_min_replicas" + labels + ",cluster=\"member2\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fedhpa_federated_hpa_rebalances_total" + labels + "} 1\n"), std::string::npos) << text;
  federation_.remove(kHpas, "default", "php-apache", "", "");
  ASSERT_TRUE(converge());
  text = metrics_.render(0);
  EXPECT_EQ(text.find("php-apache"), std::string::npos) << text;
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

// The same when the member leaves while the create is under way: its answer, arriving after the
// member was forgotten, is not expected of the member that joins again.
TEST_F(HpaReconcilerTest, AWriteAnsweredAfterItsMemberLeftIsNotExpectedOfItWhenItComesBack) {
  federation_.put(kHpas, federatedHpa(1, 10));
  refreshCaches();
  bool left = false;
  members_[1].api->afterWrite = [&](const clusters::Resource& resource) {
    if (resource.resource != kHpas.resource || left) return;
    left = true;
    reconciler_->forgetMember("member2");
    members_[1].api->remove(kHpas, "default", "php-apache", "");  // a fresh cluster under that name
  };
  reconcile();
  ASSERT_TRUE(left);
  members_[1].api->afterWrite = nullptr;
  refreshCaches();
  EXPECT_NO_THROW(reconcile());
  EXPECT_EQ(limits(members_[1]), "1/3") << "planned from the left member's answer, not from its cache";
}

}  // namespace
}  // namespace fedhpa::controller
