#include "federation/apiserver/authz/audit.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "federation/api/machinery/untrusted_json.h"

namespace fedhpa::apiserver::authz {

using nlohmann::json;

namespace {

// metav1.MicroTime: RFC 3339 with microseconds, UTC.
std::string microTime(std::chrono::system_clock::time_point time) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<long long>(micros % 1000000 + (micros < 0 ? 1000000 : 0)));
  return buffer;
}

json userJson(const UserIdentity& user) {
  json out = {{"username", user.name}};
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.groups.empty()) out["groups"] = user.groups;
  if (!user.extra.empty()) out["extra"] = user.extra;
  return out;
}

std::string percentEncoded(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' || c == ':' || c == ',' || c == '=') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

AuditIdGenerator::AuditIdGenerator() {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device(), device(), device(), device(), device()};
  engine_.seed(seed);
}

std::string AuditIdGenerator::next() {
  unsigned char bytes[16];
  {
    std::lock_guard lock(mutex_);
    const std::uint64_t high = engine_(), low = engine_();
    for (int i = 0; i < 8; ++i) {
      bytes[i] = static_cast<unsigned char>(high >> (8 * i));
      bytes[8 + i] = static_cast<unsigned char>(low >> (8 * i));
    }
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", bytes[0],
                bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return out;
}

std::string requestUri(const http::Request& request) {
  std::string uri = percentEncoded(request.path);
  char separator = '?';
  for (const auto& [name, value] : request.query) {
    uri += separator + percentEncoded(name) + "=" + percentEncoded(value);
    separator = '&';
  }
  return uri;
}

json auditEvent(const AuditRecord& record) {
  json event = {{"kind", "Event"},
                {"apiVersion", "audit.k8s.io/v1"},
                {"level", "Metadata"},
                {"auditID", record.auditId},
                {"stage", record.stage},
                {"requestURI", record.requestUri},
                {"verb", record.verb},
                {"user", userJson(record.user)},
                {"sourceIPs", record.sourceIps},
                {"responseStatus", {{"metadata", json::object()}, {"code", record.code}}},
                {"requestReceivedTimestamp", microTime(record.received)},
                {"stageTimestamp", microTime(record.completed)}};
  if (record.impersonatedUser) event["impersonatedUser"] = userJson(*record.impersonatedUser);
  if (!record.userAgent.empty()) event["userAgent"] = record.userAgent;
  if (record.object) {
    const Attributes& a = *record.object;
    json ref = {{"resource", a.resource}, {"apiVersion", a.apiVersion}};
    if (!a.namespaceName.empty()) ref["namespace"] = a.namespaceName;
    if (!a.name.empty()) ref["name"] = a.name;
    if (!a.apiGroup.empty()) ref["apiGroup"] = a.apiGroup;
    if (!a.subresource.empty()) ref["subresource"] = a.subresource;
    event["objectRef"] = ref;
  }
  return event;
}

AuditLog::AuditLog(std::string path, std::uint64_t maxBytes) : path_(std::move(path)), maxBytes_(maxBytes) {
  file_.open(path_, std::ios::app);
  if (!file_) throw std::runtime_error("--audit-log-path " + path_ + ": cannot be opened for writing");
  std::error_code ignored;
  written_ = std::filesystem::file_size(path_, ignored);
}

void AuditLog::rotateIfFull() {
  if (maxBytes_ == 0 || written_ < maxBytes_) return;
  file_.close();
  std::string stamp = microTime(std::chrono::system_clock::now());
  for (char& c : stamp)
    if (c == ':') c = '-';
  std::error_code ignored;
  std::filesystem::rename(path_, path_ + "-" + stamp, ignored);
  file_.open(path_, std::ios::trunc);
  written_ = 0;
}

void AuditLog::write(const AuditRecord& record) {
  const std::string line = api::machinery::dumpSafe(auditEvent(record)) + "\n";
  std::lock_guard lock(mutex_);
  rotateIfFull();
  file_ << line;
  file_.flush();
  written_ += line.size();
}

}  // namespace fedhpa::apiserver::authz
