// A TimeSource that moves only when the test says so.
#pragma once

#include <mutex>

#include "federation/common/time_source.h"

namespace fedhpa::testing {

class FakeTimeSource final : public TimeSource {
 public:
  SystemTime systemTime() override {
    std::lock_guard lock(mutex_);
    return system_;
  }
  MonotonicTime monotonicTime() override {
    std::lock_guard lock(mutex_);
    return monotonic_;
  }
  void advance(std::chrono::milliseconds by) {
    std::lock_guard lock(mutex_);
    system_ += by;
    monotonic_ += by;
  }

 private:
  std::mutex mutex_;
  SystemTime system_ = SystemTime(std::chrono::hours(24 * 365 * 56));  // some day in 2026
  MonotonicTime monotonic_ = MonotonicTime(std::chrono::hours(1));
};

}  // namespace fedhpa::testing
