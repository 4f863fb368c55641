#include "federation/controller/member_calls.h"

#include <algorithm>
#include <deque>
#include <future>
#include <system_error>
#include <thread>

#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::ClientError;
using clusters::json;

namespace {

// What says "this member is not answering", as opposed to an answer we did not like.
bool unreachable(const ClientError& error) {
  return error.kind() == ClientError::Kind::ConnectionFailure || error.code() == 503 || error.code() == 504;
}

}  // namespace

// Shared with the threads, which may outlive the pool by the moment it takes them to end.
struct CallThreads::State {
  std::mutex mutex;
  std::condition_variable wake;   // a task, or stopping
  std::condition_variable ended;  // a thread ended
  std::deque<std::function<void()>> tasks;
  std::size_t threads = 0, idle = 0;
  std::chrono::milliseconds idleExit;
  bool stopping = false;
};

void CallThreads::startDetached(std::function<void()> body) { std::thread(std::move(body)).detach(); }

CallThreads::CallThreads(std::chrono::milliseconds idleExit, ThreadStarter start)
    : state_(std::make_shared<State>()), start_(std::move(start)) {
  state_->idleExit = idleExit;
}

CallThreads::~CallThreads() {
  std::unique_lock lock(state_->mutex);
  state_->stopping = true;
  state_->wake.notify_all();
  state_->ended.wait(lock, [this] { return state_->threads == 0; });
}

std::size_t CallThreads::threads() {
  std::lock_guard lock(state_->mutex);
  return state_->threads;
}

std::size_t CallThreads::idle() {
  std::lock_guard lock(state_->mutex);
  return state_->idle;
}

void CallThreads::run(std::function<void()> task) {
  std::unique_lock lock(state_->mutex);
  state_->tasks.push_back(std::move(task));
  if (state_->idle >= state_->tasks.size()) {
    state_->wake.notify_one();
    return;
  }
  ++state_->threads;
  try {
    start_([state = state_] { loop(state); });
    return;
  } catch (const std::system_error& error) {
    FEDHPA_LOG(warning) << "no thread for a member call (" << error.what() << "): it runs on the caller's";
  }
  // Counted out and taken back (still the last: the lock was held throughout), then run here.
  --state_->threads;
  task = std::move(state_->tasks.back());
  state_->tasks.pop_back();
  lock.unlock();
  task();
}

void CallThreads::loop(const std::shared_ptr<State>& state) {
  std::unique_lock lock(state->mutex);
  for (;;) {
    if (state->tasks.empty()) {
      if (state->stopping) break;
      ++state->idle;
      const bool woken = state->wake.wait_for(lock, state->idleExit, [&] { return state->stopping || !state->tasks.empty(); });
      --state->idle;
      if (!woken) break;
      continue;
    }
    auto task = std::move(state->tasks.front());
    state->tasks.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // what the task holds goes before the thread is counted out
    lock.lock();
  }
  --state->threads;
  state->ended.notify_all();
}

MemberCalls::MemberCalls(TimeSource& time, MemberCallOptions options) : time_(time), options_(options) {}

bool MemberCalls::acquire(const std::string& member, bool& trial) {
  std::unique_lock lock(mutex_);
  Lane& lane = lanes_[member];
  if (lane.openUntil) {
    if (time_.monotonicTime() < *lane.openUntil || lane.trialInFlight) return false;
    lane.trialInFlight = true;  // half-open: this call alone tries the member
    trial = true;
    ++lane.inFlight;
    return true;
  }
  if (lane.inFlight < options_.perMember && lane.waiting.empty()) {
    ++lane.inFlight;
    return true;
  }
  // Its turn comes when a call ahead of it ends: release() counts it in and wakes it alone (waking
  // every waiter of every member on each release cost more CPU than the calls themselves).
  Waiter waiter;
  lane.waiting.push_back(&waiter);
  waiter.wake.wait(lock, [&] { return waiter.decided; });
  return waiter.granted;
}

