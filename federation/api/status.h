// Kubernetes Status errors: every failure the API machinery reports carries the code, reason,
// message and details kube-apiserver would give, so kubectl prints the same text.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedhpa::api {

// group + plural resource, as kube-apiserver names things in its messages:
// "horizontalpodautoscalers.autoscaling" (core group: just "events").
struct GroupResource {
  std::string group;
  std::string resource;
  std::string qualified() const { return group.empty() ? resource : resource + "." + group; }
};

struct StatusCause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
  std::string message;
  std::string field;
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, std::string message, nlohmann::json details = nullptr);

  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const nlohmann::json& details() const { return details_; }
  // The metav1.Status object for the response body.
  nlohmann::json toStatus() const;

  static ApiError notFound(const GroupResource& gr, const std::string& name);
  static ApiError alreadyExists(const GroupResource& gr, const std::string& name);
  static ApiError conflict(const GroupResource& gr, const std::string& name, const std::string& why);
  // Conflict on a stale resourceVersion, with kube-apiserver's wording.
  static ApiError staleResourceVersion(const GroupResource& gr, const std::string& name);
  // 422 with details.kind = Kind and one cause per field error.
  static ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                          std::vector<StatusCause> causes);
  static ApiError badRequest(const std::string& message);
  static ApiError methodNotAllowed(const std::string& message);
  static ApiError unsupportedMediaType(const std::string& message);
  static ApiError notAcceptable(const std::string& message);
  static ApiError requestEntityTooLarge(const std::string& message);
  static ApiError expired(const std::string& message);  // 410, reason Expired
  static ApiError unauthorized();
  static ApiError forbidden(const std::string& message);
  static ApiError pathNotFound(const std::string& path);  // 404 for an unknown URL
  static ApiError internal(const std::string& message);
  static ApiError tooManyRequests(const std::string& message);

 private:
  int code_;
  std::string reason_;
  nlohmann::json details_;
};

// A field error as validation collects them; ApiError::invalid turns a list of them into a 422.
StatusCause fieldInvalid(const std::string& field, const nlohmann::json& value, const std::string& detail);
StatusCause fieldRequired(const std::string& field);
// A string as a JSON string literal, for messages that echo client input; never throws (bytes
// that are not UTF-8 become U+FFFD).
std::string quoted(const std::string& text);
StatusCause fieldNotSupported(const std::string& field, const nlohmann::json& value,
                              const std::vector<std::string>& supported);

}  // namespace fedhpa::api
