#include "federation/apiserver/api_server.h"

#include <chrono>
#include <functional>
#include <set>

#include "federation/api/machinery/protobuf.h"
#include "federation/api/discovery.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/openapi.h"
#include "federation/api/openapi_v2.h"
#include "federation/apiserver/authz/bootstrap_policy.h"
#include "federation/apiserver/metrics.h"
#include "federation/apiserver/object_meta.h"
#include "federation/apiserver/request_decoding.h"
#include "federation/apiserver/request_execution.h"
#include "federation/apiserver/request_info.h"
#include "federation/apiserver/rest_handler.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

const json& versionInfo() {
  static const json info = {{"major", "1"},
                            {"minor", "32"},
                            {"gitVersion", "v1.32.0"},
                            {"gitCommit", "0000000000000000000000000000000000000000"},
                            {"gitTreeState", "clean"},
                            {"buildDate", "2025-01-01T00:00:00Z"},
                            {"goVersion", "go1.23.0"},
                            {"compiler", "gc"},
                            {"platform", "linux/amd64"}};
  return info;
}

http::Response textResponse(int status, std::string body, const std::string& contentType = "text/plain; charset=utf-8") {
  http::Response response;
  response.status = status;
  response.headers.emplace("Content-Type", contentType);
  response.body = std::move(body);
  return response;
}

bool wantsAggregatedDiscovery(const http::Request& request) {
  const std::string accept = request.header("Accept").value_or("");
  return accept.find("as=APIGroupDiscoveryList") != std::string::npos &&
         accept.find("g=apidiscovery.k8s.io") != std::string::npos;
}

http::Response aggregatedResponse(const json& body) {
  http::Response response = jsonResponse(200, body);
  response.headers.erase("Content-Type");
  response.headers.emplace("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  return response;
}

// A Responder that remembers the status code for the metrics and the access log.
// Counts a request in the metrics as its answer leaves: before the first byte reaches the
// client, so a client that has read an answer always finds it counted. A streamed answer (a watch,
// a streamed list) is counted when its headers go out; its duration is the time to those headers.
class MeteredResponder : public http::Responder {
 public:
  using Observer = std::function<void(int code)>;
  MeteredResponder(std::shared_ptr<http::Responder> inner, Observer observe)
      : inner_(std::move(inner)), observe_(std::move(observe)) {}
  void respond(http::Response response) override {
    observe_(response.status);
    inner_->respond(std::move(response));
  }
  std::shared_ptr<http::ResponseStream> stream(int status, http::Headers headers) override {
    observe_(status);
    return inner_->stream(status, std::move(headers));
  }

 private:
  std::shared_ptr<http::Responder> inner_;
  Observer observe_;
};

// kube-apiserver's answer to a request whose path or query is not UTF-8 (a 400), before anything
// parses, echoes or stores them.
void requireUtf8(const http::Request& request) {
  if (!api::machinery::isValidUtf8(request.path))
    throw api::ApiError::badRequest("the request path is not valid UTF-8");
  for (const auto& [name, value] : request.query)
    if (!api::machinery::isValidUtf8(name) || !api::machinery::isValidUtf8(value))
      throw api::ApiError::badRequest("the query parameter " + api::quoted(name) + " is not valid UTF-8");
}

// The verb label: a closed set, as kube-apiserver's (unknown methods share one value).
std::string metricVerb(const std::string& verb) {
  static const std::set<std::string> known = {"get",   "list",   "watch",  "create",  "update", "patch",
                                              "delete", "deletecollection", "GET", "HEAD", "POST", "PUT",
                                              "PATCH", "DELETE", "OPTIONS"};
  return known.count(verb) ? verb : "other";
}


// kube-apiserver's max-in-flight filter counts these verbs as read-only; everything else mutates.
bool isMutating(const std::optional<RequestInfo>& info, const http::Request& request) {
  if (!info) return request.method != "GET" && request.method != "HEAD" && request.method != "OPTIONS";
  return info->verb != "get" && info->verb != "list" && info->verb != "watch";
}

// What its in-flight filter answers beyond --max-requests-inflight / --max-mutating-requests-inflight.
http::Response tooManyRequests() {
  const api::ApiError error(429, "TooManyRequests", "Too many requests, please try again later.",
                            json{{"retryAfterSeconds", 1}});
  http::Response response = jsonResponse(error.code(), error.toStatus());
  response.headers.emplace("Retry-After", "1");
  return response;
}

}  // namespace

