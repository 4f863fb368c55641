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

  class Mark {
   public:
    explicit Mark(Scratch& scratch) : scratch_(scratch), chunk_(scratch.chunk_), used_(scratch.used_) {}
    ~Mark() {
      scratch_.chunk_ = chunk_;
      scratch_.used_ = used_;
    }
    Mark(const Mark&) = delete;
    Mark& operator=(const Mark&) = delete;

   private:
    Scratch& scratch_;
    std::size_t chunk_;
    std::size_t used_;
  };

  // n values left as an earlier lease had them: for a caller that writes every one before reading
  // (at a thousand clusters, zeroing the arrays a plan overwrites anyway was a tenth of its cost).
  Array overwritten(std::size_t n) {
    if (chunk_ < chunks_.size() && used_ + n <= chunks_[chunk_].capacity) {
      Replicas* values = chunks_[chunk_].values.get() + used_;
      used_ += n;
      return {values, n};
    }
    return leaseFromNextChunk(n);
  }
  Array zeros(std::size_t n) { return filled(n, 0); }
  Array filled(std::size_t n, Replicas value) {
    const Array array = overwritten(n);
    std::fill(array.begin(), array.end(), value);
    return array;
  }
  Array copy(std::span<const Replicas> from) {
    const Array array = overwritten(from.size());
    std::copy(from.begin(), from.end(), array.begin());
    return array;
  }

  // Starts a plan with nothing leased. When the last plan needed more than the first chunk, the
  // chunks become one that holds it all, so a plan of the same shape stays in one.
  void reset() {
    if (chunks_.size() > 1) {
      std::size_t total = 0;
      for (const Chunk& c : chunks_) total += c.capacity;
      chunks_.clear();
      chunks_.push_back({std::make_unique_for_overwrite<Replicas[]>(total), total});
    }
    chunk_ = 0;
    used_ = 0;
  }

 private:
  struct Chunk {
    std::unique_ptr<Replicas[]> values;  // a chunk stays where it is when more are added
    std::size_t capacity = 0;
  };
  // Out of line, so the common case needs no registers saved.
  [[gnu::noinline]] Array leaseFromNextChunk(std::size_t n) {
    if (chunk_ < chunks_.size()) ++chunk_;  // the rest of this one stays unused until the Mark
    while (chunk_ < chunks_.size() && chunks_[chunk_].capacity < n) ++chunk_;
    if (chunk_ == chunks_.size()) {
      const std::size_t capacity = std::max<std::size_t>({n, 64, chunks_.empty() ? 0 : 2 * chunks_.back().capacity});
      chunks_.push_back({std::make_unique_for_overwrite<Replicas[]>(capacity), capacity});
    }
    used_ = n;
    return {chunks_[chunk_].values.get(), n};
  }
  std::vector<Chunk> chunks_;
  std::size_t chunk_ = 0;  // the chunk leases come from
  std::size_t used_ = 0;   // how much of it is leased
};

}  // namespace fedhpa::partitioner
