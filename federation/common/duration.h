// Durations as Go's time.ParseDuration reads them, so that every fedhpa flag takes what
// kube-controller-manager's flags take: "300ms", "1.5h", "2h45m", "1m30s", "0s", "0".
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace fedhpa {

// A sequence of decimal numbers, each with an optional fraction and a unit among ns, us (µs, μs),
// ms, s, m, h, with an optional leading sign; "0" alone needs no unit. nullopt when malformed or
// beyond what a signed 64-bit count of nanoseconds holds, as Go.
std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view text);

// A duration flag's value: parseGoDuration, negative durations rejected, in milliseconds rounded
// up so that no positive duration becomes zero.
std::optional<std::chrono::milliseconds> parseDurationFlag(std::string_view text);

// What a usage error about a duration flag says after the flag's name.
inline constexpr const char* kDurationSyntax = "durations look like 30s, 500ms, 2m, 1m30s";

}  // namespace fedhpa