class ApiServer::Dispatcher : public http::Handler {
 public:
  Dispatcher(storage::Storage& storage, std::vector<std::shared_ptr<const api::ResourceType>> resources,
             const ApiServerOptions& options)
      : resources_(std::move(resources)),
        rest_(storage, resources_, watches_, options.minRequestTimeout),
        createSubresources_(options.createSubresources),
        inflight_(options.maxRequestsInflight, options.maxMutatingRequestsInflight),
        heavyRequests_(options.heavyRequestWorkers) {
    const json openApiV2 = api::openApiV2Document(resources_);
    openApiV2Json_ = openApiV2.dump();
    openApiV2Protobuf_ = api::encodeOpenApiV2(openApiV2);
  }

  void handle(http::Request request, std::shared_ptr<http::Responder> responder) override {
    const auto started = std::chrono::steady_clock::now();
    std::optional<RequestInfo> info;
    try {
      requireUtf8(request);
      info = parseResourceRequest(request);
    } catch (const std::exception& error) {
      auto metered = meter(request, info, responder, started);
      answerError(*metered, request, error);
      return;
    }
    auto metered = meter(request, info, std::move(responder), started);
    // Watches are long-running: kube's in-flight limits leave them out.
    std::shared_ptr<InflightLimits::Ticket> ticket;
    if (!(info && info->verb == "watch")) {
      ticket = inflight_.tryAcquire(isMutating(info, request));
      if (!ticket) {
        metered->respond(tooManyRequests());
        return;
      }
    }
    const bool heavy = info && (info->verb == "list" || info->verb == "deletecollection");
    if (!heavy) return serve(request, info, metered);
    // A LIST the watch cache answers at once with bytes made already is not heavy: taking the
    // shared bytes of 1,000 HPAs costs this thread 66-84 us (median, measured on 2 busy cores),
    // less than writing the answer's 765 KB costs it anyway, while the hand-off to a worker and
    // back costs two thread wake-ups. Heavy stays whatever makes or reads something: serializing
    // those 1,000 HPAs the first time (11 ms), selectors, Tables, storage reads and waits.
    if (info->verb == "list" && answeredFromMemory(request, *info, metered)) return;
    heavyRequests_.submit([this, request = std::move(request), info, metered, ticket] {
      serve(request, info, metered);
    });
  }

  void stopWatches() { watches_.stopAll(); }

  // Runs one admitted request (on an HTTP thread, or on the heavy-request pool).
  void serve(const http::Request& request, const std::optional<RequestInfo>& info,
             const std::shared_ptr<MeteredResponder>& responder) {
    try {
      if (info && info->verb == "create" && !info->subresource.empty()) {
        if (const CreateSubresource* served = createSubresource(*info)) {
          const json created = served->create(info->namespaceName, info->name, decodeObjectBody(request));
          const bool protobuf = api::machinery::hasProtobufForm(created.value("apiVersion", ""), created.value("kind", ""));
          responder->respond(objectResponse(201, created, negotiateResponse(request, protobuf)));
          return;
        }
      }
      if (info) {
        rest_.handle(*info, request, responder);
        if (info->verb == "delete" && info->resource == "namespaces" && info->group.empty())
          deleteNamespaceContents(info->name);
      } else {
        responder->respond(handleNonResource(request));
      }
    } catch (const std::exception& error) {
      answerError(*responder, request, error);
    }
  }

  // True once the request is answered on this thread: from the watch cache, or with its error.
  bool answeredFromMemory(const http::Request& request, const RequestInfo& info,
                          const std::shared_ptr<MeteredResponder>& responder) {
    try {
      return rest_.listFromMemory(info, request, responder);
    } catch (const std::exception& error) {
      answerError(*responder, request, error);
      return true;
    }
  }

  static void answerError(http::Responder& responder, const http::Request& request, const std::exception& error) {
    if (const auto* apiError = dynamic_cast<const api::ApiError*>(&error)) {
      responder.respond(statusResponse(*apiError, request));
      return;
    }
    FEDHPA_LOG(error) << "internal error serving " << request.method << " " << request.path << ": " << error.what();
    const auto internal = api::ApiError::internal(error.what());
    responder.respond(statusResponse(internal, request));
  }

