#include "federation/apiserver/rest_handler.h"

#include <algorithm>
#include <charconv>
#include <random>

#include "federation/api/machinery/protobuf.h"
#include "federation/api/machinery/patch.h"
#include "federation/apiserver/object_meta.h"
#include "federation/apiserver/request_decoding.h"
#include "federation/apiserver/server_side_apply.h"

namespace fedhpa::apiserver {

using nlohmann::json;

struct RestHandler::Call {
  const RequestInfo& info;
  const http::Request& request;
  ResourceStore& store;
  std::string version;
  ResponseForm form;  // negotiated before anything is read or written

  const api::ResourceType& type() const { return store.type(); }
  json served(const json& internal) const { return type().fromInternal(internal, version); }
};

namespace {

// Runs a step that reads what the client sent (a body, a patch, a conversion of them): whatever it
// throws is about the client's bytes, so it is the client's error (kube-apiserver's decode errors
// are BadRequest), never a 500.
template <class Function>
auto fromClientInput(Function&& function, int code = 400) -> decltype(function()) {
  try {
    return function();
  } catch (const api::ApiError&) {
    throw;
  } catch (const std::exception& error) {
    throw api::ApiError(code, code == 400 ? "BadRequest" : "Invalid", error.what());
  }
}

// kube-apiserver's maxJSONPatchOperations.
void requireJsonPatchSize(const json& patch) {
  constexpr std::size_t kMaxJsonPatchOperations = 10000;
  if (patch.is_array() && patch.size() > kMaxJsonPatchOperations)
    throw api::ApiError::requestEntityTooLarge("The allowed maximum operations in a JSON patch is " +
                                               std::to_string(kMaxJsonPatchOperations) + ", got " +
                                               std::to_string(patch.size()));
}

std::string storeKey(const std::string& group, const std::string& resource) { return group + "/" + resource; }

Subresource subresourceOf(const RequestInfo& info, const api::ResourceType& type) {
  if (info.subresource.empty()) return Subresource::Main;
  if (info.subresource == "status" && type.hasStatusSubresource()) return Subresource::Status;
  throw api::ApiError::pathNotFound("/" + info.resource + "/" + info.name + "/" + info.subresource);
}

std::optional<PropagationPolicy> parsePropagation(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (value == "Orphan") return PropagationPolicy::Orphan;
  if (value == "Background") return PropagationPolicy::Background;
  if (value == "Foreground") return PropagationPolicy::Foreground;
  throw api::ApiError::badRequest("propagationPolicy: Unsupported value: " + api::quoted(value) +
                                  ": supported values: \"Foreground\", \"Background\", \"Orphan\"");
}

DeleteOptions deleteOptionsOf(const http::Request& request) {
  DeleteOptions options;
  options.dryRun = dryRunOf(request);
  json body = json::object();
  if (!request.body.empty()) {
    body = parseRequestJson(request.body);
    if (!body.is_object()) throw api::ApiError::badRequest("the body of the request is not a valid DeleteOptions object");
    dropNullMembers(body);
  }
  const auto bodyField = [&](const char* field, bool (json::*isType)() const noexcept, const char* typeName) {
    if (body.contains(field) && !(body[field].*isType)())
      throw api::ApiError::badRequest(std::string("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: ") +
                                      field + " must be " + typeName);
  };
  bodyField("propagationPolicy", &json::is_string, "a string");
  bodyField("orphanDependents", &json::is_boolean, "a boolean");
  bodyField("gracePeriodSeconds", &json::is_number_integer, "an integer");
  bodyField("preconditions", &json::is_object, "an object");
  bodyField("dryRun", &json::is_array, "an array");
  if (body.contains("preconditions"))
    for (const char* field : {"uid", "resourceVersion"})
      if (body["preconditions"].contains(field) && !body["preconditions"][field].is_string())
        throw api::ApiError::badRequest(std::string("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: "
                                                    "preconditions.") + field + " must be a string");
  options.propagationPolicy = parsePropagation(
      request.queryParam("propagationPolicy").value_or(body.value("propagationPolicy", std::string())));
  if (body.value("orphanDependents", false) && !options.propagationPolicy)
    options.propagationPolicy = PropagationPolicy::Orphan;
  if (body.contains("preconditions") && body["preconditions"].is_object()) {
    const json& preconditions = body["preconditions"];
    if (preconditions.contains("uid") && preconditions["uid"].is_string())
      options.preconditionUid = preconditions["uid"].get<std::string>();
    if (preconditions.contains("resourceVersion") && preconditions["resourceVersion"].is_string())
      options.preconditionResourceVersion = preconditions["resourceVersion"].get<std::string>();
  }
  if (body.contains("dryRun") && body["dryRun"].is_array() && !body["dryRun"].empty()) options.dryRun = true;
  return options;
}

std::optional<std::size_t> limitOf(const http::Request& request) {
  const auto text = request.queryParam("limit");
  if (!text || text->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(*text, &used);
    if (used != text->size()) throw std::invalid_argument("limit");
    if (value <= 0) return std::nullopt;
    return static_cast<std::size_t>(value);
  } catch (const std::exception&) {
    throw api::ApiError::badRequest("limit: Invalid value: " + api::quoted(*text) + ": must be an integer");
  }
}

// timeoutSeconds, else (absent or 0) kube-apiserver's default: a random time in [min, 2*min) of
// --min-request-timeout, so that clients spread their re-watches; 0 when that flag is 0 (no
// timeout). A negative value ends the watch at once, as kube-apiserver's timer does.
std::chrono::seconds watchTimeoutOf(const http::Request& request, std::chrono::seconds minRequestTimeout) {
  const auto text = request.queryParam("timeoutSeconds");
  long long seconds = 0;
  if (text && !text->empty()) {
    try {
      std::size_t used = 0;
      seconds = std::stoll(*text, &used);
      if (used != text->size()) throw std::invalid_argument("timeoutSeconds");
    } catch (const std::exception&) {
      throw api::ApiError::badRequest("timeoutSeconds: Invalid value: " + api::quoted(*text) + ": must be an integer");
    }
  }
  if (seconds != 0 || minRequestTimeout.count() <= 0) return std::chrono::seconds(seconds);
  thread_local std::mt19937_64 engine{std::random_device{}()};
  const long long min = minRequestTimeout.count();
  return std::chrono::seconds(std::uniform_int_distribution<long long>(min, 2 * min - 1)(engine));
}

json scaleOf(const json& deployment) {
  json metadata = {{"name", metaString(deployment, "name")},
                   {"namespace", metaString(deployment, "namespace")},
                   {"uid", metaString(deployment, "uid")},
                   {"resourceVersion", metaString(deployment, "resourceVersion")},
                   {"creationTimestamp", metaString(deployment, "creationTimestamp")}};
  const json spec = deployment.value("spec", json::object());
  const json status = deployment.value("status", json::object());
  std::string selector;
  const json matchLabels = spec.value("selector", json::object()).value("matchLabels", json::object());
  for (const auto& [key, value] : matchLabels.items())
    selector += (selector.empty() ? "" : ",") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", metadata},
          {"spec", {{"replicas", spec.value("replicas", 0)}}},
          {"status", {{"replicas", status.value("replicas", 0)}, {"selector", selector}}}};
}

}  // namespace

