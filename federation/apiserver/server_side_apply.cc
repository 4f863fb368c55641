#include "federation/apiserver/server_side_apply.h"

#include <algorithm>
#include <string_view>

#include "federation/api/machinery/untrusted_json.h"
#include "federation/apiserver/object_meta.h"
#include "federation/apiserver/request_decoding.h"
#include "federation/apiserver/yaml_body.h"

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

constexpr std::size_t kFieldManagerMaxLength = 128;

[[noreturn]] void throwInvalidOptions(const char* optionsKind, api::StatusCause cause) {
  throw api::ApiError::invalid("meta.k8s.io", optionsKind, "", {std::move(cause)});
}

void validateFieldManager(const std::string& manager, const char* optionsKind) {
  if (manager.size() > kFieldManagerMaxLength)
    throwInvalidOptions(optionsKind, {"FieldValueTooLong", "Too long: may not be more than 128 bytes", "fieldManager"});
  for (std::size_t i = 0; i < manager.size(); ++i) {
    const auto c = static_cast<unsigned char>(manager[i]);
    if (c < 0x20 || c == 0x7f)
      throwInvalidOptions(optionsKind, {"FieldValueInvalid",
                                        "Invalid value: " + api::quoted(manager) + ": invalid character at position " +
                                            std::to_string(i),
                                        "fieldManager"});
  }
}

// The client's error: a body that does not decode or convert is a 400, never a 500.
template <class Function>
auto clientInput(Function&& function) -> decltype(function()) {
  try {
    return function();
  } catch (const api::ApiError&) {
    throw;
  } catch (const std::exception& error) {
    throw api::ApiError::badRequest(error.what());
  }
}

// kube-apiserver's prefixFromUserAgent: "kubectl/v1.32.0 (linux/amd64) ..." -> "kubectl". Go
// ranges over the characters, so an invalid byte is U+FFFD, a non-printable character (here: a
// control character) is left out, and the cut at 128 bytes never splits a character: the manager
// is written into managedFields, whose JSON cannot hold bytes that are not UTF-8.
std::string managerFromUserAgent(std::string_view agent) {
  const std::string prefix = api::machinery::sanitizeUtf8(agent.substr(0, agent.find('/')));
  std::string manager;
  for (std::size_t at = 0; at < prefix.size();) {
    const auto lead = static_cast<unsigned char>(prefix[at]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    const bool c1Control = lead == 0xC2 && static_cast<unsigned char>(prefix[at + 1]) < 0xA0;
    const bool control = lead < 0x20 || lead == 0x7F || c1Control;
    if (!control) {
      if (manager.size() + length > kFieldManagerMaxLength) break;
      manager.append(prefix, at, length);
    }
    at += length;
  }
  return manager;
}

}  // namespace

WriteContext writeContextOf(const http::Request& request, const std::string& apiVersion, Subresource subresource,
                            const char* optionsKind) {
  WriteContext context;
  context.apiVersion = apiVersion;
  context.subresource = subresource;
  context.now = rfc3339Now(api::Clock::now());
  if (const auto manager = request.queryParam("fieldManager"); manager && !manager->empty()) {
    validateFieldManager(*manager, optionsKind);
    context.manager = *manager;
  } else {
    context.manager = managerFromUserAgent(request.header("User-Agent").value_or(""));
  }
  return context;
}

bool forceOf(const http::Request& request, bool applyPatch) {
  const auto force = request.queryParam("force");
  if (!force) return false;
  if (!applyPatch)
    throwInvalidOptions("PatchOptions", {"FieldValueForbidden", "Forbidden: may not be specified for non-apply patch", "force"});
  if (*force == "true" || *force == "True" || *force == "1") return true;
  if (*force == "false" || *force == "False" || *force == "0" || force->empty()) return false;
  throw api::ApiError::badRequest("force: Invalid value: " + api::quoted(*force) + ": must be a boolean");
}

http::Response serverSideApply(ResourceStore& store, const RequestInfo& info, const http::Request& request,
                               const std::string& version, Subresource subresource) {
  const api::ResourceType& type = store.type();
  const auto& names = type.names();
  const bool force = forceOf(request, true);
  if (request.queryParam("fieldManager").value_or("").empty())
    throwInvalidOptions("PatchOptions", {"FieldValueRequired", "Required value: is required for apply patch", "fieldManager"});
  const WriteContext context = writeContextOf(request, names.apiVersion(version), subresource, "PatchOptions");

  std::vector<std::string> warnings;
  const json config = clientInput([&] {
    json body = parseRequestJson(yamlToJson(request.body));
    if (!body.is_object()) throw api::ApiError::badRequest("the apply configuration must be a YAML or JSON object");
    if (body.contains("metadata") && body["metadata"].is_object() && body["metadata"].contains("managedFields") &&
        !body["metadata"]["managedFields"].is_null())
      throw api::ApiError::badRequest("metadata.managedFields must be nil");
    warnings = admitBody(body, type, version, fieldValidationOf(request));
    json& meta = body["metadata"];
    if (!meta.is_object()) meta = json::object();
    const std::string name = metaString(body, "name");
    if (name.empty()) meta["name"] = info.name;
    else if (name != info.name)
      throw api::ApiError::badRequest("the name of the object (" + name + ") does not match the name on the URL (" +
                                      info.name + ")");
    const std::string ns = metaString(body, "namespace");
    if (!ns.empty() && ns != info.namespaceName)
      throw api::ApiError::badRequest("the namespace of the object (" + ns +
                                      ") does not match the namespace on the request (" + info.namespaceName + ")");
    return type.toInternal(body, version);
  });

  const FieldManager manager(type);
  const bool dryRun = dryRunOf(request);
  // The object may appear or vanish between the attempts; a second round settles it.
  for (int attempt = 0;; ++attempt) {
    http::Response response;
    try {
      const json updated = store.update(
          info.namespaceName, info.name, [&](const json& current) { return manager.apply(current, config, context, force); },
          subresource, dryRun);
      response = jsonResponse(200, type.fromInternal(updated, version));
    } catch (const api::ApiError& error) {
      if (error.code() != 404 || subresource != Subresource::Main || attempt > 0) throw;
      try {
        const json created = store.create(info.namespaceName, manager.apply(json::object(), config, context, force), dryRun);
        response = jsonResponse(201, type.fromInternal(created, version));
      } catch (const api::ApiError& createError) {
        if (createError.code() != 409 || createError.reason() != "AlreadyExists") throw;
        continue;
      }
    }
    addWarnings(response.headers, warnings);
    return response;
  }
}

}  // namespace fedhpa::apiserver
