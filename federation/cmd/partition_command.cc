#include "federation/cmd/partition_command.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "federation/controller/hpa_decode.h"
#include "federation/cmd/flags.h"
#include "federation/api/time.h"
#include "federation/common/logging.h"
#include "partitioner/partition.h"
#include "partitioner/reasons.h"

namespace fedhpa::cmd {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
namespace pt = fedhpa::partitioner;

ordered_json limitsJson(const std::optional<pt::Limits>& limits) {
  if (!limits) return nullptr;
  return ordered_json{{"minReplicas", limits->min}, {"maxReplicas", limits->max}};
}

}  // namespace

ordered_json planCase(const json& input, pt::Policy::Kind policyKind, pt::TimePoint now) {
  if (!input.is_object()) throw controller::DecodeError("(top level)", "must be an object");
  const auto federatedIt = input.find("federated");
  if (federatedIt == input.end()) throw controller::DecodeError("federated", "required");
  const controller::FederatedHpa federated = controller::decodeFederatedHpa(*federatedIt, "federated");

  const auto clustersIt = input.find("clusters");
  if (clustersIt == input.end()) throw controller::DecodeError("clusters", "required");
  if (!clustersIt->is_object()) throw controller::DecodeError("clusters", "must be an object of name: HPA or null");

  pt::Policy policy;
  policy.kind = policyKind;
  if (const auto window = input.find("scaleForbiddenWindowSeconds"); window != input.end()) {
    if (!window->is_number_integer() || window->get<long long>() < 0) {
      throw controller::DecodeError("scaleForbiddenWindowSeconds", "must be a non-negative integer");
    }
    policy.scaleForbiddenWindow = std::chrono::seconds{window->get<long long>()};
  }

  std::vector<pt::ClusterState> clusters;
  for (const auto& [name, hpa] : clustersIt->items()) {
    pt::ClusterState cluster;
    cluster.name = name;
    if (!hpa.is_null()) cluster.hpa = controller::decodeLocalHpa(hpa, "clusters." + name);
    if (const auto p = federated.preferences.find(name); p != federated.preferences.end()) {
      cluster.preferences = p->second;
    }
    clusters.push_back(std::move(cluster));
  }
  for (const auto& [name, unused] : federated.preferences) {
    if (!clustersIt->contains(name)) {
      FEDHPA_LOG(warning) << "preferences name cluster " << name << ", which is not in the case";
    }
  }

  const pt::Plan plan = pt::partition(federated.spec, clusters, policy, now);
  ordered_json out;
  out["clusters"] = ordered_json::object();
  for (const pt::ClusterPlan& c : plan.clusters) out["clusters"][c.name] = limitsJson(c.limits);
  out["moves"] = ordered_json::array();
  for (const pt::Move& move : plan.moves) {
    out["moves"].push_back({{"cluster", move.cluster},
                            {"from", limitsJson(move.before)},
                            {"to", limitsJson(move.after)},
                            {"reason", pt::reasonFor(plan, move)}});
  }
  out["reason"] = pt::summaryOf(plan);
  return out;
}

int runPartition(const PartitionArgs& args, std::ostream& out, std::ostream& err) {
  const auto policy = pt::parsePolicyName(args.policy);
  if (!policy) {
    err << "error: --policy: must be legacy or demand, not " << args.policy << "\n";
    return kUsageError;
  }
  pt::TimePoint now = std::chrono::system_clock::now();
  if (args.now) {
    const auto parsed = api::parseRfc3339(*args.now);
    if (!parsed) {
      err << "error: --now: must be an RFC 3339 time (2026-11-22T10:00:00Z), not " << *args.now << "\n";
      return kUsageError;
    }
    now = *parsed;
  }
  const auto text = readInputFile(args.file);
  if (!text) {
    err << "error: -f " << args.file << ": cannot read the file\n";
    return kUsageError;
  }
  const json input = json::parse(*text, nullptr, false);
  if (input.is_discarded()) {
    err << "error: " << args.file << ": not JSON\n";
    return kUsageError;
  }
  try {
    out << planCase(input, *policy, now).dump(2) << "\n";
    return 0;
  } catch (const controller::DecodeError& e) {
    err << "error: " << args.file << ": " << e.what() << "\n";
    return kUsageError;
  }
}

}  // namespace fedhpa::cmd
