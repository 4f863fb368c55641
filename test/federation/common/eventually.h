// Waits for something other threads will make true: polls `condition` until it holds, and says
// whether it did. The deadline is generous on purpose: a test waits only as long as the condition
// takes, and a busy machine (sanitizers, other builds) may make that many times the usual.
#pragma once

#include <chrono>
#include <thread>

namespace fedhpa::testing {

inline constexpr std::chrono::seconds kEventuallyDeadline{60};

template <class Condition>
bool eventually(Condition&& condition, std::chrono::milliseconds deadline = kEventuallyDeadline,
                std::chrono::milliseconds step = std::chrono::milliseconds(20)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(step);
  }
  return condition();
}

}  // namespace fedhpa::testing
