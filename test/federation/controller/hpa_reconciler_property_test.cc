// HpaReconciler's safety invariant as a property over random interleavings of member failures,
// lost and late writes, stale caches, federated max edits and restarts.
#include "federation/controller/hpa_reconciler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "test/federation/controller/hpa_reconciler_fixture.h"

namespace fedhpa::controller {
namespace {

using testing::Fate;
using testing::federatedHpa;
using testing::HpaReconcilerTest;
using clusters::json;

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
    ASSERT_TRUE(observer_.minViolations.empty()) << "seed " << seed << ": " << observer_.minViolations.front();
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