RestHandler::RestHandler(storage::Storage& storage,
                         const std::vector<std::shared_ptr<const api::ResourceType>>& resources,
                         WatchRegistry& watches, std::chrono::seconds minRequestTimeout)
    : watches_(watches), minRequestTimeout_(minRequestTimeout) {
  for (const auto& type : resources) {
    const auto& names = type->names();
    NamespaceAdmission admission;
    if (names.namespaced) admission = [this](const std::string& ns) { admitNamespace(ns); };
    stores_[storeKey(names.group, names.resource)] = std::make_unique<ResourceStore>(type, storage, admission);
  }
}

ResourceStore* RestHandler::find(const std::string& group, const std::string& resource) {
  const auto it = stores_.find(storeKey(group, resource));
  return it == stores_.end() ? nullptr : it->second.get();
}

void RestHandler::admitNamespace(const std::string& namespaceName) {
  ResourceStore* namespaces = find("", "namespaces");
  if (!namespaces) return;
  // kube-apiserver's NamespaceLifecycle reads namespaces from an informer and reads the storage
  // only when the namespace is not there (created through another API server a moment ago), so a
  // create costs no quorum read. Here the watch cache is that informer.
  const auto cached = namespaces->getFromList("", namespaceName);
  const bool terminating = cached ? isBeingDeleted(cached->object())
                                  : isBeingDeleted(namespaces->get("", namespaceName));  // NotFound: namespaces "x" not found
  if (terminating)
    throw api::ApiError::forbidden("unable to create new content in namespace " + namespaceName +
                                   " because it is being terminated");
}

