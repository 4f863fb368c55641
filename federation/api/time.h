// RFC 3339 times as Kubernetes writes them (metav1.Time: "2026-11-22T10:00:00Z").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fedhpa::api {

using TimePoint = std::chrono::system_clock::time_point;

// Accepts "YYYY-MM-DDTHH:MM:SS", optional fractional seconds, then "Z" or "+HH:MM"/"-HH:MM".
// nullopt also for times a system_clock::time_point cannot hold (before 1678 or after 2262).
std::optional<TimePoint> parseRfc3339(std::string_view text);

// Second precision, UTC, "Z": what metav1.Time serialises to.
std::string formatRfc3339(TimePoint time);

}  // namespace fedhpa::api
