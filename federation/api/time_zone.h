// An IANA time zone read from the system's tz database (/usr/share/zoneinfo, TZif files), for
// CronFederatedHPA rules' timeZone. Pure after loading: no global state (the process's TZ is
// never read or set), so rules in different zones are evaluated side by side.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "federation/common/time_source.h"

namespace fedhpa::api {

// Civil (wall-clock) time in some zone, as seconds since 1970-01-01 00:00 of that wall clock.
using LocalSeconds = std::chrono::seconds;

class TimeZone {
 public:
  // "Europe/Berlin", "America/New_York", "UTC"; "" is UTC, as Go's time.LoadLocation has it.
  // nullopt (and *error says why) for a name the database does not hold or a malformed file.
  static std::optional<TimeZone> load(const std::string& name, std::string* error,
                                      const std::string& database = "/usr/share/zoneinfo");
  // A TZif file's bytes (version 1, 2 or 3; the 64-bit data is used when present).
  static std::optional<TimeZone> fromTzif(const std::string& name, const std::string& bytes, std::string* error);
  static TimeZone utc();

  const std::string& name() const { return name_; }
  // UTC offset in effect at `instant`. Past the file's last transition the last offset holds
  // (Debian's tzdata files list transitions up to 2037).
  std::chrono::seconds offsetAt(SystemTime instant) const;
  LocalSeconds toLocal(SystemTime instant) const;
  // The instants whose wall-clock time is `local`, earliest first: one; two where clocks fall back
  // (the repeated hour); none in a spring-forward gap.
  std::vector<SystemTime> instantsOf(LocalSeconds local) const;
  // For a `local` inside a spring-forward gap: the instant the gap ends (clocks jumped past it).
  std::optional<SystemTime> gapEnd(LocalSeconds local) const;

 private:
  TimeZone(std::string name, std::vector<std::int64_t> transitions, std::vector<std::int32_t> offsets, std::int32_t initial);

  std::string name_;
  std::vector<std::int64_t> transitions_;  // seconds since the epoch, ascending
  std::vector<std::int32_t> offsets_;      // UTC offset from transitions_[i] on
  std::int32_t initialOffset_ = 0;         // before the first transition
};

}  // namespace fedhpa::api
