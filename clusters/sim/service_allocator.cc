#include "clusters/sim/service_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "federation/api/status.h"

namespace fedhpa::sim {

using nlohmann::json;

namespace {

// kube's static subrange: the lower part of a range, picked last by dynamic allocation.
std::int64_t staticBand(std::int64_t size, std::int64_t min, std::int64_t max, std::int64_t step) {
  if (size < min) return 0;
  return std::clamp(size / step, min, max);
}

bool needsNodePorts(const json& spec) {
  const std::string type = spec.value("type", "ClusterIP");
  return type == "NodePort" || (type == "LoadBalancer" && spec.value("allocateLoadBalancerNodePorts", true));
}

bool needsHealthCheckNodePort(const json& spec) {
  return spec.value("type", "ClusterIP") == "LoadBalancer" && spec.value("externalTrafficPolicy", "Cluster") == "Local";
}

bool isExternalName(const json& spec) { return spec.value("type", "ClusterIP") == "ExternalName"; }

// kube's patchAllocatedValues: what an update leaves out and the stored Service holds is kept, so
// that a PUT of a manifest without them (kubectl replace, a controller's full update) works.
void keepAllocated(json& spec, const json& currentSpec) {
  if (!isExternalName(spec) && !isExternalName(currentSpec) && spec.value("clusterIP", "").empty() &&
      spec.value("clusterIPs", json::array()).empty() && !currentSpec.value("clusterIP", "").empty()) {
    for (const char* field : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"})
      if (currentSpec.contains(field) && !spec.contains(field)) spec[field] = currentSpec[field];
  }
  if (needsNodePorts(spec) && needsNodePorts(currentSpec) && spec.contains("ports") && spec["ports"].is_array()) {
    std::map<std::string, json> byName;
    std::vector<json> used;
    for (const auto& port : currentSpec.value("ports", json::array()))
      if (port.is_object() && port.contains("nodePort")) byName[port.value("name", "")] = port["nodePort"];
    for (const auto& port : spec["ports"])
      if (port.is_object() && port.contains("nodePort")) used.push_back(port["nodePort"]);
    for (auto& port : spec["ports"]) {
      if (!port.is_object() || port.contains("nodePort")) continue;
      const auto kept = byName.find(port.value("name", ""));
      if (kept != byName.end() && std::find(used.begin(), used.end(), kept->second) == used.end()) port["nodePort"] = kept->second;
    }
  }
  if (needsHealthCheckNodePort(spec) && needsHealthCheckNodePort(currentSpec) && !spec.contains("healthCheckNodePort") &&
      currentSpec.contains("healthCheckNodePort"))
    spec["healthCheckNodePort"] = currentSpec["healthCheckNodePort"];
}

// kube's dropTypeDependentFields: a Service changed to a type that needs no cluster IP or node
// ports loses those it still carries unchanged from before (a patch of the type alone).
void dropTypeDependent(json& spec, const json& currentSpec) {
  if (isExternalName(spec) && !isExternalName(currentSpec) && spec.value("clusterIP", "") == currentSpec.value("clusterIP", ""))
    for (const char* field : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) spec.erase(field);
  if (!needsNodePorts(spec) && needsNodePorts(currentSpec) && spec.contains("ports") && spec["ports"].is_array()) {
    const json before = currentSpec.value("ports", json::array());
    for (std::size_t i = 0; i < spec["ports"].size(); ++i) {
      json& port = spec["ports"][i];
      if (port.is_object() && i < before.size() && before[i].is_object() && port.value("nodePort", json()) == before[i].value("nodePort", json()))
        port.erase("nodePort");
    }
  }
  if (!needsHealthCheckNodePort(spec) && needsHealthCheckNodePort(currentSpec) &&
      spec.value("healthCheckNodePort", json()) == currentSpec.value("healthCheckNodePort", json()))
    spec.erase("healthCheckNodePort");
}

std::string ownerOf(const json& service) {
  const json metadata = service.value("metadata", json::object());
  return metadata.value("namespace", "") + "/" + metadata.value("name", "");
}

}  // namespace

std::optional<std::int64_t> parseIPv4(const std::string& text) {
  std::int64_t address = 0;
  std::size_t at = 0;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0 && (at >= text.size() || text[at++] != '.')) return std::nullopt;
    const std::size_t start = at;
    std::int64_t value = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9' && at - start < 3) value = value * 10 + (text[at++] - '0');
    if (at == start || value > 255 || (at - start > 1 && text[start] == '0')) return std::nullopt;
    address = address * 256 + value;
  }
  if (at != text.size()) return std::nullopt;
  return address;
}