  std::shared_ptr<MeteredResponder> meter(const http::Request& request, const std::optional<RequestInfo>& info,
                                          std::shared_ptr<http::Responder> responder,
                                          std::chrono::steady_clock::time_point started) {
    std::string verb = metricVerb(info ? info->verb : request.method);
    // A metric label: only ever a served resource or a served path (never client text). A
    // non-resource path is its own label only when it was served (a finite set of documents).
    std::string resource = info ? metricResource(*info) : "";
    return std::make_shared<MeteredResponder>(
        std::move(responder), [this, verb = std::move(verb), resource = std::move(resource),
                               path = info ? std::string() : request.path, started](int code) {
          const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          const bool servedPath = !path.empty() && code >= 200 && code < 400;
          metrics_.observe(verb, servedPath ? path : resource, code, seconds);
        });
  }

  // "horizontalpodautoscalers", "deployments/scale": a served resource and subresource, else "".
  std::string metricResource(const RequestInfo& info) {
    ResourceStore* store = rest_.find(info.group, info.resource);
    if (!store) return "";
    if (info.subresource.empty()) return info.resource;
    if (info.subresource == "status" || info.subresource == "scale") return info.resource + "/" + info.subresource;
    return info.resource;
  }
  RestHandler& rest() { return rest_; }

 private:
  const CreateSubresource* createSubresource(const RequestInfo& info) const {
    for (const auto& served : createSubresources_)
      if (served.group == info.group && served.resource == info.resource && served.subresource == info.subresource)
        return &served;
    return nullptr;
  }

  http::Response handleNonResource(const http::Request& request) {
    const std::string& path = request.path;
    if (request.method != "GET" && request.method != "HEAD")
      throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
    if (path == "/version") return jsonResponse(200, versionInfo());
    if (path == "/healthz" || path == "/livez" || path == "/readyz") return textResponse(200, "ok");
    if (path == "/metrics") return textResponse(200, metrics_.render(watches_.size()), "text/plain; version=0.0.4");
    if (path == "/api") {
      if (wantsAggregatedDiscovery(request)) return aggregatedResponse(api::aggregatedDiscovery(resources_, true));
      return jsonResponse(200, api::legacyApiVersions());
    }
    if (path == "/apis") {
      if (wantsAggregatedDiscovery(request)) return aggregatedResponse(api::aggregatedDiscovery(resources_, false));
      return jsonResponse(200, api::legacyGroupList(resources_));
    }
    if (path == "/api/v1") return jsonResponse(200, api::legacyResourceList(resources_, "", "v1"));
    if (path.rfind("/apis/", 0) == 0) {
      const std::string rest = path.substr(6);
      const auto slash = rest.find('/');
      if (slash == std::string::npos) {
        if (auto group = api::legacyGroup(resources_, rest)) return jsonResponse(200, *group);
      } else if (rest.find('/', slash + 1) == std::string::npos) {
        const std::string group = rest.substr(0, slash);
        const std::string version = rest.substr(slash + 1);
        const json list = api::legacyResourceList(resources_, group, version);
        if (!list["resources"].empty()) return jsonResponse(200, list);
      }
    }
    if (path == "/openapi/v3") return jsonResponse(200, api::openApiRoot(resources_));
    if (path.rfind("/openapi/v3/", 0) == 0) {
      if (auto document = api::openApiDocument(resources_, path.substr(12))) return jsonResponse(200, *document);
    }
    if (path == "/openapi/v2") return openApiV2Response(request);
    throw api::ApiError::pathNotFound(path);
  }

  // kube-apiserver's content negotiation for /openapi/v2: protobuf when asked for (kubectl asks for
  // nothing else), JSON for application/json, */* or no Accept, else 406.
  http::Response openApiV2Response(const http::Request& request) const {
    const std::string accept = request.header("Accept").value_or("");
    if (accept.find(api::kOpenApiV2ProtobufAccept) != std::string::npos ||
        accept.find(api::kOpenApiV2ProtobufType) != std::string::npos)
      return textResponse(200, openApiV2Protobuf_, api::kOpenApiV2ProtobufType);
    if (accept.empty() || accept.find("application/json") != std::string::npos || accept.find("*/*") != std::string::npos)
      return textResponse(200, openApiV2Json_, "application/json");
    throw api::ApiError::notAcceptable("the server was unable to respond with a content type that the client supports");
  }

