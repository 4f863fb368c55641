#include "federation/apiserver/authz/secure_handler.h"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

#include "federation/apiserver/authz/audit.h"
#include "federation/apiserver/authz/escalation.h"
#include "federation/apiserver/authz/impersonation.h"
#include "federation/apiserver/authz/reviews.h"
#include "federation/apiserver/request_decoding.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver::authz {

using nlohmann::json;

namespace {

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

const std::map<std::string, std::string>& reviewKinds() {
  static const std::map<std::string, std::string> kinds = {{"selfsubjectaccessreviews", "SelfSubjectAccessReview"},
                                                           {"selfsubjectrulesreviews", "SelfSubjectRulesReview"},
                                                           {"subjectaccessreviews", "SubjectAccessReview"},
                                                           {"localsubjectaccessreviews", "LocalSubjectAccessReview"}};
  return kinds;
}

bool isWrite(const std::string& verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" || verb == "deletecollection";
}

// An Audit-ID a client sent is kept (kube does so) when it is a plain token.
std::string auditIdOf(const http::Request& request, AuditIdGenerator& ids) {
  const std::string sent = request.header("Audit-ID").value_or("");
  const bool plain = !sent.empty() && sent.size() <= 128 &&
                     std::all_of(sent.begin(), sent.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; });
  return plain ? sent : ids.next();
}

http::UserInfo asUserInfo(const UserIdentity& user) { return {user.name, user.uid, user.groups}; }

// What the answer to a request says, for its audit record.
struct Answered {
  int code = 0;
  bool streamed = false;
  std::string createdName;  // of a create: the audit objectRef names it, as kube's does
};

// Completes an audit record with its answer and writes it.
void writeAudit(AuditLog& audit, AuditRecord record, const Answered& answered) {
  record.code = answered.code;
  if (answered.streamed) record.stage = "ResponseStarted";
  if (record.object && record.object->name.empty() && !answered.createdName.empty()) record.object->name = answered.createdName;
  record.completed = std::chrono::system_clock::now();
  try {
    audit.write(record);
  } catch (const std::exception& error) {
    FEDHPA_LOG(error) << "audit log: " << error.what();
  }
}

// Adds the Audit-Id header to whatever is answered, and runs what waits for the answer just
// before the answer goes out. The API may answer after handle() has returned, from another thread
// (LIST and deletecollection run on the heavy-request pool), so what depends on the answer waits
// for it here: the audit record's status, and the policy cache's reload after a policy change (a
// policy read between handle()'s return and a deletecollection of RoleBindings would keep
// granting what they granted, until the next change).
class AuditingResponder : public http::Responder {
 public:
  using WhenAnswered = std::function<void(const Answered&)>;
  AuditingResponder(std::shared_ptr<http::Responder> inner, std::string auditId, bool wantName)
      : inner_(std::move(inner)), auditId_(std::move(auditId)), wantName_(wantName) {}
  // Set before the request is passed on; runs once, on the thread that answers.
  void whenAnswered(WhenAnswered action) { whenAnswered_ = std::move(action); }
  void respond(http::Response response) override {
    answered_.code = response.status;
    if (wantName_ && answered_.code >= 200 && answered_.code < 300) {
      const json body = json::parse(response.body, nullptr, false);
      if (body.is_object() && body.contains("metadata") && body["metadata"].is_object() &&
          body["metadata"].contains("name") && body["metadata"]["name"].is_string())
        answered_.createdName = body["metadata"]["name"].get<std::string>();
    }
    response.headers.emplace("Audit-Id", auditId_);
    runWhenAnswered();
    inner_->respond(std::move(response));
  }
  std::shared_ptr<http::ResponseStream> stream(int status, http::Headers headers) override {
    answered_.code = status;
    answered_.streamed = true;
    headers.emplace("Audit-Id", auditId_);
    runWhenAnswered();
    return inner_->stream(status, std::move(headers));
  }
  // Only for answers given before handle() returns (no whenAnswered set).
  const Answered& answered() const { return answered_; }

 private:
  void runWhenAnswered() {
    if (!whenAnswered_) return;
    const WhenAnswered action = std::exchange(whenAnswered_, nullptr);
    action(answered_);
  }

  std::shared_ptr<http::Responder> inner_;
  std::string auditId_;
  bool wantName_;
  Answered answered_;
  WhenAnswered whenAnswered_;
};

class SecureHandler : public http::Handler {
 public:
  SecureHandler(std::shared_ptr<http::Handler> api, const SecurityOptions& options, const RbacStores& stores)
      : api_(std::move(api)), servesReviews_(stores.servesReviews) {
    if (options.mode == AuthorizationMode::Rbac) {
      if (!stores.clusterRoles || !stores.clusterRoleBindings || !stores.roles || !stores.roleBindings)
        throw std::runtime_error("--authorization-mode=RBAC: this server does not serve the RBAC resources");
      policy_ = std::make_shared<PolicyCache>(*stores.clusterRoles, *stores.clusterRoleBindings, *stores.roles,
                                              *stores.roleBindings);
      authorizer_ = std::make_unique<RbacAuthorizer>(*policy_);
    } else {
      authorizer_ = std::make_unique<AlwaysAllowAuthorizer>();
    }
    if (!options.auditLogPath.empty()) audit_ = std::make_shared<AuditLog>(options.auditLogPath, options.auditLogMaxBytes);
  }

