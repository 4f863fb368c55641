// kube-apiserver's audit log at the Metadata level: one audit.k8s.io/v1 Event per request, as a
// JSON line, saying who (and as whom) did what to which object and with what result.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "federation/apiserver/authz/attributes.h"

namespace fedhpa::apiserver::authz {

struct AuditRecord {
  std::string auditId;
  std::string stage = "ResponseComplete";  // ResponseStarted for a watch: logged when its stream opens
  std::string requestUri;
  std::string verb;
  UserIdentity user;  // the authenticated user
  std::optional<UserIdentity> impersonatedUser;
  std::vector<std::string> sourceIps;
  std::string userAgent;
  std::optional<Attributes> object;  // resource requests: the objectRef
  int code = 0;
  std::chrono::system_clock::time_point received;
  std::chrono::system_clock::time_point completed;
};

nlohmann::json auditEvent(const AuditRecord& record);

// Appends events to a file, one JSON line each, flushed per line. With maxBytes > 0 a full file is
// renamed to PATH-<timestamp> and a new one started (kube's --audit-log-maxsize, in bytes here).
class AuditLog {
 public:
  explicit AuditLog(std::string path, std::uint64_t maxBytes = 0);
  void write(const AuditRecord& record);

 private:
  void rotateIfFull();
  std::string path_;
  std::uint64_t maxBytes_;
  std::mutex mutex_;
  std::ofstream file_;
  std::uint64_t written_ = 0;
};

// Random version-4 UUIDs, as kube-apiserver's audit IDs: unique, not secret, so one seeded engine
// serves every request instead of reading the system's entropy source per request.
class AuditIdGenerator {
 public:
  AuditIdGenerator();
  std::string next();

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_;
};

// "/apis/autoscaling/v2/namespaces/x/horizontalpodautoscalers?watch=true": path and query, re-encoded.
std::string requestUri(const http::Request& request);

}  // namespace fedhpa::apiserver::authz