void MemberCalls::release(const std::string& member, bool trial, bool failed) {
  std::lock_guard lock(mutex_);
  Lane& lane = lanes_[member];
  --lane.inFlight;
  if (trial) lane.trialInFlight = false;
  if (!failed) {
    lane.failures = 0;
    lane.openUntil.reset();
    lane.pause = std::chrono::milliseconds(0);
  } else if (trial || ++lane.failures >= options_.failureThreshold) {
    lane.pause = lane.pause.count() == 0 ? options_.initialPause : std::min(lane.pause * 2, options_.maxPause);
    lane.openUntil = time_.monotonicTime() + lane.pause;
  }
  // Notified under the lock: a waiter's condition variable is on its stack, gone once it returns.
  while (!lane.waiting.empty() && (lane.openUntil || lane.inFlight < options_.perMember)) {
    Waiter& next = *lane.waiting.front();
    lane.waiting.pop_front();
    next.decided = true;
    next.granted = !lane.openUntil;  // an open circuit refuses the calls that waited, at once
    if (next.granted) ++lane.inFlight;
    next.wake.notify_one();
  }
}

bool MemberCallOutcome::mayHaveApplied() const {
  if (!sent || !error) return false;
  if (error->kind() == ClientError::Kind::ConnectionFailure) return error->reason() != clusters::kConnectionRefused;
  return error->code() == 500 || error->code() == 504;
}

json MemberCalls::call(const std::string& member, const std::function<json()>& run) {
  bool sent = false;
  return callTracked(member, run, sent);
}

json MemberCalls::callTracked(const std::string& member, const std::function<json()>& run, bool& sent) {
  bool trial = false;
  if (!acquire(member, trial))
    throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", "member " + member + " is not answering (circuit open)");
  sent = true;
  try {
    json result = run();
    release(member, trial, false);
    return result;
  } catch (const ClientError& error) {
    release(member, trial, unreachable(error));
    throw;
  } catch (const std::exception& error) {
    release(member, trial, false);
    throw ClientError(ClientError::Kind::Other, 0, "", error.what());
  }
}

std::vector<MemberCallOutcome> MemberCalls::callAll(const std::vector<MemberCall>& calls) {
  auto attempt = [this](const MemberCall& call) {
    MemberCallOutcome outcome;
    try {
      outcome.object = callTracked(call.member, call.run, outcome.sent);
    } catch (const ClientError& error) {
      outcome.error = error;
    }
    return outcome;
  };
  std::vector<std::future<MemberCallOutcome>> others;
  for (std::size_t i = 1; i < calls.size(); ++i) {
    auto promise = std::make_shared<std::promise<MemberCallOutcome>>();
    others.push_back(promise->get_future());
    threads_.run([promise, attempt, &call = calls[i]] { promise->set_value(attempt(call)); });
  }
  std::vector<MemberCallOutcome> outcomes;
  if (!calls.empty()) outcomes.push_back(attempt(calls.front()));
  for (auto& other : others) outcomes.push_back(other.get());
  return outcomes;
}

bool MemberCalls::available(const std::string& member) {
  std::lock_guard lock(mutex_);
  const auto lane = lanes_.find(member);
  if (lane == lanes_.end() || !lane->second.openUntil) return true;
  return time_.monotonicTime() >= *lane->second.openUntil && !lane->second.trialInFlight;
}

void MemberCalls::retryNow(const std::string& member) {
  std::lock_guard lock(mutex_);
  const auto lane = lanes_.find(member);
  if (lane == lanes_.end() || !lane->second.openUntil) return;
  lane->second.openUntil = std::min(*lane->second.openUntil, time_.monotonicTime());
}

CircuitState MemberCalls::circuit(const std::string& member) {
  std::lock_guard lock(mutex_);
  const auto lane = lanes_.find(member);
  if (lane == lanes_.end() || !lane->second.openUntil) return CircuitState::Closed;
  const bool trialDue = lane->second.trialInFlight || time_.monotonicTime() >= *lane->second.openUntil;
  return trialDue ? CircuitState::HalfOpen : CircuitState::Open;
}

const char* circuitStateName(CircuitState state) {
  switch (state) {
    case CircuitState::Closed:
      return "Closed";
    case CircuitState::Open:
      return "Open";
    case CircuitState::HalfOpen:
      return "HalfOpen";
  }
  return "Closed";
}

void MemberCalls::forget(const std::string& member) {
  std::lock_guard lock(mutex_);
  const auto lane = lanes_.find(member);
  if (lane != lanes_.end() && lane->second.inFlight == 0) lanes_.erase(lane);
}

}  // namespace fedhpa::controller