ResourceStore& RestHandler::storeFor(const RequestInfo& info, std::string& version) {
  ResourceStore* store = find(info.group, info.resource);
  const std::string path = (info.group.empty() ? "/api/" : "/apis/" + info.group + "/") + info.version;
  if (!store) throw api::ApiError::pathNotFound(path + "/" + info.resource);
  const auto& names = store->type().names();
  if (std::find(names.versions.begin(), names.versions.end(), info.version) == names.versions.end())
    throw api::ApiError::pathNotFound(path + "/" + info.resource);
  if (names.namespaced == false && !info.namespaceName.empty())
    throw api::ApiError::pathNotFound(path + "/namespaces/" + info.namespaceName + "/" + info.resource);
  version = info.version;
  return *store;
}

void RestHandler::handle(const RequestInfo& info, const http::Request& request,
                         const std::shared_ptr<http::Responder>& responder) {
  std::string version;
  ResourceStore& store = storeFor(info, version);
  const bool protobufServed = info.subresource == "scale" || servesProtobuf(store.type(), version);
  const Call call{info, request, store, version, negotiateResponse(request, protobufServed)};
  if (info.subresource == "scale") {
    if (store.type().names().resource != "deployments") throw api::ApiError::pathNotFound(request.path);
    responder->respond(scale(call));
    return;
  }
  const std::string& verb = info.verb;
  // A resource serves the verbs discovery lists for it (its subresources their own), as kube-apiserver.
  const auto& verbs = store.type().names().verbs;
  if (info.subresource.empty() && std::find(verbs.begin(), verbs.end(), verb) == verbs.end())
    throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
  if (verb == "get") responder->respond(get(call));
  else if (verb == "list" || verb == "watch") list(call, responder);
  else if (verb == "create") responder->respond(create(call));
  else if (verb == "update") responder->respond(update(call));
  else if (verb == "patch") responder->respond(patch(call));
  else if (verb == "delete") responder->respond(remove(call));
  else if (verb == "deletecollection") responder->respond(removeCollection(call));
  else throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
}

namespace {

// The served form, converted to the stored one; a conversion that fills fields from annotations
// (autoscaling/v1's) is type-checked again in the storage version.
json toInternal(const RestHandler::Call& call, const json& served) {
  json internal = call.type().toInternal(served, call.version);
  const std::string& storageVersion = call.type().names().storageVersion;
  if (call.version != storageVersion) {
    const auto wrongTypes = call.type().typeErrors(internal, storageVersion);
    if (!wrongTypes.empty())
      throw api::ApiError::badRequest(call.type().names().kind + " in version " + api::quoted(call.version) +
                                      " cannot be handled as a " + call.type().names().kind + ": " + wrongTypes.front());
  }
  return internal;
}

json decodeBody(const RestHandler::Call& call, std::vector<std::string>& warnings) {
  return fromClientInput([&] {
    json body = decodeObjectBody(call.request);
    warnings = admitBody(body, call.type(), call.version, fieldValidationOf(call.request));
    return toInternal(call, body);
  });
}

}  // namespace

http::Response RestHandler::get(const Call& call) {
  subresourceOf(call.info, call.type());
  const json object = call.store.get(call.info.namespaceName, call.info.name);
  if (call.form.kind != ResponseKind::Table) return objectResponse(200, call.served(object), call.form);
  json out = buildTable(call.type(), {object}, {call.served(object)}, {call.form.includeObject, true}, api::Clock::now());
  out["metadata"]["resourceVersion"] = metaString(object, "resourceVersion");
  return jsonResponse(200, out);
}

