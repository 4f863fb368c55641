// Turning an HTTP request into what the REST verbs need: the body as a JSON object in the URL's
// version, the unknown fields it carries (handled per fieldValidation), dryRun, the wanted
// response form (object or Table), and label/field selectors as one predicate.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "federation/api/resource.h"
#include "federation/apiserver/http/http_types.h"
#include "federation/apiserver/table.h"

namespace fedhpa::apiserver {

enum class FieldValidation { Ignore, Warn, Strict };

// application/json (or none), application/vnd.kubernetes.protobuf; 415 for anything else.
nlohmann::json decodeObjectBody(const http::Request& request);

// Client JSON (a body, a patch): 400 when it is not JSON or nests deeper than the limit.
nlohmann::json parseRequestJson(const std::string& body);

// Go's decoder treats a null field as an absent one; so does everything here after this. A null
// list element is a 400.
void dropNullMembers(nlohmann::json& object);

// 400 when the object nests deeper than the limit (a patch can deepen one); drops null members;
// checks apiVersion/kind against the URL (filling them in when absent) and applies fieldValidation:
// Strict -> 400 listing the unknown fields; Warn -> the fields are dropped and returned as warnings;
// Ignore -> dropped silently.
std::vector<std::string> admitBody(nlohmann::json& served, const api::ResourceType& type, const std::string& version,
                                   FieldValidation validation);

FieldValidation fieldValidationOf(const http::Request& request);  // default Warn, as kube-apiserver
bool dryRunOf(const http::Request& request);                        // dryRun=All; 400 on other values

// What a response is written as, from the Accept list as kube-apiserver negotiates it: clauses by
// q-value (q=0 refuses), ties in the client's order; the first this server can write wins. Table
// only as JSON (meta.k8s.io's Table has no protobuf form); protobuf only where `protobufServed`
// (built-in types, not custom resources). 406 when nothing in the list can be written.
enum class ResponseKind { Json, Table, Protobuf };
struct ResponseForm {
  ResponseKind kind = ResponseKind::Json;
  IncludeObject includeObject = IncludeObject::Metadata;  // Table
};
ResponseForm negotiateResponse(const http::Request& request, bool protobufServed);
// Whether objects of this resource have a protobuf form (its served kind is a built-in one).
bool servesProtobuf(const api::ResourceType& type, const std::string& version);

inline constexpr const char* kProtobufMediaType = "application/vnd.kubernetes.protobuf";

// label and field selectors from the query; fields must be ones the resource supports (400 otherwise).
std::function<bool(const nlohmann::json&)> selectorFilter(const http::Request& request, const api::ResourceType& type);

// A response header for each warning, as kube-apiserver writes them: 299 - "text".
void addWarnings(http::Headers& headers, const std::vector<std::string>& warnings);

http::Response jsonResponse(int status, const nlohmann::json& body);
// The object (apiVersion and kind set) in the negotiated form: JSON, or kube's protobuf encoding.
http::Response objectResponse(int status, const nlohmann::json& body, const ResponseForm& form);
// A Status error in the form the client asked for, protobuf for a built-in resource's request
// (the path's group has built-in types) when the client prefers it, JSON otherwise.
http::Response statusResponse(const api::ApiError& error, const http::Request& request);
// A <Kind>List in protobuf from its items' shared encodings: a head, then per item a length prefix
// and a reference to the item's own message inside its encoding (nothing copied), then the tail.
http::Response protobufListResponse(const std::string& apiVersion, const std::string& listKind,
                                    const nlohmann::json& metadata,
                                    const std::vector<std::shared_ptr<const std::string>>& items);
// A kind/apiVersion/metadata/items list whose items are serialized one at a time, as they are
// produced, so that a large list is never held as JSON values and as text at once. The response
// refers to each item's bytes (http::Response::bodyPieces) rather than copying them.
class JsonListWriter {
 public:
  JsonListWriter(const std::string& kind, const std::string& apiVersion);
  void add(const nlohmann::json& item);
  // An item already serialized (one JSON value), shared with whoever else holds it.
  void addSerialized(std::shared_ptr<const std::string> item);
  http::Response finish(const nlohmann::json& metadata);

 private:
  std::string head_;
  std::vector<http::SharedBytes> items_;
};

}  // namespace fedhpa::apiserver
