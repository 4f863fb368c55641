// What kube-apiserver allocates for a Service, for the member-sim (the federation's API server
// allocates nothing): a cluster IP from the service CIDR (--service-cluster-ip-range, kube's
// default 10.96.0.0/12) for every Service but an ExternalName one, and a node port
// (--service-node-port-range, 30000-32767) for each port of a NodePort Service, or of a
// LoadBalancer one that allocates node ports, plus a healthCheckNodePort for a LoadBalancer with
// externalTrafficPolicy Local. As in kube:
//   - no value is held by two Services; an explicitly requested value is honoured when it is in
//     the range and free, else the write is refused with kube's 422 ("provided IP is already
//     allocated", "provided port is not in the valid range. ...");
//   - what a request leaves empty is picked at random, from the upper part of the range first
//     (the lower part is kept for explicit requests: kube's static subrange);
//   - "None" (headless) stays None; an update that leaves clusterIP or a nodePort out keeps what
//     the Service holds (kube's patchAllocatedValues: node ports by port name), and clusterIP is
//     immutable once set (the Service type's validation);
//   - a value goes back to the pool when no stored Service holds it any more (deleted, changed).
//
// How: the allocator keeps a claim (value -> Service) per allocated value. It runs as the
// Service store's WriteHooks, and one Service write at a time holds it from its begin to its
// finish (kube serializes allocations through the bitmap it keeps in etcd), so a claim is never
// raced. A claim is checked against the stored Service before a value is refused or reused: a
// deleted or changed Service's values are free again without the allocator being told of the
// deletion. What an abandoned write claimed (refused, retried, a dry run) and its stored Service
// does not hold is released at its finish.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "federation/api/status.h"
#include "federation/apiserver/resource_store.h"

namespace fedhpa::sim {

struct ServiceAllocatorOptions {
  std::string serviceClusterIpRange = "10.96.0.0/12";  // IPv4 only
  long long nodePortFirst = 30000;
  long long nodePortLast = 32767;
};

class ServiceAllocator {
 public:
  // The Service ns/name as stored now; nullopt when there is none.
  using Lookup = std::function<std::optional<nlohmann::json>(const std::string& namespaceName, const std::string& name)>;
  // Throws std::invalid_argument on a range that does not parse.
  ServiceAllocator(ServiceAllocatorOptions options, Lookup stored);

  // For the Service store: ResourceStore::setWriteHooks(allocator.hooks()). The allocator must
  // outlive the store's writes.
  apiserver::WriteHooks hooks();

  // Fills in `service`'s allocations (throws api::ApiError when one is refused); the Finish says
  // whether the write was committed. `current`: the stored Service, on update.
  apiserver::WriteHooks::Finish begin(nlohmann::json& service, const nlohmann::json* current);

 private:
  struct Pool {
    std::map<std::int64_t, std::string> claims;  // value -> "namespace/name"
    std::int64_t first = 0;                      // the range, inclusive
    std::int64_t last = 0;
    std::int64_t staticBand = 0;  // values first..first+staticBand-1 are picked only when the rest are taken
  };
  enum class Kind { ClusterIp, NodePort };
  // One write's view: which Service, and what it claimed so far.
  struct Write {
    std::string owner;
    std::vector<std::pair<Kind, std::int64_t>> claimed;
    bool claimedHere(Kind kind, std::int64_t value) const;
  };

  Pool& pool(Kind kind) { return kind == Kind::ClusterIp ? ips_ : ports_; }
  // Whether the Service `owner` as stored holds `value`.
  bool storedHolds(const std::string& owner, Kind kind, std::int64_t value);
  // Takes an explicitly requested value: false when another Service holds it.
  bool takeRequested(Write& write, Kind kind, std::int64_t value);
  // Takes a free value, at random from above the static band first; nullopt when none is free.
  std::optional<std::int64_t> takeAny(Write& write, Kind kind);
  void claim(Write& write, Kind kind, std::int64_t value);
  void allocateClusterIp(nlohmann::json& spec, Write& write, std::vector<api::StatusCause>& causes);
  void allocateNodePorts(nlohmann::json& spec, Write& write, std::vector<api::StatusCause>& causes);
  // The write's claims its stored Service does not hold are released (an abandoned write).
  void release(const Write& write);

  Lookup stored_;
  std::mutex writeMutex_;  // held from a write's begin to its finish
  Pool ips_;
  Pool ports_;
  std::string ipRange_;  // as given, for messages
  std::mt19937_64 random_;
};

// "10.96.0.10" <-> 0x0a60000a; nullopt when the text is not a dotted quad.
std::optional<std::int64_t> parseIPv4(const std::string& text);
std::string formatIPv4(std::int64_t address);

}  // namespace fedhpa::sim
