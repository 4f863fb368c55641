// MemberCalls: one member's trouble costs the others nothing; a member that keeps failing is cut
// off and tried again with one call after a pause; at most perMember calls run against a member.
#include "federation/controller/member_calls.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <system_error>
#include <thread>

#include "test/federation/common/eventually.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::controller {
namespace {

using clusters::ClientError;
using clusters::json;
using fedhpa::testing::eventually;
using fedhpa::testing::FakeTimeSource;

json refused() { throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "connection refused"); }

TEST(MemberCallsTest, ASlowMemberDoesNotDelayTheOthers) {
  FakeTimeSource time;
  MemberCalls calls(time);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<MemberCall> batch = {{"slow", [&] { released.wait(); return json{{"from", "slow"}}; }},
                                   {"fast", [] { return json{{"from", "fast"}}; }}};
  auto done = std::async(std::launch::async, [&] { return calls.callAll(batch); });
  // The fast member answers while the slow one still has not: its call ran on its own thread.
  EXPECT_EQ(calls.call("fast", [] { return json{{"ok", true}}; })["ok"], true);
  EXPECT_EQ(done.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  release.set_value();
  const auto outcomes = done.get();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ((*outcomes[0].object)["from"], "slow");
  EXPECT_EQ((*outcomes[1].object)["from"], "fast");
}

TEST(MemberCallsTest, AFailingMemberIsCutOffThenTriedWithOneCall) {
  FakeTimeSource time;
  MemberCalls calls(time, {8, 3, std::chrono::milliseconds(2000), std::chrono::milliseconds(30000)});
  std::atomic<int> attempts{0};
  auto failing = [&] { ++attempts; return refused(); };
  EXPECT_EQ(calls.circuit("dead"), CircuitState::Closed) << "a member never called";
  for (int i = 0; i < 2; ++i) EXPECT_THROW(calls.call("dead", failing), ClientError);
  EXPECT_EQ(calls.circuit("dead"), CircuitState::Closed) << "two failures: below the threshold";
  EXPECT_THROW(calls.call("dead", failing), ClientError);
  EXPECT_FALSE(calls.available("dead"));
  EXPECT_EQ(calls.circuit("dead"), CircuitState::Open);
  EXPECT_THROW(calls.call("dead", failing), ClientError);
  EXPECT_EQ(attempts, 3) << "an open circuit fails at once, without calling";
  EXPECT_TRUE(calls.available("other")) << "other members are not affected";
  EXPECT_EQ(calls.circuit("other"), CircuitState::Closed);
  time.advance(std::chrono::milliseconds(2000));
  EXPECT_TRUE(calls.available("dead"));
  EXPECT_EQ(calls.circuit("dead"), CircuitState::HalfOpen) << "the pause has passed: the next call is the trial";
  EXPECT_THROW(calls.call("dead", failing), ClientError);  // the trial call fails: pause doubles
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(calls.circuit("dead"), CircuitState::Open);
  time.advance(std::chrono::milliseconds(2000));
  EXPECT_FALSE(calls.available("dead")) << "the second pause is 4 s";
  time.advance(std::chrono::milliseconds(2000));
  EXPECT_EQ(calls.call("dead", [] { return json{{"back", true}}; })["back"], true);
  EXPECT_TRUE(calls.available("dead"));
  EXPECT_EQ(calls.circuit("dead"), CircuitState::Closed) << "the trial got through";
  EXPECT_STREQ(circuitStateName(CircuitState::HalfOpen), "HalfOpen");
}

// A member the prober finds answering again: its circuit, open with a pause that doubled while
// it was away, lets the next call through at once as its trial.
TEST(MemberCallsTest, AMemberAnsweringAgainIsTriedAtOnceNotAtTheEndOfItsPause) {
  FakeTimeSource time;
  MemberCalls calls(time, {8, 3, std::chrono::milliseconds(2000), std::chrono::milliseconds(30000)});
  for (int i = 0; i < 3; ++i) EXPECT_THROW(calls.call("away", refused), ClientError);
  for (int pause = 2000; pause < 30000; pause *= 2) {  // failed trials: the pause grows to 30 s
    time.advance(std::chrono::milliseconds(pause));
    EXPECT_THROW(calls.call("away", refused), ClientError);
  }
  EXPECT_FALSE(calls.available("away"));
  calls.retryNow("away");
  EXPECT_TRUE(calls.available("away")) << "no clock moved: the trial may go now";
  EXPECT_EQ(calls.call("away", [] { return json{{"back", true}}; })["back"], true);
  EXPECT_TRUE(calls.available("away"));

  // A failing trial after retryNow opens the circuit again, for longer than before.
  for (int i = 0; i < 3; ++i) EXPECT_THROW(calls.call("again", refused), ClientError);
  calls.retryNow("again");
  EXPECT_THROW(calls.call("again", refused), ClientError);
  time.advance(std::chrono::milliseconds(2000));
  EXPECT_FALSE(calls.available("again")) << "the pause doubled to 4 s";
  calls.retryNow("healthy");  // a member whose circuit is closed: nothing changes
  EXPECT_TRUE(calls.available("healthy"));
}

// Whether a failed write may still have been applied: only when it went out and got no answer,
// or an answer that does not know; never when the circuit kept it from going out.
TEST(MemberCallsTest, OnlyAWriteThatWentOutUnansweredMayHaveBeenApplied) {
  FakeTimeSource time;
  MemberCalls calls(time, {8, 3, std::chrono::milliseconds(2000), std::chrono::milliseconds(30000)});
  auto fails = [](ClientError error) { return MemberCall{"m", [error]() -> json { throw error; }}; };
  // One at a time: an answer (the 409) resets the count of failures that opens the circuit.
  EXPECT_FALSE(calls.callAll({fails(ClientError(ClientError::Kind::Conflict, 409, "Conflict", "stale"))})[0].mayHaveApplied())
      << "a 409 is an answer";
  EXPECT_TRUE(calls.callAll({fails(ClientError(ClientError::Kind::Other, 504, "Timeout", "etcd timed out"))})[0].mayHaveApplied());
  const auto refused = calls.callAll({fails(ClientError(ClientError::Kind::ConnectionFailure, 0, clusters::kConnectionRefused, "refused"))});
  EXPECT_TRUE(refused[0].sent);
  EXPECT_FALSE(refused[0].mayHaveApplied()) << "a refused connection carried nothing";
  const auto timedOut = calls.callAll({fails(ClientError(ClientError::Kind::ConnectionFailure, 0, "", "timed out"))});
  EXPECT_TRUE(timedOut[0].mayHaveApplied());
  const auto cutOff = calls.callAll({{"m", [] { return json::object(); }}});  // three unanswered: the circuit is open
  EXPECT_FALSE(cutOff[0].ok());
  EXPECT_FALSE(cutOff[0].sent);
  EXPECT_FALSE(cutOff[0].mayHaveApplied());
}

TEST(MemberCallsTest, AnswersThatAreErrorsDoNotOpenTheCircuit) {
  FakeTimeSource time;
  MemberCalls calls(time);
  for (int i = 0; i < 10; ++i)
    EXPECT_THROW(calls.call("m", [] () -> json { throw ClientError(ClientError::Kind::Conflict, 409, "Conflict", "stale"); }),
                 ClientError);
  EXPECT_TRUE(calls.available("m"));
}

TEST(MemberCallsTest, AtMostPerMemberCallsRunAtOnce) {
  FakeTimeSource time;
  MemberCalls calls(time, {2, 3, std::chrono::milliseconds(1000), std::chrono::milliseconds(1000)});
  std::atomic<int> running{0}, peak{0};
  std::vector<MemberCall> batch;
  for (int i = 0; i < 8; ++i)
    batch.push_back({"m", [&] {
                       const int now = ++running;
                       for (int seen = peak; now > seen && !peak.compare_exchange_weak(seen, now);) {
                       }
                       std::this_thread::sleep_for(std::chrono::milliseconds(20));
                       --running;
                       return json::object();
                     }});
  const auto outcomes = calls.callAll(batch);
  EXPECT_EQ(outcomes.size(), 8u);
  EXPECT_EQ(peak, 2);
}

// The threads beside the caller's are kept for the next calls, not started per call; and a call
// never waits for one: while every kept thread is held by a slow call, a new one starts.
TEST(CallThreadsTest, IdleThreadsAreReusedAndBusyOnesNeverMakeACallWait) {
  CallThreads threads;
  for (int round = 0; round < 5; ++round) {
    std::vector<std::promise<void>> done(3);
    for (auto& each : done) threads.run([&each] { each.set_value(); });
    for (auto& each : done) each.get_future().wait();
    // A thread that has just answered is back among the idle ones a moment later.
    eventually([&] { return threads.idle() >= threads.threads(); }, fedhpa::testing::kEventuallyDeadline, std::chrono::milliseconds(5));
  }
  EXPECT_LE(threads.threads(), 3u) << "one thread per call: the threads are not reused";
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  for (int i = 0; i < 4; ++i) threads.run([released] { released.wait(); });
  std::promise<void> ran;
  threads.run([&ran] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  release.set_value();
}

TEST(CallThreadsTest, AThreadIdleForLongEnds) {
  CallThreads threads(std::chrono::milliseconds(20));
  std::promise<void> ran;
  threads.run([&ran] { ran.set_value(); });
  ran.get_future().wait();
  EXPECT_TRUE(eventually([&] { return threads.threads() == 0; })) << threads.threads() << " threads left";
}

// No thread to be had (the process is at its limit): the call runs on the caller's thread, so that
// nothing the caller handed out is used after its call returns, and the pool counts no thread that
// never started (its destructor would wait for that one for ever).
TEST(CallThreadsTest, ACallForWhichNoThreadCanStartRunsOnTheCallersThread) {
  std::thread::id ranOn;
  {
    CallThreads threads(std::chrono::seconds(10), [](std::function<void()>) {
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "thread");
    });
    threads.run([&ranOn] { ranOn = std::this_thread::get_id(); });
    EXPECT_EQ(ranOn, std::this_thread::get_id()) << "run() returned before its task ran";
    EXPECT_EQ(threads.threads(), 0u);
  }  // the destructor returns: it waits for no thread
}

}  // namespace
}  // namespace fedhpa::controller
