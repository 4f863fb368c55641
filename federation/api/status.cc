#include "federation/api/status.h"

#include "federation/api/machinery/untrusted_json.h"

namespace fedhpa::api {

namespace {

nlohmann::json resourceDetails(const GroupResource& gr, const std::string& name) {
  nlohmann::json details = {{"name", name}, {"kind", gr.resource}};
  if (!gr.group.empty()) details["group"] = gr.group;
  return details;
}

// Values in field errors print as Go's %v/%q would: strings quoted, everything else as JSON.
std::string printValue(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  return machinery::dumpSafe(value);  // client input need not be UTF-8
}

}  // namespace

ApiError::ApiError(int code, std::string reason, std::string message, nlohmann::json details)
    : std::runtime_error(machinery::sanitizeUtf8(message)), code_(code), reason_(std::move(reason)),
      details_(std::move(details)) {}

nlohmann::json ApiError::toStatus() const {
  nlohmann::json status = {{"kind", "Status"},         {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                           {"status", "Failure"},      {"message", what()}, {"reason", reason_},
                           {"code", code_}};
  if (!details_.is_null()) status["details"] = details_;
  return status;
}

ApiError ApiError::notFound(const GroupResource& gr, const std::string& name) {
  return {404, "NotFound", gr.qualified() + " \"" + name + "\" not found", resourceDetails(gr, name)};
}

ApiError ApiError::alreadyExists(const GroupResource& gr, const std::string& name) {
  return {409, "AlreadyExists", gr.qualified() + " \"" + name + "\" already exists", resourceDetails(gr, name)};
}

ApiError ApiError::conflict(const GroupResource& gr, const std::string& name, const std::string& why) {
  return {409, "Conflict", "Operation cannot be fulfilled on " + gr.qualified() + " \"" + name + "\": " + why,
          resourceDetails(gr, name)};
}

ApiError ApiError::staleResourceVersion(const GroupResource& gr, const std::string& name) {
  return conflict(gr, name,
                  "the object has been modified; please apply your changes to the latest version and try again");
}

ApiError ApiError::invalid(const std::string& group, const std::string& kind, const std::string& name,
                           std::vector<StatusCause> causes) {
  std::string joined;
  nlohmann::json causeList = nlohmann::json::array();
  for (const auto& cause : causes) {
    if (!joined.empty()) joined += ", ";
    joined += cause.field.empty() ? cause.message : cause.field + ": " + cause.message;
    causeList.push_back({{"reason", cause.reason}, {"message", cause.message}, {"field", cause.field}});
  }
  // kube-apiserver prints an aggregate of several errors in brackets.
  if (causes.size() > 1) joined = "[" + joined + "]";
  const std::string qualifiedKind = group.empty() ? kind : kind + "." + group;
  nlohmann::json details = {{"name", name}, {"kind", kind}, {"causes", causeList}};
  if (!group.empty()) details["group"] = group;
  return {422, "Invalid", qualifiedKind + " \"" + name + "\" is invalid: " + joined, details};
}

ApiError ApiError::badRequest(const std::string& message) { return {400, "BadRequest", message}; }

ApiError ApiError::methodNotAllowed(const std::string& message) { return {405, "MethodNotAllowed", message}; }

ApiError ApiError::unsupportedMediaType(const std::string& message) {
  return {415, "UnsupportedMediaType", message};
}

ApiError ApiError::notAcceptable(const std::string& message) { return {406, "NotAcceptable", message}; }

ApiError ApiError::requestEntityTooLarge(const std::string& message) {
  return {413, "RequestEntityTooLarge", message};
}

ApiError ApiError::expired(const std::string& message) { return {410, "Expired", message}; }

ApiError ApiError::unauthorized() { return {401, "Unauthorized", "Unauthorized"}; }

ApiError ApiError::forbidden(const std::string& message) { return {403, "Forbidden", message}; }

ApiError ApiError::pathNotFound(const std::string& path) {
  return {404, "NotFound", "the server could not find the requested resource (path " + printValue(path) + ")",
          nlohmann::json{{"causes", {{{"reason", "UnexpectedServerResponse"}, {"message", "404 page not found"}}}}}};
}

ApiError ApiError::internal(const std::string& message) {
  return {500, "InternalError", "Internal error occurred: " + message,
          nlohmann::json{{"causes", {{{"message", message}}}}}};
}

ApiError ApiError::tooManyRequests(const std::string& message) { return {429, "TooManyRequests", message}; }

StatusCause fieldInvalid(const std::string& field, const nlohmann::json& value, const std::string& detail) {
  return {"FieldValueInvalid", "Invalid value: " + printValue(value) + ": " + detail, field};
}

std::string quoted(const std::string& text) { return machinery::dumpSafe(nlohmann::json(text)); }

StatusCause fieldRequired(const std::string& field) { return {"FieldValueRequired", "Required value", field}; }

StatusCause fieldNotSupported(const std::string& field, const nlohmann::json& value,
                              const std::vector<std::string>& supported) {
  std::string list;
  for (const auto& option : supported) list += (list.empty() ? "" : ", ") + printValue(option);
  return {"FieldValueNotSupported", "Unsupported value: " + printValue(value) + ": supported values: " + list, field};
}

}  // namespace fedhpa::api
