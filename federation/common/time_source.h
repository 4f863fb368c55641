// Where time comes from. Production code asks a TimeSource, never the clocks directly, wherever a
// decision depends on time (grace periods, backoff, leases), so that tests can drive it with a
// fake one and replay any interleaving in virtual time.
#pragma once

#include <chrono>

namespace fedhpa {

using SystemTime = std::chrono::system_clock::time_point;
using MonotonicTime = std::chrono::steady_clock::time_point;

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  // Wall-clock time: what is written into objects (timestamps other processes read).
  virtual SystemTime systemTime() = 0;
  // Time for measuring intervals in this process: never jumps.
  virtual MonotonicTime monotonicTime() = 0;
};

class RealTimeSource final : public TimeSource {
 public:
  SystemTime systemTime() override { return std::chrono::system_clock::now(); }
  MonotonicTime monotonicTime() override { return std::chrono::steady_clock::now(); }
};

}  // namespace fedhpa
