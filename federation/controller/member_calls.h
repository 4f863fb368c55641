// Calls to member clusters, made so that no member can stall the others. Calls to different
// members run concurrently; at most `perMember` run at once against any one member (the rest wait
// their turn, first come first served); and a member whose calls keep failing to get through is cut off (a circuit
// breaker): its calls then fail at once, without touching the network, until a pause has passed,
// after which one trial call decides whether it is back. The pause doubles while the trials fail.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clusters/client/kube_client.h"
#include "federation/common/time_source.h"

namespace fedhpa::controller {

struct MemberCallOptions {
  std::size_t perMember = 8;
  int failureThreshold = 3;  // consecutive failures that open the circuit
  std::chrono::milliseconds initialPause{2000};
  std::chrono::milliseconds maxPause{30000};
};

// Where a member's circuit is: Closed (calls go out), Open (refused until the pause has passed),
// HalfOpen (the pause has passed: the next call, or the one under way, is the trial).
enum class CircuitState { Closed, Open, HalfOpen };
const char* circuitStateName(CircuitState state);  // "Closed", "Open", "HalfOpen"

struct MemberCall {
  std::string member;
  std::function<clusters::json()> run;
};

// One call's result: the object the member answered, or its error.
struct MemberCallOutcome {
  std::optional<clusters::json> object;
  std::optional<clusters::ClientError> error;
  bool sent = false;  // the call went out: the circuit did not refuse it
  bool ok() const { return !error.has_value(); }
  // Failed, and whether the member acted on it is unknown: it went out and no answer came (a
  // timeout, a connection cut; not a refused connection), or the answer says the server itself
  // does not know (500, 504).
  bool mayHaveApplied() const;
};

// Threads for calls that run beside their caller's: an idle thread takes the next call, and a new
// one starts when none is idle (calls never queue: a slow member's must not hold up another's);
// a thread idle for `idleExit` ends. Reusing threads spares a thread start per member call.
class CallThreads {
 public:
  // Starts `body` on a new thread of its own, or throws std::system_error when none can be had.
  using ThreadStarter = std::function<void(std::function<void()> body)>;
  static void startDetached(std::function<void()> body);

  explicit CallThreads(std::chrono::milliseconds idleExit = std::chrono::seconds(10), ThreadStarter start = startDetached);
  ~CallThreads();  // waits for the threads to end; what runs finishes first
  CallThreads(const CallThreads&) = delete;
  CallThreads& operator=(const CallThreads&) = delete;
  // Runs the task on an idle thread or a new one; on the calling thread when no thread can be
  // started, since a caller may hand out references that must not outlive its call.
  void run(std::function<void()> task);
  std::size_t threads();  // started and not yet ended
  std::size_t idle();     // of those, waiting for a call

 private:
  struct State;
  static void loop(const std::shared_ptr<State>& state);
  std::shared_ptr<State> state_;
  ThreadStarter start_;
};

class MemberCalls {
 public:
  explicit MemberCalls(TimeSource& time, MemberCallOptions options = {});

  // Runs one call against `member` on this thread. Throws what the call throws (as ClientError),
  // or a ConnectionFailure at once while the member's circuit is open.
  clusters::json call(const std::string& member, const std::function<clusters::json()>& run);
  // Runs the calls concurrently (the first on this thread, each other on a thread of the pool's:
  // an idle one, or a new one when none is idle, so no call ever waits for a thread) and returns
  // every outcome, in the order given, once all have finished.
  std::vector<MemberCallOutcome> callAll(const std::vector<MemberCall>& calls);
  // False while the member's circuit is open and its pause has not passed: a call would fail at once.
  bool available(const std::string& member);
  CircuitState circuit(const std::string& member);
  void forget(const std::string& member);  // the member left the federation
  // The member answers again (its probe says so): an open circuit lets the next call through as
  // its trial now instead of at the end of a pause that doubled while the member was away. A
  // failing trial opens it again for twice the last pause, as any failed trial does.
  void retryNow(const std::string& member);

 private:
  // A call waiting for a slot on its member's lane. The call that frees a slot hands it to the
  // oldest waiter and wakes that one alone; a circuit that opens refuses every waiter.
  struct Waiter {
    std::condition_variable wake;
    bool decided = false;
    bool granted = false;
  };
  struct Lane {
    std::size_t inFlight = 0;
    int failures = 0;
    std::optional<MonotonicTime> openUntil;  // set while the circuit is open
    std::chrono::milliseconds pause{0};
    bool trialInFlight = false;
    std::deque<Waiter*> waiting;  // oldest first; each lives on its caller's stack until decided
  };
  // call(), telling through `sent` whether the call went out.
  clusters::json callTracked(const std::string& member, const std::function<clusters::json()>& run, bool& sent);
  // Waits for a slot on the member's lane; false when the circuit refuses the call.
  bool acquire(const std::string& member, bool& trial);
  void release(const std::string& member, bool trial, bool failed);

  TimeSource& time_;
  MemberCallOptions options_;
  CallThreads threads_;
  std::mutex mutex_;
  std::map<std::string, Lane> lanes_;
};

}  // namespace fedhpa::controller
