#include "partitioner/partition.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "partitioner/cluster_view.h"
#include "partitioner/policies.h"
#include "partitioner/schedule.h"

namespace fedhpa::partitioner {

struct Workspace::State {
  // A cluster's sort key (sortByName) and its index in the input.
  struct Keyed {
    std::uint64_t key;
    std::uint32_t index;
  };
  std::vector<const ClusterState*> order;
  // The order the last plan sorted the clusters into, and whether their names were strictly
  // increasing (no two alike: then it is the only order that sorts them).
  std::vector<Keyed> keyed;
  bool keyedStrict = false;
  // The cluster (index into plan.clusters) whose name each of plan.moves holds.
  std::vector<std::uint32_t> moveNames;
  static constexpr std::uint32_t kNoCluster = ~std::uint32_t{0};
  std::vector<Keyed> keyedSpare;
  std::vector<ClusterView> views;
  Plan plan;
  Schedule schedule{plan};  // writes the plan's causes, transfers and notes
};

Workspace::Workspace() : state_(std::make_unique<State>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

namespace {

// Names are compared inline, 8 bytes at a time, loaded big-endian so that comparing the integers
// compares the bytes in order: a name is a dozen bytes, too few to pay for a call to memcmp, and
// every plan compares each cluster's name at least once (to see whether the last plan's order and
// names still hold).
std::uint64_t bigEndian8(const char* bytes) {
  std::uint64_t chunk;
  std::memcpy(&chunk, bytes, 8);
  return __builtin_bswap64(chunk);
}

std::uint64_t bigEndian4(const char* bytes) {
  std::uint32_t chunk;
  std::memcpy(&chunk, bytes, 4);
  return __builtin_bswap32(chunk);
}

// The first `length` bytes of a and b compared: -1, 0 or 1. Windows that overlap are fine (the
// bytes they share are equal by then): past the first 8 bytes the last window ends at `length`,
// and 4 to 7 bytes are the first 4 and the last 4.
int compareBytes(const char* a, const char* b, std::size_t length) {
  const auto order = [](std::uint64_t x, std::uint64_t y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (length < 8) {
    if (length >= 4) {
      return order(bigEndian4(a) << 32 | bigEndian4(a + length - 4),
                   bigEndian4(b) << 32 | bigEndian4(b + length - 4));
    }
    for (std::size_t k = 0; k < length; ++k) {
      if (a[k] != b[k]) return static_cast<unsigned char>(a[k]) < static_cast<unsigned char>(b[k]) ? -1 : 1;
    }
    return 0;
  }
  for (std::size_t at = 0;; at += 8) {
    if (at + 8 > length) at = length - 8;
    const std::uint64_t x = bigEndian8(a + at), y = bigEndian8(b + at);
    if (x != y) return x < y ? -1 : 1;
    if (at + 8 == length) return 0;
  }
}

bool nameLess(std::string_view a, std::string_view b) {
  const int order = compareBytes(a.data(), b.data(), std::min(a.size(), b.size()));
  return order != 0 ? order < 0 : a.size() < b.size();
}

// Equality needs no order: windows of 8 (or 4) bytes xor-ed, no byte swaps, no branch per
// window on which one is larger (every plan compares each cluster's name this way).
[[gnu::always_inline]] inline bool sameName(std::string_view a, std::string_view b) {
  const std::size_t length = a.size();
  if (length != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  const auto differ8 = [](const char* p, const char* q) {
    std::uint64_t u, v;
    std::memcpy(&u, p, 8);
    std::memcpy(&v, q, 8);
    return u ^ v;
  };
  if (length >= 8) {  // the first 8 and the last 8 (overlapping up to 16), then any between
    std::uint64_t differs = differ8(x, y) | differ8(x + length - 8, y + length - 8);
    for (std::size_t at = 8; at + 8 < length; at += 8) differs |= differ8(x + at, y + at);
    return differs == 0;
  }
  if (length >= 4) {
    std::uint32_t u0, v0, u1, v1;
    std::memcpy(&u0, x, 4);
    std::memcpy(&v0, y, 4);
    std::memcpy(&u1, x + length - 4, 4);
    std::memcpy(&v1, y + length - 4, 4);
    return ((u0 ^ v0) | (u1 ^ v1)) == 0;
  }
  for (std::size_t k = 0; k < length; ++k) {
    if (x[k] != y[k]) return false;
  }
  return true;
}

// The clusters in name order, without the last plan's help. Names in a federation tend to share
// a long prefix ("member1", "member2", ...), so each name is keyed by the 8 bytes after the
// prefix they all share, packed big-endian into one integer, and the keys are radix sorted, one
// counting pass per byte that differs between names (three for "member0".."member999"); only
// names equal in those bytes are compared in full.
void sortAfresh(const std::vector<ClusterState>& clusters, Workspace::State& ws) {
  std::vector<const ClusterState*>& order = ws.order;
  using Keyed = Workspace::State::Keyed;
  std::vector<Keyed>& keyed = ws.keyed;
  for (std::size_t i = 0; i < clusters.size(); ++i) order[i] = &clusters[i];
  const auto byItsName = [](const ClusterState* a, const ClusterState* b) { return nameLess(a->name, b->name); };
  if (std::is_sorted(order.begin(), order.end(), byItsName)) {
    keyed.resize(clusters.size());
    for (std::size_t i = 0; i < clusters.size(); ++i) keyed[i] = {0, static_cast<std::uint32_t>(i)};
    return;
  }

  const std::string& first = clusters.front().name;
  std::size_t shared = first.size();
  for (const ClusterState& c : clusters) {
    shared = std::min(shared, c.name.size());
    shared = static_cast<std::size_t>(
        std::mismatch(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(shared), c.name.begin()).first -
        first.begin());
  }
  keyed.clear();
  std::uint64_t differing = 0;
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    const std::string& name = clusters[i].name;
    std::uint64_t key = 0;
    for (std::size_t k = 0; k < 8; ++k) {
      const std::size_t at = shared + k;
      key = (key << 8) | (at < name.size() ? static_cast<unsigned char>(name[at]) : 0u);
    }
    keyed.push_back({key, static_cast<std::uint32_t>(i)});
    differing |= key ^ keyed.front().key;
  }
  std::vector<Keyed>& spare = ws.keyedSpare;
  spare.resize(keyed.size());
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (((differing >> shift) & 0xff) == 0) continue;
    std::array<std::uint32_t, 257> start{};
    for (const Keyed& k : keyed) ++start[((k.key >> shift) & 0xff) + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (const Keyed& k : keyed) spare[start[(k.key >> shift) & 0xff]++] = k;
    keyed.swap(spare);
  }
  for (std::size_t i = 0; i < keyed.size(); ++i) order[i] = &clusters[keyed[i].index];
  // Equal keys: the names differ only after those 8 bytes.
  for (std::size_t i = 0; i < keyed.size();) {
    std::size_t end = i + 1;
    while (end < keyed.size() && keyed[end].key == keyed[i].key) ++end;
    if (end - i > 1) {
      std::sort(order.begin() + static_cast<std::ptrdiff_t>(i),
                order.begin() + static_cast<std::ptrdiff_t>(end), byItsName);
    }
    i = end;
  }
  for (std::size_t i = 0; i < keyed.size(); ++i) {
    keyed[i].index = static_cast<std::uint32_t>(order[i] - clusters.data());
  }
}

// The clusters in name order, as pointers into the input (the input is not copied).
// A reconcile loop plans the same federation again and again: when the clusters, taken in the
// order the last plan sorted them into, have that plan's names, the order holds again (one name
// comparison per cluster, no sort), and the plan's names need no writing: returns true then.
bool sortByName(const std::vector<ClusterState>& clusters, Workspace::State& ws) {
  std::vector<const ClusterState*>& order = ws.order;
  const std::vector<ClusterPlan>& last = ws.plan.clusters;
  const std::size_t n = clusters.size();
  order.resize(n);
  if (ws.keyedStrict && ws.keyed.size() == n && last.size() == n) {
    const Workspace::State::Keyed* const keyed = ws.keyed.data();
    const ClusterPlan* const lastPlan = last.data();
    const ClusterState** const ordered = order.data();
    std::size_t i = 0;
    for (; i < n; ++i) {
      const ClusterState& cluster = clusters[keyed[i].index];
      if (!sameName(cluster.name, lastPlan[i].name)) break;
      ordered[i] = &cluster;
    }
    if (i == n) return true;
  }
  sortAfresh(clusters, ws);
  const auto alike = [](const ClusterState* a, const ClusterState* b) { return !nameLess(a->name, b->name); };
  ws.keyedStrict = std::adjacent_find(order.begin(), order.end(), alike) == order.end();
  return false;
}

// `limits` when `present`, else none, written field by field: a std::optional built on the stack
// and copied was a store-forwarding stall per cluster, two thirds of writing a plan.
void writeLimits(std::optional<Limits>& to, bool present, const Limits& limits) {
  if (!present) {
    to.reset();
  } else if (to) {
    to->min = limits.min;
    to->max = limits.max;
  } else {
    to.emplace(limits);
  }
}

// The notes that say why nothing is placed.
const Plan& nothingToPlace(Workspace::State& ws, Note::Kind why) {
  Plan& plan = ws.plan;
  plan.clusters.clear();
  plan.moves.clear();
  ws.moveNames.clear();
  plan.causes.clear();
  plan.transfers.clear();
  plan.notes.resize(1);
  plan.notes.front().kind = why;
  return plan;
}

}  // namespace

const Plan& partition(const FederatedSpec& requested, const std::vector<ClusterState>& input,
                      const Policy& policy, TimePoint now, Workspace& workspace) {
  Workspace::State& ws = *workspace.state_;
  Plan& plan = ws.plan;
  if (requested.limits.max < 1) return nothingToPlace(ws, Note::Kind::MaxBelowOne);
  if (input.empty()) return nothingToPlace(ws, Note::Kind::NoEligibleCluster);
  FederatedSpec spec = requested;
  spec.limits.min = std::clamp<Replicas>(spec.limits.min, 1, spec.limits.max);

  const bool namesAsLastPlan = sortByName(input, ws);
  const Federation federation = classify(spec, ws.order, policy, now, ws.views);
  const std::span<const ClusterView> views = ws.views;
  Schedule& schedule = ws.schedule;
  schedule.reset(views, federation);
  if (policy.kind == Policy::Kind::Legacy) {
    scheduleLegacy(schedule, spec, views);
  } else if (policy.kind == Policy::Kind::Static) {
    scheduleStatic(schedule, spec, views);
  } else {
    scheduleDemand(schedule, spec, views);
  }

  // Moves and names are written over the previous plan's, so their strings keep their memory.
  // The causes and transfers are in the plan already (the schedule wrote them there): a move
  // names its cluster's slots in them.
  plan.federated = spec.limits;
  const std::size_t n = views.size();
  if (!namesAsLastPlan) plan.clusters.resize(n);  // else it holds n already (sortByName saw)
  // The arrays read and written per cluster, held in registers across the calls below (through
  // the vectors, each access reloaded their data pointers).
  const ClusterView* const view = views.data();
  const Limits* const placement = schedule.limits.data();
  const std::uint32_t* const causeCount = schedule.causeCount.data();
  const Cause* const causes = plan.causes.data();
  ClusterPlan* const clusterPlan = plan.clusters.data();
  Move* move = plan.moves.data();                    // refreshed when the moves grow
  std::uint32_t* moveName = ws.moveNames.data();
  std::size_t movesHeld = plan.moves.size();
  // Whether one of a cluster's causes quotes its usage: a plain loop over its one or two causes
  // (std::any_of's unrolled loop spent more on its setup than on them).
  const auto quotesUsage = [&](std::size_t first, std::size_t count) {
    for (std::size_t k = first; k < first + count; ++k) {
      if (quotesTheUsage(causes[k].kind)) return true;
    }
    return false;
  };
  std::size_t moves = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Limits after = placement[i];
    const bool placed = after.max > 0;
    // The same federation replans under the same names: written only when they changed.
    ClusterPlan& cluster = clusterPlan[i];
    if (!namesAsLastPlan && !sameName(cluster.name, view[i].name)) cluster.name.assign(view[i].name);
    writeLimits(cluster.limits, placed, after);
    if (view[i].present == placed && (!placed || view[i].limits == after)) continue;
    if (moves == movesHeld) {
      plan.moves.emplace_back();
      ws.moveNames.push_back(Workspace::State::kNoCluster);
      move = plan.moves.data();
      moveName = ws.moveNames.data();
      movesHeld = plan.moves.size();
    }
    // A move that held this cluster's name in the last plan holds it still when the names are
    // the last plan's.
    const bool nameHeld = namesAsLastPlan && moveName[moves] == i;
    Move& m = move[moves];
    if (!nameHeld && !sameName(m.cluster, view[i].name)) m.cluster.assign(view[i].name);
    moveName[moves++] = static_cast<std::uint32_t>(i);
    writeLimits(m.before, view[i].present, view[i].limits);
    writeLimits(m.after, placed, after);
    m.note.clear();
    const std::size_t first = i * Schedule::kMaxCauses;
    m.firstCause = first;
    m.causeCount = causeCount[i];
    if (view[i].present && quotesUsage(first, causeCount[i])) {
      view[i].recordUsage(spec.targetCPUUtilizationPercent, m.usage);
    }
  }
  // Resized only when this plan has fewer moves (most often it has as many as the last): a
  // resize divides by a Move's size to learn the size it has. moveNames is as long as moves.
  if (moves != movesHeld) {
    plan.moves.resize(moves);
    ws.moveNames.resize(moves);
  }
  // So are the notes (their fields are all set by the step that adds them); those beyond this
  // plan's are dropped.
  plan.notes.resize(schedule.noteCount);
  return plan;
}

Plan partition(const FederatedSpec& spec, const std::vector<ClusterState>& clusters,
               const Policy& policy, TimePoint now) {
  Workspace workspace;
  return partition(spec, clusters, policy, now, workspace);
}

}  // namespace fedhpa::partitioner