  // kube-apiserver's namespace controller empties a deleted namespace; here the delete does it.
  void deleteNamespaceContents(const std::string& namespaceName) {
    for (const auto& type : resources_) {
      if (!type->names().namespaced) continue;
      ResourceStore* store = rest_.find(type->names().group, type->names().resource);
      const ListPage page = store->list({namespaceName, {}, std::nullopt, ""});
      for (const auto& item : page.items) {
        try {
          store->remove(namespaceName, metaString(item, "name"), {});
        } catch (const api::ApiError& error) {
          if (error.code() != 404) FEDHPA_LOG(warning) << "namespace " << namespaceName << ": " << error.what();
        }
      }
    }
  }

  std::vector<std::shared_ptr<const api::ResourceType>> resources_;
  WatchRegistry watches_;
  RestHandler rest_;
  RequestMetrics metrics_;
  std::vector<CreateSubresource> createSubresources_;
  std::string openApiV2Json_, openApiV2Protobuf_;  // made once: the served types do not change
  InflightLimits inflight_;
  WorkerPool heavyRequests_;  // last: joined before what its jobs use goes away
};

ApiServer::ApiServer(std::unique_ptr<storage::Storage> storage,
                     std::vector<std::shared_ptr<const api::ResourceType>> resources, ApiServerOptions options)
    : storage_(std::move(storage)),
      options_(std::move(options)) {
  if (options_.watchCache) {
    storage::CacherOptions cacher = *options_.watchCache;
    for (const auto& resource : resources) cacher.resourcePrefixes.push_back(ResourceStore::resourcePrefix(*resource));
    storage_ = std::make_unique<storage::Cacher>(std::move(storage_), std::move(cacher), time_);
  }
  dispatcher_ = std::make_shared<Dispatcher>(*storage_, std::move(resources), options_);
  if (ResourceStore* namespaces = dispatcher_->rest().find("", "namespaces")) {
    for (const auto& name : options_.initialNamespaces) {
      try {
        namespaces->create("", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}, false);
      } catch (const api::ApiError& error) {
        if (error.code() != 409) throw;  // already there from an earlier run
      }
    }
  }
  if (options_.security.mode == authz::AuthorizationMode::Rbac) {
    const auto stores = rbacStores();
    if (stores.clusterRoles && stores.clusterRoleBindings && stores.roles && stores.roleBindings)
      authz::ensureBootstrapPolicy(
          options_.security.controllerManagerRoles ? authz::bootstrapPolicy() : authz::kubeBootstrapPolicy(),
          *stores.clusterRoles, *stores.clusterRoleBindings, *stores.roles, *stores.roleBindings);
  }
}

authz::RbacStores ApiServer::rbacStores() {
  const std::string rbac = "rbac.authorization.k8s.io";
  return {store(rbac, "clusterroles"), store(rbac, "clusterrolebindings"), store(rbac, "roles"),
          store(rbac, "rolebindings"), store("authorization.k8s.io", "selfsubjectaccessreviews") != nullptr};
}

ApiServer::~ApiServer() { stop(); }

ResourceStore* ApiServer::store(const std::string& group, const std::string& resource) {
  return dispatcher_->rest().find(group, resource);
}

std::shared_ptr<http::Handler> ApiServer::handler() const { return dispatcher_; }

std::uint16_t ApiServer::start() {
  // authenticate (the HTTP server) -> audit, impersonate, authorize (authz) -> dispatch
  std::shared_ptr<http::Handler> handler = authz::secureHandler(dispatcher_, options_.security, rbacStores());
  if (options_.wrapHandler) handler = options_.wrapHandler(std::move(handler));
  server_ = std::make_unique<http::Server>(options_.http, std::move(handler));
  return server_->start();
}

void ApiServer::stop() {
  dispatcher_->stopWatches();
  if (server_) server_->stop();
}

}  // namespace fedhpa::apiserver