  void handle(http::Request request, std::shared_ptr<http::Responder> responder) override {
    AuditRecord record;
    record.received = std::chrono::system_clock::now();
    record.auditId = auditIdOf(request, auditIds_);
    record.user = identityOf(request.user);
    record.verb = request.method;
    if (audit_) {
      record.requestUri = requestUri(request);
      record.sourceIps = {request.remoteAddress};
      record.userAgent = request.header("User-Agent").value_or("");
    }
    auto recording = std::make_shared<AuditingResponder>(responder, record.auditId, audit_ && request.method == "POST");
    std::optional<Attributes> attributes;
    bool passOn = false;
    try {
      UserIdentity user = record.user;
      if (auto target = impersonatedUser(request, record.user, *authorizer_)) {
        user = *target;
        record.impersonatedUser = target;
        request.user = asUserInfo(user);
      }
      attributes = requestAttributes(request, user);
      record.verb = attributes->verb;
      if (attributes->resourceRequest) record.object = attributes;
      // kube's RBAC authorizer gives no reason when it finds no rule: the 403 says what was asked.
      if (!authorizer_->authorize(*attributes).allowed) throw forbidden(*attributes);
      if (servesReviews_ && attributes->resourceRequest && attributes->apiGroup == kAuthorizationGroup &&
          reviewKinds().count(attributes->resource)) {
        recording->respond(answer(request, *attributes, user));
      } else {
        if (policy_ && attributes->resourceRequest && attributes->apiGroup == kRbacGroup &&
            (attributes->verb == "create" || attributes->verb == "update" || attributes->verb == "patch"))
          checkEscalation(request, *attributes);
        passOn = true;
      }
    } catch (const api::ApiError& error) {
      recording->respond(statusResponse(error, request));
    } catch (const std::exception& error) {
      FEDHPA_LOG(error) << "internal error authorizing " << request.method << ": " << error.what();
      const auto internal = api::ApiError::internal("the request could not be authorized");
      recording->respond(statusResponse(internal, request));
    }
    if (!passOn) {
      if (audit_) writeAudit(*audit_, std::move(record), recording->answered());
      return;
    }
    // Shared, not this handler's: a heavy request may answer while the server is being torn down.
    std::shared_ptr<PolicyCache> changedPolicy = policy_ && changesPolicy(*attributes) ? policy_ : nullptr;
    if (changedPolicy || audit_)
      recording->whenAnswered([record = std::move(record), audit = audit_, changedPolicy](const Answered& answered) {
        if (changedPolicy) changedPolicy->invalidate();
        if (audit) writeAudit(*audit, record, answered);
      });
    api_->handle(std::move(request), recording);
    // A namespace's delete is answered before its contents (its RoleBindings among them) are
    // deleted, on this thread: a request authorized in between reloaded the policy with them.
    if (changedPolicy && deletesNamespace(*attributes)) changedPolicy->invalidate();
  }

 private:
  static bool deletesNamespace(const Attributes& a) {
    return a.resourceRequest && a.apiGroup.empty() && a.resource == "namespaces" && a.verb == "delete";
  }

  static bool changesPolicy(const Attributes& a) {
    if (!a.resourceRequest || !isWrite(a.verb)) return false;
    return a.apiGroup == kRbacGroup || deletesNamespace(a);
  }

  http::Response answer(const http::Request& request, const Attributes& a, const UserIdentity& user) {
    if (a.verb != "create" || !a.name.empty() || !a.subresource.empty())
      throw api::ApiError::methodNotAllowed("the server does not allow this method on the requested resource");
    const ResponseForm form = negotiateResponse(request, true);  // every review kind has a protobuf form
    json review = decodeObjectBody(request);
    if (!review.contains("apiVersion") || !review["apiVersion"].is_string()) review["apiVersion"] = "authorization.k8s.io/v1";
    if (!review.contains("kind") || !review["kind"].is_string()) review["kind"] = reviewKinds().at(a.resource);
    return objectResponse(201, answerReview(a.resource, std::move(review), user, a.namespaceName, *authorizer_), form);
  }

  void checkEscalation(const http::Request& request, const Attributes& a) {
    if (a.verb == "patch") {
      std::optional<RoleRef> current;
      if (a.resource == "rolebindings" || a.resource == "clusterrolebindings") {
        const auto policy = policy_->current();
        const auto& bindings = a.resource == "clusterrolebindings"
                                   ? policy->clusterRoleBindings
                                   : (policy->roleBindings.count(a.namespaceName) ? policy->roleBindings.at(a.namespaceName)
                                                                                  : std::vector<Binding>{});
        for (const auto& binding : bindings)
          if (binding.name == a.name) current = RoleRef{binding.roleKind, binding.roleName};
      }
      confirmNoEscalation(a, nullptr, current, *authorizer_);
      return;
    }
    const json object = decodeObjectBody(request);
    confirmNoEscalation(a, &object, std::nullopt, *authorizer_);
  }

  std::shared_ptr<http::Handler> api_;
  bool servesReviews_;
  std::shared_ptr<PolicyCache> policy_;
  std::unique_ptr<Authorizer> authorizer_;
  std::shared_ptr<AuditLog> audit_;
  AuditIdGenerator auditIds_;
};

}  // namespace

std::shared_ptr<http::Handler> secureHandler(std::shared_ptr<http::Handler> api, const SecurityOptions& options,
                                             const RbacStores& stores) {
  return std::make_shared<SecureHandler>(std::move(api), options, stores);
}

}  // namespace fedhpa::apiserver::authz
