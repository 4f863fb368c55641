#include "federation/controller/write_expectations.h"

#include <charconv>

namespace fedhpa::controller {

using clusters::json;

namespace {

std::optional<unsigned long long> asNumber(const std::string& version) {
  unsigned long long value = 0;
  const auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), value);
  if (error != std::errc() || end != version.data() + version.size() || version.empty()) return std::nullopt;
  return value;
}

std::string versionOf(const json& object) {
  const auto metadata = object.find("metadata");
  return metadata != object.end() && metadata->is_object() ? metadata->value("resourceVersion", "") : "";
}

}  // namespace

bool resourceVersionAtLeast(const std::string& a, const std::string& b) {
  const auto left = asNumber(a), right = asNumber(b);
  if (left && right) return *left >= *right;
  return a == b;
}

WriteExpectations::WriteExpectations(std::function<void(const std::string& key)> missed) : missed_(std::move(missed)) {}

WriteExpectations::Membership WriteExpectations::writing(const std::string& member, const std::string& key) {
  std::lock_guard lock(mutex_);
  if (missed_) ++inFlight_[{member, key}].writes;
  const auto it = memberships_.find(member);
  return it == memberships_.end() ? 0 : it->second;
}

bool WriteExpectations::leftSince(const std::string& member, std::optional<Membership> sentIn) const {
  if (!sentIn) return false;
  const auto it = memberships_.find(member);
  return (it == memberships_.end() ? 0 : it->second) != *sentIn;
}

bool WriteExpectations::finishWrite(const std::string& member, const std::string& key, const std::string& version) {
  const auto it = inFlight_.find({member, key});
  if (it == inFlight_.end()) return false;  // forgotten meanwhile
  InFlight& writes = it->second;
  if (!version.empty()) writes.answered.push_back(version);
  if (--writes.writes > 0) return false;
  const bool missed = std::any_of(writes.arrived.begin(), writes.arrived.end(), [&](const std::string& arrived) {
    return std::find(writes.answered.begin(), writes.answered.end(), arrived) == writes.answered.end();
  });
  inFlight_.erase(it);
  return missed;
}

void WriteExpectations::notWritten(const std::string& member, const std::string& key, std::optional<Membership> sentIn) {
  bool missed;
  {
    std::lock_guard lock(mutex_);
    missed = !leftSince(member, sentIn) && finishWrite(member, key, "");
  }
  if (missed) missed_(key);
}

void WriteExpectations::written(const std::string& member, const std::string& key, const json& object, const std::string& basedOn,
                                std::optional<Membership> sentIn) {
  const std::string version = versionOf(object);
  bool missed;
  {
    std::lock_guard lock(mutex_);
    if (leftSince(member, sentIn)) return;  // what it held back went with the member
    const auto writes = inFlight_.find({member, key});
    const bool shown = writes != inFlight_.end() &&
                       std::any_of(writes->second.arrived.begin(), writes->second.arrived.end(),
                                   [&](const std::string& arrived) { return resourceVersionAtLeast(arrived, version); });
    entries_[{member, key}] = Entry{object, version, basedOn, shown};
    missed = finishWrite(member, key, version);
  }
  if (missed) missed_(key);
}

void WriteExpectations::deleted(const std::string& member, const std::string& key, const std::string& lastVersion) {
  std::lock_guard lock(mutex_);
  entries_[{member, key}] = Entry{std::nullopt, lastVersion, ""};
}

std::optional<json> WriteExpectations::current(const std::string& member, const std::string& key,
                                               const std::function<std::optional<json>()>& readCache) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find({member, key});
  std::optional<json> cached = readCache();
  if (it == entries_.end()) return cached;
  const Entry& entry = it->second;
  bool caughtUp;
  if (entry.object) {
    caughtUp = cached ? resourceVersionAtLeast(versionOf(*cached), entry.resourceVersion) : entry.shown;
  } else {
    // Gone from the cache, or the cache holds a newer object (created again since).
    caughtUp = !cached || (versionOf(*cached) != entry.resourceVersion &&
                           resourceVersionAtLeast(versionOf(*cached), entry.resourceVersion));
  }
  if (!caughtUp) return entry.object;
  entries_.erase(it);
  return cached;
}

void WriteExpectations::unanswered(const std::string& member, const std::string& key, const std::string& baseVersion,
                                   MonotonicTime at, std::optional<Membership> sentIn) {
  std::lock_guard lock(mutex_);
  if (leftSince(member, sentIn)) return;
  unanswered_[{member, key}] = UnansweredWrite{baseVersion, at};
}

WriteExpectations::Unanswered WriteExpectations::unansweredWrite(const std::string& member, const std::string& key,
                                                                  const std::optional<json>& cached, MonotonicTime now,
                                                                  bool answering, std::chrono::seconds window) {
  std::lock_guard lock(mutex_);
  const auto it = unanswered_.find({member, key});
  if (it == unanswered_.end()) return Unanswered::None;
  UnansweredWrite& write = it->second;
  if (!answering) write.answeringSince = now;
  const std::string shown = cached ? versionOf(*cached) : "";
  if (cached && shown != write.baseVersion && (write.baseVersion.empty() || resourceVersionAtLeast(shown, write.baseVersion))) {
    unanswered_.erase(it);
    return Unanswered::None;
  }
  return now - write.answeringSince < window ? Unanswered::Pending : Unanswered::Due;
}

void WriteExpectations::settled(const std::string& member, const std::string& key) {
  std::lock_guard lock(mutex_);
  unanswered_.erase({member, key});
}

std::optional<json> WriteExpectations::ownWriteOver(const std::string& member, const std::string& key, const std::string& baseVersion) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find({member, key});
  if (it == entries_.end() || !it->second.object || baseVersion.empty() || it->second.basedOn != baseVersion) return std::nullopt;
  return it->second.object;
}

bool WriteExpectations::cacheShows(const std::string& member, const std::string& key, const std::string& resourceVersion) {
  if (resourceVersion.empty()) return false;
  std::lock_guard lock(mutex_);
  const auto writes = inFlight_.find({member, key});
  const bool heldBack = writes != inFlight_.end();
  if (heldBack) writes->second.arrived.push_back(resourceVersion);
  const auto it = entries_.find({member, key});
  if (it == entries_.end() || !it->second.object) return heldBack;
  const bool own = it->second.resourceVersion == resourceVersion;
  if (resourceVersionAtLeast(resourceVersion, it->second.resourceVersion)) entries_.erase(it);
  return own || heldBack;
}

void WriteExpectations::forgetKey(const std::string& key) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) it = it->first.second == key ? entries_.erase(it) : std::next(it);
  for (auto it = unanswered_.begin(); it != unanswered_.end();) it = it->first.second == key ? unanswered_.erase(it) : std::next(it);
}

void WriteExpectations::forgetMember(const std::string& member) {
  std::lock_guard lock(mutex_);
  ++memberships_[member];
  for (auto it = entries_.begin(); it != entries_.end();) it = it->first.first == member ? entries_.erase(it) : std::next(it);
  for (auto it = unanswered_.begin(); it != unanswered_.end();) it = it->first.first == member ? unanswered_.erase(it) : std::next(it);
  for (auto it = inFlight_.begin(); it != inFlight_.end();) it = it->first.first == member ? inFlight_.erase(it) : std::next(it);
}

std::size_t WriteExpectations::pending() const {
  std::lock_guard lock(mutex_);
  return entries_.size() + unanswered_.size();
}

}  // namespace fedhpa::controller