namespace {

// kube-apiserver's ListOptions checks (metainternalversion's ValidateListOptions), made before
// anything is read or a watch stream opened, so that the client gets the error.
void validateListOptions(const RestHandler::Call& call, bool watch) {
  const http::Request& request = call.request;
  const std::string rv = request.queryParam("resourceVersion").value_or("");
  if (!rv.empty()) {
    // strconv.ParseUint's rules (digits only); revisions here are int64s, so the range is theirs.
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(rv.data(), rv.data() + rv.size(), value);
    if (rv.front() == '-' || error != std::errc() || end != rv.data() + rv.size())
      throw api::ApiError::badRequest("invalid resource version: resourceVersion: Invalid value: " + api::quoted(rv) +
                                      ": strconv.ParseUint: parsing " + api::quoted(rv) + ": invalid syntax");
  }
  std::vector<api::StatusCause> causes;
  const std::string match = request.queryParam("resourceVersionMatch").value_or("");
  const bool sendInitialEvents = request.queryParam("sendInitialEvents").has_value();
  const bool continuing = !request.queryParam("continue").value_or("").empty();
  if (!match.empty()) {
    if (watch && !sendInitialEvents)
      causes.push_back({"FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided", "resourceVersionMatch"});
    if (!watch && rv.empty())
      causes.push_back({"FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided", "resourceVersionMatch"});
    if (continuing)
      causes.push_back({"FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden when continue is provided", "resourceVersionMatch"});
    if (watch && match != "NotOlderThan")
      causes.push_back(api::fieldNotSupported("resourceVersionMatch", match, {"NotOlderThan"}));
    if (!watch && match != "Exact" && match != "NotOlderThan")
      causes.push_back(api::fieldNotSupported("resourceVersionMatch", match, {"Exact", "NotOlderThan", ""}));
    if (!watch && match == "Exact" && rv == "0")
      causes.push_back({"FieldValueForbidden", "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"", "resourceVersionMatch"});
  }
  if (sendInitialEvents) {
    if (!watch) {
      causes.push_back({"FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for list", "sendInitialEvents"});
    } else {
      if (match != "NotOlderThan")
        causes.push_back({"FieldValueForbidden", "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan", "resourceVersionMatch"});
      // The streaming list (WatchList) is not served here.
      causes.push_back({"FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled", "sendInitialEvents"});
    }
  }
  if (!causes.empty()) throw api::ApiError::invalid("meta.k8s.io", "ListOptions", "", causes);
  // A continue token carries the revision its list was read at.
  if (!watch && continuing && !rv.empty() && rv != "0")
    throw api::ApiError::badRequest("specifying resource version is not allowed when using continue");
  // A list at a revision this server has not reached: kube-apiserver waits up to 3 s for it, then
  // answers this; nothing here can bring a revision closer, so the answer comes at once.
  if (!watch && !rv.empty() && std::stoll(rv) > 0 && std::stoll(rv) > call.store.currentRevision())
    throw api::ApiError(504, "Timeout", "Timeout: Too large resource version: " + rv + ", current: " +
                        std::to_string(call.store.currentRevision()),
                        json{{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                             {"retryAfterSeconds", 1}});
}

ListRequest listRequestOf(const RestHandler::Call& call, std::function<bool(const json&)> filter) {
  ListRequest request{call.info.namespaceName, std::move(filter), limitOf(call.request),
                      call.request.queryParam("continue").value_or("")};
  const std::string rv = call.request.queryParam("resourceVersion").value_or("");
  if (rv.empty() || rv == "0") return request;  // the latest the cache has (checked as ListOptions before)
  if (call.request.queryParam("resourceVersionMatch").value_or("") == "Exact") request.exactRevision = std::stoll(rv);
  else request.notOlderThan = std::stoll(rv);
  return request;
}

json listMetadataOf(const ListPage& page) {
  json metadata = {{"resourceVersion", page.resourceVersion}};
  if (!page.continueToken.empty()) metadata["continue"] = page.continueToken;
  return metadata;
}

}  // namespace

void RestHandler::list(const Call& call, const std::shared_ptr<http::Responder>& responder) {
  std::optional<IncludeObject> table;
  if (call.form.kind == ResponseKind::Table) table = call.form.includeObject;
  auto filter = selectorFilter(call.request, call.type());
  validateListOptions(call, call.info.verb == "watch");
  if (call.info.verb == "watch") {
    WatchParams params;
    params.namespaceName = call.info.namespaceName;
    params.version = call.version;
    params.filter = filter;
    params.resourceVersion = call.request.queryParam("resourceVersion").value_or("");
    const std::string bookmarks = call.request.queryParam("allowWatchBookmarks").value_or("");
    params.allowBookmarks = bookmarks == "true" || bookmarks == "True" || bookmarks == "1";
    params.timeout = watchTimeoutOf(call.request, minRequestTimeout_);
    params.table = table;
    params.protobuf = call.form.kind == ResponseKind::Protobuf;
    http::Headers headers;
    headers.emplace("Content-Type", params.protobuf ? std::string(kProtobufMediaType) + ";stream=watch" : "application/json");
    auto stream = responder->stream(200, headers);
    watches_.add(WatchSession::start(call.store, std::move(params), std::move(stream)));
    return;
  }
  if (table) {
    const ListPage page = call.store.list(listRequestOf(call, filter));
    std::vector<json> served;
    served.reserve(page.items.size());
    for (const auto& item : page.items) served.push_back(call.served(item));
    json out = buildTable(call.type(), page.items, served, {*table, true}, api::Clock::now());
    out["metadata"] = listMetadataOf(page);
    responder->respond(jsonResponse(200, out));
    return;
  }
  responder->respond(*servedList(call, listRequestOf(call, filter), false));
}

std::optional<http::Response> RestHandler::servedList(const Call& call, const ListRequest& listRequest,
                                                      bool fromMemoryOnly) {
  // The response is the objects' served bytes in a row: each object's bytes are made once per
  // stored version and version, and shared by every list and watch that serves it.
  const auto& names = call.type().names();
  if (call.form.kind == ResponseKind::Protobuf) {
    std::vector<std::shared_ptr<const std::string>> encoded;
    const ListPage page = call.store.list(listRequest, [&](const StoredObject& item) {
      encoded.push_back(item.servedProtobuf(call.version));
    });
    return protobufListResponse(names.apiVersion(call.version), names.kind + "List", listMetadataOf(page), encoded);
  }
  JsonListWriter writer(names.kind + "List", names.apiVersion(call.version));
  if (!fromMemoryOnly) {
    const ListPage page =
        call.store.list(listRequest, [&](const StoredObject& item) { writer.addSerialized(item.servedJson(call.version)); });
    return writer.finish(listMetadataOf(page));
  }
  // From memory, only bytes made already: converting and serializing objects is heavy work.
  bool allMade = true;
  const std::optional<ListPage> page = call.store.listFromMemory(listRequest, [&](const StoredObject& item) {
    auto made = allMade ? item.servedJsonIfMade(call.version) : nullptr;
    if (made) writer.addSerialized(std::move(made));
    else allMade = false;
  });
  if (!page || !allMade) return std::nullopt;
  return writer.finish(listMetadataOf(*page));
}

bool RestHandler::listFromMemory(const RequestInfo& info, const http::Request& request,
                                 const std::shared_ptr<http::Responder>& responder) {
  if (info.verb != "list" || !info.subresource.empty()) return false;
  // A resourceVersion past 0 is compared with the storage's revision (validateListOptions): on
  // etcd, a read of its own.
  const std::string rv = request.queryParam("resourceVersion").value_or("");
  if (!rv.empty() && rv != "0") return false;
  // Selectors read the decoded objects, which the first reader of each makes: heavy work.
  if (request.queryParam("labelSelector").value_or("") != "" || request.queryParam("fieldSelector").value_or("") != "")
    return false;
  std::string version;
  ResourceStore& store = storeFor(info, version);
  const Call call{info, request, store, version, negotiateResponse(request, servesProtobuf(store.type(), version))};
  if (call.form.kind != ResponseKind::Json) return false;  // Tables and protobuf: built on a worker
  validateListOptions(call, false);
  std::optional<http::Response> response = servedList(call, listRequestOf(call, {}), true);
  if (!response) return false;
  responder->respond(std::move(*response));
  return true;
}

http::Response RestHandler::create(const Call& call) {
  if (!call.info.subresource.empty() || !call.info.name.empty())
    throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
  const WriteContext context = writeContextOf(call.request, call.type().names().apiVersion(call.version),
                                              Subresource::Main, "CreateOptions");
  std::vector<std::string> warnings;
  const json internal = FieldManager(call.type()).update(json::object(), decodeBody(call, warnings), context);
  const bool dryRun = dryRunOf(call.request);
  const json created = call.store.create(call.info.namespaceName, internal, dryRun);
  http::Response response = objectResponse(201, call.served(created), call.form);
  addWarnings(response.headers, warnings);
  return response;
}

http::Response RestHandler::update(const Call& call) {
  const Subresource subresource = subresourceOf(call.info, call.type());
  const WriteContext context =
      writeContextOf(call.request, call.type().names().apiVersion(call.version), subresource, "UpdateOptions");
  std::vector<std::string> warnings;
  const json proposed = decodeBody(call, warnings);
  const FieldManager manager(call.type());
  const json updated = call.store.update(
      call.info.namespaceName, call.info.name,
      [&](const json& current) { return manager.update(current, proposed, context); }, subresource,
      dryRunOf(call.request));
  http::Response response = objectResponse(200, call.served(updated), call.form);
  addWarnings(response.headers, warnings);
  return response;
}

http::Response RestHandler::patch(const Call& call) {
  const Subresource subresource = subresourceOf(call.info, call.type());
  const std::string contentType = call.request.header("Content-Type").value_or("");
  const std::string mediaType = contentType.substr(0, contentType.find(';'));
  if (mediaType == kApplyPatchMediaType)
    return serverSideApply(call.store, call.info, call.request, call.version, subresource);
  forceOf(call.request, false);
  const WriteContext context =
      writeContextOf(call.request, call.type().names().apiVersion(call.version), subresource, "PatchOptions");
  const json patchBody = parseRequestJson(call.request.body);
  const bool strategic = mediaType == "application/strategic-merge-patch+json";
  if (strategic && !call.type().acceptsStrategicMergePatch())
    throw api::ApiError::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  if (!strategic && mediaType != "application/merge-patch+json" && mediaType != "application/json-patch+json")
    throw api::ApiError::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, "
        "application/strategic-merge-patch+json");
  if (mediaType == "application/json-patch+json") requireJsonPatchSize(patchBody);
  const FieldValidation validation = fieldValidationOf(call.request);
  std::vector<std::string> warnings;
  api::machinery::PatchMeta patchMeta;
  for (const auto& [path, key] : call.type().listMergeKeys()) patchMeta.mergeKeys[path] = key;
  const FieldManager manager(call.type());

  const json updated = call.store.update(
      call.info.namespaceName, call.info.name,
      [&](const json& current) {
        const json original = call.served(current);
        json patched = fromClientInput(
            [&] {
              if (mediaType == "application/json-patch+json") return api::machinery::applyJsonPatch(original, patchBody);
              if (strategic) return api::machinery::applyStrategicMergePatch(original, patchBody, patchMeta);
              return api::machinery::applyMergePatch(original, patchBody);
            },
            422);
        if (!patched.is_object()) throw api::ApiError::badRequest("the patched object is not a JSON object");
        // What a patch may not change, with kube-apiserver's answers (checkName, ValidateObjectMetaUpdate).
        const std::string patchedNamespace = metaString(patched, "namespace");
        if (!patchedNamespace.empty() && patchedNamespace != call.info.namespaceName)
          throw api::ApiError::badRequest("the namespace of the object (" + patchedNamespace +
                                          ") does not match the namespace on the request (" + call.info.namespaceName + ")");
        const std::string patchedUid = metaString(patched, "uid");
        if (!patchedUid.empty() && patchedUid != metaString(current, "uid"))  // none: the current one stays
          throw api::ApiError::invalid(call.type().names().group, call.type().names().kind, call.info.name,
                                       {api::fieldInvalid("metadata.uid", patchedUid, "field is immutable")});
        return fromClientInput([&] {
          warnings = admitBody(patched, call.type(), call.version, validation);
          // A resourceVersion the patch itself does not set is no precondition.
          const bool patchSetsVersion = patchBody.is_object() && patchBody.contains("metadata") &&
                                        patchBody["metadata"].is_object() &&
                                        patchBody["metadata"].contains("resourceVersion");
          if (!patchSetsVersion && patched.contains("metadata") && patched["metadata"].is_object())
            patched["metadata"].erase("resourceVersion");
          return manager.update(current, toInternal(call, patched), context);
        });
      },
      subresource, dryRunOf(call.request));
  http::Response response = objectResponse(200, call.served(updated), call.form);
  addWarnings(response.headers, warnings);
  return response;
}

http::Response RestHandler::remove(const Call& call) {
  if (!call.info.subresource.empty())
    throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
  const DeleteResult result = call.store.remove(call.info.namespaceName, call.info.name, deleteOptionsOf(call.request));
  return objectResponse(200, call.served(result.object), call.form);
}

http::Response RestHandler::removeCollection(const Call& call) {
  const DeleteOptions options = deleteOptionsOf(call.request);
  const ListPage page =
      call.store.list({call.info.namespaceName, selectorFilter(call.request, call.type()), std::nullopt, ""});
  json items = json::array();
  for (const auto& item : page.items) {
    try {
      items.push_back(
          call.served(call.store.remove(metaString(item, "namespace"), metaString(item, "name"), options).object));
    } catch (const api::ApiError& error) {
      if (error.code() != 404) throw;  // deleted meanwhile: nothing left to do
    }
  }
  const auto& names = call.type().names();
  return jsonResponse(200, {{"kind", names.kind + "List"},
                            {"apiVersion", names.apiVersion(call.version)},
                            {"metadata", {{"resourceVersion", std::to_string(call.store.currentRevision())}}},
                            {"items", items}});
}

http::Response RestHandler::scale(const Call& call) {
  const auto& ns = call.info.namespaceName;
  const auto& name = call.info.name;
  if (call.info.verb == "get") return objectResponse(200, scaleOf(call.store.get(ns, name)), call.form);
  if (call.info.verb != "update" && call.info.verb != "patch")
    throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
  const bool isPatch = call.info.verb == "patch";
  // A PUT may come as protobuf (client-go's scale client, kubectl scale); a patch is JSON.
  const json body = isPatch ? parseRequestJson(call.request.body) : decodeObjectBody(call.request);
  if (!isPatch && (!body.is_object() || (body.contains("kind") && body["kind"] != "Scale")))
    throw api::ApiError::badRequest("the body of the request is not a valid Scale object");
  if (isPatch) requireJsonPatchSize(body);
  const json updated = call.store.update(
      ns, name,
      [&](const json& current) {
        json scale = scaleOf(current);
        if (isPatch) {
          const std::string mediaType = call.request.header("Content-Type").value_or("");
          scale = fromClientInput(
              [&] {
                return mediaType.rfind("application/json-patch+json", 0) == 0 ? api::machinery::applyJsonPatch(scale, body)
                                                                              : api::machinery::applyMergePatch(scale, body);
              },
              422);
        } else {
          scale = body;
        }
        if (!scale.is_object() || !scale.contains("spec") || !scale["spec"].is_object() ||
            !scale["spec"].contains("replicas") || !scale["spec"]["replicas"].is_number_integer())
          throw api::ApiError::invalid("autoscaling", "Scale", name, {api::fieldRequired("spec.replicas")});
        json next = current;
        next["spec"]["replicas"] = scale["spec"]["replicas"];
        const std::string rv = metaString(scale, "resourceVersion");
        if (rv.empty()) next["metadata"].erase("resourceVersion");
        else next["metadata"]["resourceVersion"] = rv;
        return next;
      },
      Subresource::Main, dryRunOf(call.request));
  return objectResponse(200, scaleOf(updated), call.form);
}

}  // namespace fedhpa::apiserver
