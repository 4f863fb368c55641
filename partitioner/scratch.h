// The memory a plan works in. Every step needs a few arrays of one number per cluster; they come
// from a Scratch the caller keeps between plans (partition.h's Workspace), so a reconcile loop
// over the same federation allocates nothing once its first plan has sized them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "partitioner/types.h"

namespace fedhpa::partitioner {

class Scratch {
 public:
  // One leased array; it goes back to the pool when the lease ends (RAII), whatever the order.
  class Array {
   public:
    Array(Array&& other) noexcept : pool_(other.pool_), slot_(other.slot_), array_(other.array_) {
      other.pool_ = nullptr;
    }
    Array& operator=(Array&&) = delete;
    Array(const Array&) = delete;
    ~Array() {
      if (pool_) pool_->release(slot_);
    }
    std::vector<Replicas>& get() { return *array_; }
    const std::vector<Replicas>& get() const { return *array_; }
    operator std::vector<Replicas>&() { return get(); }
    operator const std::vector<Replicas>&() const { return get(); }
    Replicas& operator[](std::size_t i) { return get()[i]; }
    Replicas operator[](std::size_t i) const { return get()[i]; }
    std::size_t size() const { return get().size(); }

   private:
    friend class Scratch;
    Array(Scratch* pool, std::size_t slot) : pool_(pool), slot_(slot), array_(pool->arrays_[slot].get()) {}
    Scratch* pool_;
    std::size_t slot_;
    std::vector<Replicas>* array_;
  };

  Array zeros(std::size_t n) { return filled(n, 0); }
  // n values left as the last lease had them: for a caller that writes every one before reading
  // (at a thousand clusters, zeroing the arrays a plan overwrites anyway was a tenth of its cost).
  Array overwritten(std::size_t n) {
    Array array = lease();
    array.get().resize(n);
    return array;
  }
  Array filled(std::size_t n, Replicas value) {
    Array array = lease();
    std::vector<Replicas>& values = array.get();
    values.resize(n);
    std::fill(values.begin(), values.end(), value);
    return array;
  }
  Array copy(const std::vector<Replicas>& from) {
    Array array = lease();
    array.get().assign(from.begin(), from.end());
    return array;
  }

 private:
  // The first 64 arrays are free or leased by one bit each (a lease is finding the lowest set
  // bit); a plan that leases more at once keeps the rest in a list.
  static constexpr std::size_t kBits = 64;
  // The common case inline; growing the pool kept out of line, so the common case needs no
  // registers saved.
  Array lease() {
    if (freeBits_ == 0) return leaseBeyondTheBits();
    const auto slot = static_cast<std::size_t>(__builtin_ctzll(freeBits_));
    freeBits_ &= freeBits_ - 1;
    return Array(this, slot);
  }
  [[gnu::noinline]] Array leaseBeyondTheBits() {
    if (!freeBeyond_.empty()) {
      const std::size_t slot = freeBeyond_.back();
      freeBeyond_.pop_back();
      return Array(this, slot);
    }
    arrays_.push_back(std::make_unique<std::vector<Replicas>>());
    if (arrays_.size() > kBits) freeBeyond_.reserve(arrays_.size() - kBits);  // all may come back
    return Array(this, arrays_.size() - 1);
  }
  void release(std::size_t slot) {
    if (slot < kBits) {
      freeBits_ |= std::uint64_t{1} << slot;
    } else {
      releaseBeyondTheBits(slot);
    }
  }
  [[gnu::noinline]] void releaseBeyondTheBits(std::size_t slot) { freeBeyond_.push_back(slot); }
  // unique_ptr: a leased array stays where it is when the pool grows.
  std::vector<std::unique_ptr<std::vector<Replicas>>> arrays_;
  std::uint64_t freeBits_ = 0;            // bit i: arrays_[i] is not leased now
  std::vector<std::size_t> freeBeyond_;   // the arrays past the first 64 not leased now
};

}  // namespace fedhpa::partitioner