std::string formatIPv4(std::int64_t address) {
  return std::to_string((address >> 24) & 255) + "." + std::to_string((address >> 16) & 255) + "." +
         std::to_string((address >> 8) & 255) + "." + std::to_string(address & 255);
}

bool ServiceAllocator::Write::claimedHere(Kind kind, std::int64_t value) const {
  return std::find(claimed.begin(), claimed.end(), std::pair{kind, value}) != claimed.end();
}

ServiceAllocator::ServiceAllocator(ServiceAllocatorOptions options, Lookup stored)
    : stored_(std::move(stored)), ipRange_(options.serviceClusterIpRange), random_(std::random_device{}()) {
  const auto slash = ipRange_.find('/');
  const auto base = parseIPv4(ipRange_.substr(0, slash));
  const int prefix = slash == std::string::npos ? -1 : std::atoi(ipRange_.c_str() + slash + 1);
  if (!base || prefix < 1 || prefix > 30) throw std::invalid_argument("not an IPv4 CIDR of /1 to /30: " + ipRange_);
  const std::int64_t size = std::int64_t{1} << (32 - prefix);
  const std::int64_t network = *base & ~(size - 1);
  // Neither the network's nor the broadcast address, as kube's IPv4 allocator.
  ips_.first = network + 1;
  ips_.last = network + size - 2;
  ips_.staticBand = staticBand(ips_.last - ips_.first + 1, 16, 256, 16);
  if (options.nodePortFirst < 1 || options.nodePortLast > 65535 || options.nodePortFirst > options.nodePortLast)
    throw std::invalid_argument("not a port range: " + std::to_string(options.nodePortFirst) + "-" + std::to_string(options.nodePortLast));
  ports_.first = options.nodePortFirst;
  ports_.last = options.nodePortLast;
  ports_.staticBand = staticBand(ports_.last - ports_.first + 1, 16, 128, 32);
}

apiserver::WriteHooks ServiceAllocator::hooks() {
  return {[this](json& service) { return begin(service, nullptr); },
          [this](const json& current, json& next) { return begin(next, &current); }};
}

bool ServiceAllocator::storedHolds(const std::string& owner, Kind kind, std::int64_t value) {
  const auto slash = owner.find('/');
  const auto service = stored_(owner.substr(0, slash), owner.substr(slash + 1));
  if (!service) return false;
  const json spec = service->value("spec", json::object());
  if (kind == Kind::ClusterIp) return parseIPv4(spec.value("clusterIP", "")) == value;
  if (spec.value("healthCheckNodePort", json()) == value) return true;
  for (const auto& port : spec.value("ports", json::array()))
    if (port.is_object() && port.value("nodePort", json()) == value) return true;
  return false;
}

void ServiceAllocator::claim(Write& write, Kind kind, std::int64_t value) {
  pool(kind).claims[value] = write.owner;
  write.claimed.emplace_back(kind, value);
}

bool ServiceAllocator::takeRequested(Write& write, Kind kind, std::int64_t value) {
  const auto it = pool(kind).claims.find(value);
  // Free; this write's already (a port's nodePort shared by its TCP and UDP twin); this Service's
  // (an update); or held by a Service that no longer holds it.
  const bool free = it == pool(kind).claims.end() || write.claimedHere(kind, value) || it->second == write.owner ||
                    !storedHolds(it->second, kind, value);
  if (free && !write.claimedHere(kind, value)) claim(write, kind, value);
  return free;
}

std::optional<std::int64_t> ServiceAllocator::takeAny(Write& write, Kind kind) {
  Pool& from = pool(kind);
  const auto freeAt = [&](std::int64_t value) {
    if (write.claimedHere(kind, value)) return false;
    const auto it = from.claims.find(value);
    return it == from.claims.end() || !storedHolds(it->second, kind, value);
  };
  // A random start in each band, then every value after it (kube's random scan).
  const auto scan = [&](std::int64_t low, std::int64_t high) -> std::optional<std::int64_t> {
    if (low > high) return std::nullopt;
    const std::int64_t size = high - low + 1;
    const std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, size - 1)(random_);
    for (std::int64_t k = 0; k < size; ++k) {
      const std::int64_t value = low + (start + k) % size;
      if (freeAt(value)) return value;
    }
    return std::nullopt;
  };
  auto value = scan(from.first + from.staticBand, from.last);
  if (!value) value = scan(from.first, from.first + from.staticBand - 1);
  if (value) claim(write, kind, *value);
  return value;
}

