// The memory a plan works in. Every step needs a few arrays of one number per cluster; they come
// from a Scratch the caller keeps between plans (partition.h's Workspace), so a reconcile loop
// over the same federation allocates nothing once its first plans have sized it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

// A stack of arrays: a lease takes the next n values (never value-initialised: a few
// instructions, nothing to give back one by one), and a Mark gives back everything leased after
// it when it goes out of scope. Each step holds a Mark, so the steps of a plan reuse the same
// memory, still in cache; an array a function returns to its caller is leased under the
// caller's Mark, never its own.
class Scratch {
 public:
  using Array = std::span<Replicas>;

  // One word, the stack's top: a Mark that saved two words (loaded and stored as one 16-byte
  // value) read them back while the last lease's 8-byte store was still in flight, a
  // store-forwarding stall per step.
  class Mark {
   public:
    explicit Mark(Scratch& scratch) : scratch_(scratch), top_(scratch.top_) {}
    ~Mark() { scratch_.top_ = top_; }
    Mark(const Mark&) = delete;
    Mark& operator=(const Mark&) = delete;

   private:
    Scratch& scratch_;
    std::size_t top_;
  };

  // n values left as an earlier lease had them: for a caller that writes every one before reading
  // (at a thousand clusters, zeroing the arrays a plan overwrites anyway was a tenth of its cost).
  Array overwritten(std::size_t n) {
    if (top_ + n <= capacity_) {
      Replicas* const values = values_ + top_;
      top_ += n;
      return {values, n};
    }
    return grow(n);
  }
  Array zeros(std::size_t n) { return filled(n, 0); }
  Array filled(std::size_t n, Replicas value) {
    const Array array = overwritten(n);
    fill(array, value);
    return array;
  }
  // Writes `value` into every element with plain stores. A zero fill left to the compiler
  // becomes a call to memset, which writes fewer than 64 bytes (an array for a few clusters) with
  // one masked vector store; a load cannot take its value from a masked store until it retires,
  // so the first read of each element stalled (at 3 clusters, half of levelUp's time). The value
  // is hidden from the compiler, which then writes the loop as it is.
  template <typename T>
  static void fill(std::span<T> values, T value) {
    static_assert(sizeof(T) > 1, "a fill of bytes becomes memset whatever the value");
    asm("" : "+r"(value));
    for (T& v : values) v = value;
  }
  Array copy(std::span<const Replicas> from) {
    const Array array = overwritten(from.size());
    std::copy(from.begin(), from.end(), array.begin());
    return array;
  }

  // Starts a plan with nothing leased (the buffers outgrown during the last plan are freed).
  void reset() {
    outgrown_.clear();
    top_ = 0;
  }

 private:
  // A lease beyond the buffer: a buffer twice as large takes over from the same top (the arrays
  // leased so far stay where they are, in the old buffer, kept until reset). Out of line, so
  // the common case needs no registers saved.
  [[gnu::noinline]] Array grow(std::size_t n) {
    const std::size_t capacity = std::max<std::size_t>({2 * capacity_, 2 * (top_ + n), 64});
    if (buffer_) outgrown_.push_back(std::move(buffer_));
    buffer_ = std::make_unique_for_overwrite<Replicas[]>(capacity);
    values_ = buffer_.get();
    capacity_ = capacity;
    return overwritten(n);
  }
  std::unique_ptr<Replicas[]> buffer_;
  Replicas* values_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t top_ = 0;
  std::vector<std::unique_ptr<Replicas[]>> outgrown_;
};

}  // namespace fedhpa::partitioner
