#include "federation/apiserver/object_meta.h"

#include <random>

#include "federation/api/time.h"

namespace fedhpa::apiserver {

namespace {

std::mt19937_64& randomSource() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

json withoutMetadataAndStatus(const json& object) {
  json copy = object;
  copy.erase("metadata");
  copy.erase("status");
  copy.erase("apiVersion");
  copy.erase("kind");
  return copy;
}

}  // namespace

std::string metaString(const json& object, const char* field) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  const auto value = meta->find(field);
  return value != meta->end() && value->is_string() ? value->get<std::string>() : "";
}

std::optional<std::int64_t> resourceVersionOf(const json& object) {
  const std::string text = metaString(object, "resourceVersion");
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::int64_t value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw api::ApiError::badRequest("invalid resourceVersion " + api::quoted(text));
}

std::vector<std::string> finalizersOf(const json& object) {
  std::vector<std::string> out;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  const auto finalizers = meta->find("finalizers");
  if (finalizers == meta->end() || !finalizers->is_array()) return out;
  for (const auto& f : *finalizers)
    if (f.is_string()) out.push_back(f.get<std::string>());
  return out;
}

void setFinalizers(json& object, const std::vector<std::string>& finalizers) {
  if (finalizers.empty())
    object["metadata"].erase("finalizers");
  else
    object["metadata"]["finalizers"] = finalizers;
}

bool isBeingDeleted(const json& object) { return !metaString(object, "deletionTimestamp").empty(); }

std::map<std::string, std::string> labelsOf(const json& object) {
  std::map<std::string, std::string> out;
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  const auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return out;
  for (const auto& [key, value] : labels->items())
    if (value.is_string()) out[key] = value.get<std::string>();
  return out;
}

std::string newUid() {
  std::uniform_int_distribution<int> nibble(0, 15);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string uid = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx";
  for (char& c : uid) {
    if (c == 'x') c = kHex[nibble(randomSource())];
    if (c == 'y') c = kHex[8 + nibble(randomSource()) % 4];  // RFC 4122 variant bits
  }
  return uid;
}

std::string rfc3339Now(api::Clock::time_point now) { return api::formatRfc3339(now); }

std::string generateNameFrom(const std::string& prefix) {
  // kube-apiserver's alphabet leaves out vowels and look-alikes so names never spell words.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string name = prefix.substr(0, 58);
  for (int i = 0; i < 5; ++i) name += kAlphabet[pick(randomSource())];
  return name;
}

bool specDiffers(const json& a, const json& b) { return withoutMetadataAndStatus(a) != withoutMetadataAndStatus(b); }

}  // namespace fedhpa::apiserver
