// Cost of one partition call at 3, 10, 100 and 1000 clusters, both policies, with small and huge
// replica counts: the cost must not depend on the counts.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "partitioner/partition.h"

// Every heap allocation in this process is counted, so each benchmark reports allocations per
// partition call next to its time.
namespace {
std::atomic<std::int64_t> gAllocations{0};
}  // namespace

// Every form that pairs with the deletes below is replaced (the nothrow ones too: the standard
// library's temporary buffers use them), so nothing allocated elsewhere is freed here.
void* operator new(std::size_t size) {
  gAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  gAllocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
// GCC sees free() on what its own operator new returned; this operator new is malloc.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace fedhpa::partitioner {
namespace {

const TimePoint kNow = TimePoint{} + std::chrono::hours(24 * 365 * 56);

// A busy federation: a third of the clusters saturated, a third idle, a third new or pristine.
std::vector<ClusterState> federation(std::int64_t clusters, Replicas federatedMax, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ClusterState> states;
  const Replicas share = std::max<Replicas>(1, federatedMax / clusters);
  for (std::int64_t i = 0; i < clusters; ++i) {
    ClusterState s;
    s.name = "member" + std::to_string(i);
    if (i % 3 != 2) {
      LocalHpa hpa;
      hpa.limits = {1, share};
      const bool saturated = i % 3 == 0;
      hpa.status.current = hpa.status.desired = saturated ? share : 1;
      hpa.status.cpuUtilizationPercent = saturated ? 90 + static_cast<Replicas>(rng() % 50) : 10;
      hpa.status.lastScaleTime = kNow - std::chrono::seconds(600);
      s.hpa = hpa;
    }
    states.push_back(std::move(s));
  }
  return states;
}

void BM_Partition(benchmark::State& state, Policy::Kind kind) {
  const std::int64_t clusters = state.range(0);
  const Replicas federatedMax = state.range(1);
  const auto states = federation(clusters, federatedMax, 7);
  const FederatedSpec spec{{1, federatedMax}, 50};
  const Policy policy{kind, std::chrono::seconds(120)};
  // One workspace across calls, as the controller's worker and the simulator keep one.
  Workspace workspace;
  const std::int64_t allocationsBefore = gAllocations.load();
  for (auto _ : state) {
    benchmark::DoNotOptimize(&partition(spec, states, policy, kNow, workspace));
  }
  state.counters["allocs"] = static_cast<double>(gAllocations.load() - allocationsBefore) /
                             static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
  state.counters["clusters"] = static_cast<double>(clusters);
  state.counters["maxReplicas"] = static_cast<double>(federatedMax);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t clusters : {3, 10, 100, 1000}) {
    b->Args({clusters, 10 * clusters});  // same shape as the next line, small counts
    b->Args({clusters, 2'000'000'000});
  }
}

BENCHMARK_CAPTURE(BM_Partition, demand, Policy::Kind::Demand)->Apply(sizes);
BENCHMARK_CAPTURE(BM_Partition, legacy, Policy::Kind::Legacy)->Apply(sizes);

}  // namespace
}  // namespace fedhpa::partitioner

BENCHMARK_MAIN();
