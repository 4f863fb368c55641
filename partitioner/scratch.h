// The memory a plan works in. Every step needs a few arrays of one number per cluster; they come
// from a Scratch the caller keeps between plans (partition.h's Workspace), so a reconcile loop
// over the same federation allocates nothing once its first plan has sized them.
#pragma once

#include <algorithm>
#include <cstddef>
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
      if (pool_) pool_->free_.push_back(slot_);
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
  Array lease() {
    if (free_.empty()) {
      arrays_.push_back(std::make_unique<std::vector<Replicas>>());
      free_.reserve(arrays_.size());  // every array may come back at once
      return Array(this, arrays_.size() - 1);
    }
    const std::size_t slot = free_.back();
    free_.pop_back();
    return Array(this, slot);
  }
  // unique_ptr: a leased array stays where it is when the pool grows.
  std::vector<std::unique_ptr<std::vector<Replicas>>> arrays_;
  std::vector<std::size_t> free_;  // the arrays not leased now
};

}  // namespace fedhpa::partitioner