void ServiceAllocator::allocateClusterIp(json& spec, Write& write, std::vector<api::StatusCause>& causes) {
  if (isExternalName(spec)) return;
  std::string requested = spec.value("clusterIP", "");
  const json clusterIPs = spec.value("clusterIPs", json::array());
  if (requested.empty() && clusterIPs.is_array() && !clusterIPs.empty() && clusterIPs[0].is_string())
    requested = clusterIPs[0].get<std::string>();
  if (requested == "None") {
    spec["clusterIP"] = "None";
    spec["clusterIPs"] = json::array({"None"});
  } else if (requested.empty()) {
    const auto address = takeAny(write, Kind::ClusterIp);
    if (!address) throw api::ApiError::internal("failed to allocate a serviceIP: range is full");
    spec["clusterIP"] = formatIPv4(*address);
    spec["clusterIPs"] = json::array({formatIPv4(*address)});
  } else {
    const auto address = parseIPv4(requested);
    if (!address) return;  // validation names it
    const std::string value = "Invalid value: []string{" + api::quoted(requested) + "}: failed to allocate IP " + requested + ": ";
    if (*address < ips_.first || *address > ips_.last) {
      causes.push_back({"FieldValueInvalid",
                        value + "the provided IP (" + requested + ") is not in the valid range. The range of valid IPs is " + ipRange_,
                        "spec.clusterIPs"});
      return;
    }
    if (!takeRequested(write, Kind::ClusterIp, *address)) {
      causes.push_back({"FieldValueInvalid", value + "provided IP is already allocated", "spec.clusterIPs"});
      return;
    }
    spec["clusterIP"] = requested;
    if (!clusterIPs.is_array() || clusterIPs.empty()) spec["clusterIPs"] = json::array({requested});
  }
  if (!spec.contains("ipFamilies")) spec["ipFamilies"] = json::array({"IPv4"});
  if (!spec.contains("ipFamilyPolicy")) spec["ipFamilyPolicy"] = "SingleStack";
}

void ServiceAllocator::allocateNodePorts(json& spec, Write& write, std::vector<api::StatusCause>& causes) {
  const auto take = [&](json& holder, const char* field, const std::string& path) {
    if (!holder.contains(field)) {
      const auto port = takeAny(write, Kind::NodePort);
      if (!port) throw api::ApiError::internal("failed to allocate a nodePort: range is full");
      holder[field] = *port;
      return;
    }
    if (!holder[field].is_number_integer()) return;  // a type error, refused before this
    const std::int64_t port = holder[field].get<std::int64_t>();
    if (port < ports_.first || port > ports_.last)
      causes.push_back(api::fieldInvalid(path, port, "provided port is not in the valid range. The range of valid ports is " +
                                                         std::to_string(ports_.first) + "-" + std::to_string(ports_.last)));
    else if (!takeRequested(write, Kind::NodePort, port))
      causes.push_back(api::fieldInvalid(path, port, "provided port is already allocated"));
  };
  if (needsNodePorts(spec) && spec.contains("ports") && spec["ports"].is_array())
    for (std::size_t i = 0; i < spec["ports"].size(); ++i)
      if (spec["ports"][i].is_object()) take(spec["ports"][i], "nodePort", "spec.ports[" + std::to_string(i) + "].nodePort");
  if (needsHealthCheckNodePort(spec)) take(spec, "healthCheckNodePort", "spec.healthCheckNodePort");
}

apiserver::WriteHooks::Finish ServiceAllocator::begin(json& service, const json* current) {
  auto lock = std::make_shared<std::unique_lock<std::mutex>>(writeMutex_);
  if (!service.contains("spec") || !service["spec"].is_object()) return [lock](bool) {};
  json& spec = service["spec"];
  if (current) {
    const json currentSpec = current->value("spec", json::object());
    dropTypeDependent(spec, currentSpec);
    keepAllocated(spec, currentSpec);
  }
  auto write = std::make_shared<Write>(Write{ownerOf(service), {}});
  std::vector<api::StatusCause> causes;
  try {
    allocateClusterIp(spec, *write, causes);
    allocateNodePorts(spec, *write, causes);
  } catch (...) {
    release(*write);
    throw;
  }
  if (!causes.empty()) {
    release(*write);
    throw api::ApiError::invalid("", "Service", service.value("metadata", json::object()).value("name", ""), std::move(causes));
  }
  return [this, lock, write](bool committed) {
    if (!committed) release(*write);
    lock->unlock();
  };
}

void ServiceAllocator::release(const Write& write) {
  for (const auto& [kind, value] : write.claimed) {
    auto& claims = pool(kind).claims;
    const auto it = claims.find(value);
    if (it != claims.end() && it->second == write.owner && !storedHolds(write.owner, kind, value)) claims.erase(it);
  }
}

}  // namespace fedhpa::sim
