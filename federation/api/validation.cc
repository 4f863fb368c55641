#include "federation/api/validation.h"
#include "federation/common/ascii.h"

#include <algorithm>
#include <cctype>
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

bool isAlphanumeric(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], without a regex (std::regex recurses per character).
bool matchesQualifiedNamePart(const std::string& name) {
  if (name.empty() || !isAlphanumeric(name.front()) || !isAlphanumeric(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return isAlphanumeric(c) || c == '-' || c == '_' || c == '.'; });
}

const char* const kQualifiedNameRule =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// apimachinery's IsQualifiedName: an optional DNS subdomain prefix and '/', then a name of at most 63 characters.
std::vector<std::string> qualifiedNameErrors(const std::string& value) {
  std::vector<std::string> errors;
  const auto slash = value.find('/');
  std::string name = value;
  if (slash != std::string::npos) {
    if (value.find('/', slash + 1) != std::string::npos)
      return {std::string("a qualified name ") + kQualifiedNameRule +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    const std::string prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) errors.push_back("prefix part must be non-empty");
    else if (prefix.size() > 253) errors.push_back("prefix part must be no more than 253 characters");
    else if (!isDnsSubdomain(prefix))
      errors.push_back(
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
          "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  if (name.empty()) errors.push_back("name part must be non-empty");
  else if (name.size() > 63) errors.push_back("name part must be no more than 63 characters");
  if (!matchesQualifiedNamePart(name)) errors.push_back(std::string("name part ") + kQualifiedNameRule);
  return errors;
}

constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;  // kube's TotalAnnotationSizeLimitB

// ObjectMeta's label keys, annotations, finalizers and ownerReferences, as apimachinery's ValidateObjectMeta.
void validateMetaFields(const json& meta, std::vector<StatusCause>& causes) {
  if (meta.contains("labels") && meta["labels"].is_object())
    for (const auto& [key, value] : meta["labels"].items())
      for (const auto& message : qualifiedNameErrors(key)) causes.push_back(fieldInvalid("metadata.labels", key, message));
  if (meta.contains("annotations") && meta["annotations"].is_object()) {
    std::size_t total = 0;
    for (const auto& [key, value] : meta["annotations"].items()) {
      // The rule is QualifiedName except that case does not matter.
      for (const auto& message : qualifiedNameErrors(asciiLowered(key)))
        causes.push_back(fieldInvalid("metadata.annotations", key, message));
      total += key.size() + (value.is_string() ? value.get_ref<const std::string&>().size() : 0);
    }
    if (total > kTotalAnnotationSizeLimit)
      causes.push_back({"FieldValueTooLong", "Too long: must have at most " + std::to_string(kTotalAnnotationSizeLimit) + " bytes",
                        "metadata.annotations"});
  }
  if (meta.contains("finalizers") && meta["finalizers"].is_array()) {
    bool orphan = false, foreground = false;
    for (const auto& finalizer : meta["finalizers"]) {
      const std::string name = finalizer.is_string() ? finalizer.get<std::string>() : "";
      for (const auto& message : qualifiedNameErrors(name)) causes.push_back(fieldInvalid("metadata.finalizers", name, message));
      orphan = orphan || name == "orphan";
      foreground = foreground || name == "foregroundDeletion";
    }
    if (orphan && foreground)
      causes.push_back(fieldInvalid("metadata.finalizers", meta["finalizers"],
                                    "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  if (meta.contains("ownerReferences") && meta["ownerReferences"].is_array()) {
    int controllers = 0;
    for (const auto& reference : meta["ownerReferences"]) {
      if (!reference.is_object()) continue;
      const auto field = [&](const char* name) {
        return reference.contains(name) && reference[name].is_string() ? reference[name].get<std::string>() : std::string();
      };
      const std::string apiVersion = field("apiVersion");
      if (apiVersion.empty() || apiVersion.back() == '/')
        causes.push_back(fieldInvalid("metadata.ownerReferences.apiVersion", apiVersion, "version must not be empty"));
      for (const char* name : {"kind", "name", "uid"})
        if (field(name).empty())
          causes.push_back(fieldInvalid(std::string("metadata.ownerReferences.") + name, "", "must not be empty"));
      if (reference.contains("controller") && reference["controller"].is_boolean() && reference["controller"].get<bool>())
        ++controllers;
    }
    if (controllers > 1)
      causes.push_back(fieldInvalid("metadata.ownerReferences", meta["ownerReferences"],
                                    "Only one reference can have Controller set to true"));
  }
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
  } else if (rule == NameRule::PathSegment) {
    if (name == "." || name == "..") causes.push_back(fieldInvalid("metadata.name", name, "may not be '" + name + "'"));
    for (const char* forbidden : {"/", "%"})
      if (name.find(forbidden) != std::string::npos)
        causes.push_back(fieldInvalid("metadata.name", name, std::string("may not contain '") + forbidden + "'"));
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
  validateMetaFields(meta, causes);
  return causes;
}

std::optional<long long> integerAt(const json& object, const json::json_pointer& pointer) {
  if (!object.contains(pointer)) return std::nullopt;
  const json& value = object.at(pointer);
  // The schema check let only integers in range through.
  if (value.is_number_integer()) return value.get<long long>();
  return std::nullopt;
}

}  // namespace fedhpa::api
