// Bad input never crashes `fedhpa partition`: random mutations of the shipped case files (values
// replaced by other types, out-of-range numbers, removed members) give a plan or a DecodeError
// naming a field, and nothing else.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "federation/controller/hpa_decode.h"
#include "federation/cmd/partition_command.h"

namespace fedhpa::cmd {
namespace {

using nlohmann::json;

json load(const std::string& name) {
  std::ifstream in(std::string(FEDHPA_SOURCE_DIR) + "/manifests/partition-examples/" + name + ".json");
  return json::parse(in);
}

json randomValue(std::mt19937_64& rng) {
  switch (rng() % 9) {
    case 0: return nullptr;
    case 1: return static_cast<long long>(rng() % 7) - 3;
    case 2: return 4'000'000'000LL;
    case 3: return -2.5;
    case 4: return "2026-11-22T10:00:00Z";
    case 5: return "{not json";
    case 6: return json::array({1, "x"});
    case 7: return json::object({{"type", "Resource"}});
    default: return true;
  }
}

// Replaces or removes one member somewhere inside `value`.
void mutate(json& value, std::mt19937_64& rng) {
  json* node = &value;
  for (int depth = 0; depth < 8; ++depth) {
    if (node->is_object() && !node->empty() && rng() % 3 != 0) {
      auto it = node->begin();
      std::advance(it, static_cast<long>(rng() % node->size()));
      node = &*it;
    } else if (node->is_array() && !node->empty() && rng() % 3 != 0) {
      node = &(*node)[rng() % node->size()];
    } else {
      break;
    }
  }
  *node = randomValue(rng);
}

TEST(PlanCaseFuzz, MutatedCasesGiveAPlanOrANamedFieldError) {
  std::mt19937_64 rng(1234);
  int plans = 0, errors = 0;
  for (const char* name : {"documented-3-clusters", "saturated-member1", "new-cluster-joins", "kubefed-hang", "custom-metric", "tiers"}) {
    const json original = load(name);
    for (int i = 0; i < 1500; ++i) {
      json input = original;
      for (int m = 0, count = 1 + static_cast<int>(rng() % 3); m < count; ++m) mutate(input, rng);
      for (auto kind : {partitioner::Policy::Kind::Legacy, partitioner::Policy::Kind::Demand}) {
        try {
          const auto plan = planCase(input, kind, std::chrono::system_clock::now());
          ASSERT_TRUE(plan.contains("clusters"));
          ++plans;
        } catch (const controller::DecodeError& e) {
          ASSERT_FALSE(e.field().empty());
          ++errors;
        } catch (const std::exception& e) {
          FAIL() << "unexpected " << e.what() << " for " << input.dump();
        }
      }
    }
  }
  EXPECT_GT(plans, 0);
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace fedhpa::cmd
