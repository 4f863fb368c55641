// The memory a plan works in. Every step needs a few arrays of one number per cluster; they come
// from a Scratch the caller keeps between plans (partition.h's Workspace), so a reconcile loop
// over the same federation allocates nothing once its first plan has sized them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

class Scratch {
 public:
  // One leased array of a fixed length; it goes back to the pool when the lease ends (RAII),
  // whatever the order. Its memory is a buffer of the pool's, never value-initialised: a lease
  // is a few instructions, however often the plan before leased the same buffer at another
  // length.
  class Array {
   public:
    Array(Array&& other) noexcept
        : pool_(other.pool_), slot_(other.slot_), values_(other.values_), size_(other.size_) {
      other.pool_ = nullptr;
    }
    Array& operator=(Array&&) = delete;
    Array(const Array&) = delete;
    ~Array() {
      if (pool_) pool_->release(slot_);
    }
    std::span<Replicas> get() { return {values_, size_}; }
    std::span<const Replicas> get() const { return {values_, size_}; }
    operator std::span<Replicas>() { return get(); }
    operator std::span<const Replicas>() const { return get(); }
    Replicas& operator[](std::size_t i) { return values_[i]; }
    Replicas operator[](std::size_t i) const { return values_[i]; }
    Replicas* begin() { return values_; }
    Replicas* end() { return values_ + size_; }
    const Replicas* begin() const { return values_; }
    const Replicas* end() const { return values_ + size_; }
    std::size_t size() const { return size_; }
    // Keeps the first `size` values (no more than it has): for a caller that filled a prefix.
    void truncate(std::size_t size) { size_ = std::min(size_, size); }

   private:
    friend class Scratch;
    Array(Scratch* pool, std::size_t slot, Replicas* values, std::size_t size)
        : pool_(pool), slot_(slot), values_(values), size_(size) {}
    Scratch* pool_;
    std::size_t slot_;
    Replicas* values_;
    std::size_t size_;
  };

  Array zeros(std::size_t n) { return filled(n, 0); }
  // n values left as the last lease had them: for a caller that writes every one before reading
  // (at a thousand clusters, zeroing the arrays a plan overwrites anyway was a tenth of its cost).
  Array overwritten(std::size_t n) { return lease(n); }
  Array filled(std::size_t n, Replicas value) {
    Array array = lease(n);
    std::fill(array.begin(), array.end(), value);
    return array;
  }
  Array copy(std::span<const Replicas> from) {
    Array array = lease(from.size());
    std::copy(from.begin(), from.end(), array.begin());
    return array;
  }

 private:
  // The first 64 buffers are free or leased by one bit each (a lease is finding the lowest set
  // bit); a plan that leases more at once keeps the rest in a list.
  static constexpr std::size_t kBits = 64;
  struct Buffer {
    std::unique_ptr<Replicas[]> values;  // a leased buffer stays where it is when the pool grows
    std::size_t capacity = 0;
  };
  // The common case inline: a free buffer long enough. Growing kept out of line, so the common
  // case needs no registers saved.
  Array lease(std::size_t n) {
    if (freeBits_ != 0) {
      const auto slot = static_cast<std::size_t>(__builtin_ctzll(freeBits_));
      Buffer& buffer = buffers_[slot];
      if (buffer.capacity >= n) {
        freeBits_ &= freeBits_ - 1;
        return Array(this, slot, buffer.values.get(), n);
      }
    }
    return leaseSlowly(n);
  }
  [[gnu::noinline]] Array leaseSlowly(std::size_t n) {
    std::size_t slot;
    if (freeBits_ != 0) {
      slot = static_cast<std::size_t>(__builtin_ctzll(freeBits_));
      freeBits_ &= freeBits_ - 1;
    } else if (!freeBeyond_.empty()) {
      slot = freeBeyond_.back();
      freeBeyond_.pop_back();
    } else {
      slot = buffers_.size();
      buffers_.emplace_back();
      if (buffers_.size() > kBits) freeBeyond_.reserve(buffers_.size() - kBits);  // all may come back
    }
    Buffer& buffer = buffers_[slot];
    if (buffer.capacity < n) {
      buffer.values = std::make_unique_for_overwrite<Replicas[]>(n);
      buffer.capacity = n;
    }
    return Array(this, slot, buffer.values.get(), n);
  }
  void release(std::size_t slot) {
    if (slot < kBits) {
      freeBits_ |= std::uint64_t{1} << slot;
    } else {
      releaseBeyondTheBits(slot);
    }
  }
  [[gnu::noinline]] void releaseBeyondTheBits(std::size_t slot) { freeBeyond_.push_back(slot); }
  std::vector<Buffer> buffers_;
  std::uint64_t freeBits_ = 0;            // bit i: buffers_[i] is not leased now
  std::vector<std::size_t> freeBeyond_;   // the buffers past the first 64 not leased now
};

}  // namespace fedhpa::partitioner
