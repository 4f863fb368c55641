#include "federation/api/validation.h"

#include <regex>

namespace fedhpa::api {

using nlohmann::json;

namespace {

const std::regex& dnsLabelPattern() {
  static const std::regex pattern("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return pattern;
}

const std::regex& dnsSubdomainPattern() {
  static const std::regex pattern("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return pattern;
}

const std::regex& labelValuePattern() {
  static const std::regex pattern("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  return pattern;
}

}  // namespace

bool isDnsSubdomain(const std::string& value) {
  return !value.empty() && value.size() <= 253 && std::regex_match(value, dnsSubdomainPattern());
}

bool isDnsLabel(const std::string& value) {
  return !value.empty() && value.size() <= 63 && std::regex_match(value, dnsLabelPattern());
}

std::vector<StatusCause> validateObjectMeta(const json& object, NameRule rule) {
  std::vector<StatusCause> causes;
  const json& meta = object.contains("metadata") ? object["metadata"] : json::object();
  const std::string name = meta.value("name", "");
  if (name.empty()) {
    causes.push_back(fieldRequired("metadata.name"));
  } else if (rule == NameRule::DnsSubdomain && !isDnsSubdomain(name)) {
    causes.push_back(fieldInvalid(
        "metadata.name", name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  } else if (rule == NameRule::DnsLabel && !isDnsLabel(name)) {
    causes.push_back(fieldInvalid(
        "metadata.name", name,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
  }
  if (meta.contains("labels") && meta["labels"].is_object()) {
    for (const auto& [key, value] : meta["labels"].items()) {
      const std::string text = value.is_string() ? value.get<std::string>() : "";
      if (text.size() > 63 || !std::regex_match(text, labelValuePattern()))
        causes.push_back(fieldInvalid("metadata.labels", text,
                                      "a valid label must be an empty string or consist of alphanumeric characters, "
                                      "'-', '_' or '.', and must start and end with an alphanumeric character"));
    }
  }
  return causes;
}

std::optional<long long> integerAt(const json& object, const json::json_pointer& pointer) {
  if (!object.contains(pointer)) return std::nullopt;
  const json& value = object.at(pointer);
  if (value.is_number_integer()) return value.get<long long>();
  if (value.is_number_float()) return static_cast<long long>(value.get<double>());
  return std::nullopt;
}

}  // namespace fedhpa::api
