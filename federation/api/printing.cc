#include "federation/api/printing.h"

#include "federation/api/time.h"

namespace fedhpa::api {

using nlohmann::json;

std::string humanDuration(std::chrono::seconds duration) {
  const long long seconds = duration.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    const long long rest = seconds % 60;
    return std::to_string(minutes) + "m" + (rest == 0 ? "" : std::to_string(rest) + "s");
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const long long hours = minutes / 60;
  if (hours < 8) {
    const long long rest = minutes % 60;
    return std::to_string(hours) + "h" + (rest == 0 ? "" : std::to_string(rest) + "m");
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const long long rest = hours % 24;
    return std::to_string(hours / 24) + "d" + (rest == 0 ? "" : std::to_string(rest) + "h");
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const long long days = (hours / 24) % 365;
    return std::to_string(hours / 24 / 365) + "y" + (days == 0 ? "" : std::to_string(days) + "d");
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string ageOf(const json& object, Clock::time_point now) {
  const auto created = parseRfc3339(stringAt(object, "/metadata/creationTimestamp"));
  if (!created) return "<unknown>";
  // In seconds: two far-apart times' difference in nanoseconds can overflow 64 bits.
  using std::chrono::seconds;
  return humanDuration(std::chrono::floor<seconds>(now).time_since_epoch() -
                       std::chrono::floor<seconds>(*created).time_since_epoch());
}

std::string stringAt(const json& object, const std::string& pointer, const std::string& fallback) {
  const json::json_pointer path(pointer);
  if (!object.contains(path)) return fallback;
  const json& value = object.at(path);
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  return fallback;
}

TableColumn nameColumn() {
  return {"Name", "string", "name",
          "Name must be unique within a namespace. Is required when creating resources, although some resources may "
          "allow a client to request the generation of an appropriate name automatically.",
          0};
}

TableColumn ageColumn() {
  return {"Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was created.", 0};
}

}  // namespace fedhpa::api
