#include "federation/api/time_zone.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>

namespace fedhpa::api {

namespace {

constexpr std::int64_t kDaySeconds = 24 * 3600;

// An IANA name is a relative path of letters, digits and "-_+/" (no "..", no leading "/"): it
// cannot name a file outside the database.
bool isZoneName(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string::npos) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '+' || c == '/'; });
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  bool has(std::size_t n) const { return position_ + n <= bytes_.size(); }
  std::int64_t bigEndian(std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value = value << 8 | static_cast<unsigned char>(bytes_[position_ + i]);
    position_ += width;
    if (width == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
    return static_cast<std::int64_t>(value);
  }
  std::uint8_t byte() { return static_cast<unsigned char>(bytes_[position_++]); }
  void skip(std::size_t n) { position_ += n; }

 private:
  const std::string& bytes_;
  std::size_t position_ = 0;
};

struct Counts {
  std::size_t isUt, isStd, leap, time, type, chars;
  std::size_t dataSize(std::size_t timeWidth) const {
    return time * timeWidth + time + type * 6 + chars + leap * (timeWidth + 4) + isStd + isUt;
  }
};

std::optional<Counts> header(Reader& in, char* version) {
  if (!in.has(44)) return std::nullopt;
  std::string magic;
  for (int i = 0; i < 4; ++i) magic += static_cast<char>(in.byte());
  if (magic != "TZif") return std::nullopt;
  *version = static_cast<char>(in.byte());
  in.skip(15);
  Counts counts{};
  for (std::size_t* field : {&counts.isUt, &counts.isStd, &counts.leap, &counts.time, &counts.type, &counts.chars})
    *field = static_cast<std::size_t>(static_cast<std::uint32_t>(in.bigEndian(4)));
  if (counts.type == 0 || counts.time > 100000 || counts.type > 256 || counts.chars > 10000 || counts.leap > 10000) return std::nullopt;
  return counts;
}

}  // namespace

TimeZone::TimeZone(std::string name, std::vector<std::int64_t> transitions, std::vector<std::int32_t> offsets, std::int32_t initial)
    : name_(std::move(name)), transitions_(std::move(transitions)), offsets_(std::move(offsets)), initialOffset_(initial) {}

TimeZone TimeZone::utc() { return TimeZone("UTC", {}, {}, 0); }

std::optional<TimeZone> TimeZone::load(const std::string& name, std::string* error, const std::string& database) {
  if (name.empty() || name == "UTC") return utc();
  if (!isZoneName(name)) {
    if (error) *error = "unknown time zone " + name;
    return std::nullopt;
  }
  std::ifstream file(database + "/" + name, std::ios::binary);
  if (!file) {
    if (error) *error = "unknown time zone " + name;
    return std::nullopt;
  }
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return fromTzif(name, bytes, error);
}

std::optional<TimeZone> TimeZone::fromTzif(const std::string& name, const std::string& bytes, std::string* error) {
  auto fail = [&]() -> std::optional<TimeZone> {
    if (error) *error = "unknown time zone " + name + " (not a TZif file)";
    return std::nullopt;
  };
  Reader in(bytes);
  char version = 0;
  auto counts = header(in, &version);
  if (!counts || !in.has(counts->dataSize(4))) return fail();
  std::size_t timeWidth = 4;
  if (version >= '2') {  // skip the 32-bit block: the 64-bit one after it covers every year
    in.skip(counts->dataSize(4));
    counts = header(in, &version);
    if (!counts) return fail();
    timeWidth = 8;
  }
  if (!in.has(counts->dataSize(timeWidth))) return fail();
  std::vector<std::int64_t> times(counts->time);
  for (auto& time : times) time = in.bigEndian(timeWidth);
  std::vector<std::uint8_t> typeOf(counts->time);
  for (auto& type : typeOf) type = in.byte();
  std::vector<std::int32_t> typeOffsets(counts->type);
  std::vector<bool> typeDst(counts->type);
  for (std::size_t i = 0; i < counts->type; ++i) {
    typeOffsets[i] = static_cast<std::int32_t>(in.bigEndian(4));
    typeDst[i] = in.byte() != 0;
    in.byte();  // abbreviation index
  }
  std::vector<std::int32_t> offsets;
  for (const auto type : typeOf) {
    if (type >= counts->type) return fail();
    offsets.push_back(typeOffsets[type]);
  }
  // Before the first transition: the first standard-time type, as RFC 8536 suggests.
  std::int32_t initial = typeOffsets[0];
  for (std::size_t i = 0; i < counts->type; ++i)
    if (!typeDst[i]) {
      initial = typeOffsets[i];
      break;
    }
  if (!std::is_sorted(times.begin(), times.end())) return fail();
  return TimeZone(name, std::move(times), std::move(offsets), initial);
}

std::chrono::seconds TimeZone::offsetAt(SystemTime instant) const {
  const std::int64_t at = std::chrono::floor<std::chrono::seconds>(instant.time_since_epoch()).count();
  const auto after = std::upper_bound(transitions_.begin(), transitions_.end(), at);
  if (after == transitions_.begin()) return std::chrono::seconds(initialOffset_);
  return std::chrono::seconds(offsets_[static_cast<std::size_t>(after - transitions_.begin() - 1)]);
}

LocalSeconds TimeZone::toLocal(SystemTime instant) const {
  return std::chrono::floor<std::chrono::seconds>(instant.time_since_epoch()) + offsetAt(instant);
}

std::vector<SystemTime> TimeZone::instantsOf(LocalSeconds local) const {
  // Only offsets in effect within a day of `local` can map to it.
  std::set<std::int32_t> candidates{static_cast<std::int32_t>(offsetAt(SystemTime(local - std::chrono::seconds(kDaySeconds))).count())};
  const std::int64_t from = local.count() - kDaySeconds, to = local.count() + kDaySeconds;
  for (auto it = std::lower_bound(transitions_.begin(), transitions_.end(), from); it != transitions_.end() && *it <= to; ++it)
    candidates.insert(offsets_[static_cast<std::size_t>(it - transitions_.begin())]);
  std::vector<SystemTime> out;
  for (const auto offset : candidates) {
    const SystemTime instant(local - std::chrono::seconds(offset));
    if (offsetAt(instant).count() == offset) out.push_back(instant);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<SystemTime> TimeZone::gapEnd(LocalSeconds local) const {
  const std::int64_t from = local.count() - kDaySeconds, to = local.count() + kDaySeconds;
  for (auto it = std::lower_bound(transitions_.begin(), transitions_.end(), from); it != transitions_.end() && *it <= to; ++it) {
    const std::int64_t at = *it;
    const auto before = offsetAt(SystemTime(std::chrono::seconds(at - 1))).count();
    const auto after = offsets_[static_cast<std::size_t>(it - transitions_.begin())];
    if (at + before <= local.count() && local.count() < at + after) return SystemTime(std::chrono::seconds(at));
  }
  return std::nullopt;
}

}  // namespace fedhpa::api
