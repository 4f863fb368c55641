#include "federation/apiserver/request_decoding.h"

#include <algorithm>

#include "federation/api/machinery/protobuf.h"
#include "federation/common/ascii.h"
#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/machinery/selectors.h"
#include "federation/apiserver/field_selectors.h"
#include "federation/apiserver/object_meta.h"
#include "federation/apiserver/yaml_body.h"

namespace fedhpa::apiserver {

using nlohmann::json;

namespace {

std::string mediaTypeOf(const std::string& contentType) {
  std::string type = contentType.substr(0, contentType.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return asciiLowered(std::move(type));
}

std::vector<std::string> splitAccept(const std::string& accept) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= accept.size()) {
    const std::size_t comma = accept.find(',', start);
    std::string part = accept.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

}  // namespace

json decodeObjectBody(const http::Request& request) {
  const std::string mediaType = mediaTypeOf(request.header("Content-Type").value_or("application/json"));
  if (mediaType == "application/vnd.kubernetes.protobuf") {
    try {
      return api::machinery::decodeKubernetesProtobuf(request.body);
    } catch (const std::exception& error) {
      throw api::ApiError::badRequest(std::string("the body of the request could not be decoded: ") + error.what());
    }
  }
  if (mediaType != "application/json" && mediaType != "application/yaml" && !mediaType.empty())
    throw api::ApiError::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: application/json, "
        "application/yaml, application/vnd.kubernetes.protobuf");
  json body = parseRequestJson(mediaType == "application/yaml" ? yamlToJson(request.body) : request.body);
  if (!body.is_object()) throw api::ApiError::badRequest("the body of the request must be a JSON object");
  return body;
}

json parseRequestJson(const std::string& body) {
  try {
    return api::machinery::parseUntrustedJson(body);
  } catch (const api::machinery::JsonInputError& error) {
    throw api::ApiError::badRequest(std::string("the body of the request could not be decoded: ") + error.what());
  }
}

void dropNullMembers(json& object) {
  std::vector<json*> pending{&object};
  while (!pending.empty()) {
    json* node = pending.back();
    pending.pop_back();
    if (node->is_object()) {
      for (auto it = node->begin(); it != node->end();) {
        if (it->is_null()) {
          it = node->erase(it);
        } else {
          if (it->is_structured()) pending.push_back(&*it);
          ++it;
        }
      }
    } else if (node->is_array()) {
      for (auto& element : *node) {
        // Go would decode a zero value here, which no list served here accepts.
        if (element.is_null()) throw api::ApiError::badRequest("the object holds null as a list element");
        if (element.is_structured()) pending.push_back(&element);
      }
    }
  }
}

namespace {

std::string typeMetaField(const json& served, const char* field, const std::string& kindName) {
  if (!served.contains(field)) return "";
  const json& value = served[field];
  if (!value.is_string())
    throw api::ApiError::badRequest("Object '" + kindName + "' in the request has " + field +
                                    " of type " + value.type_name() + ", not a string");
  return value.get<std::string>();
}

}  // namespace

std::vector<std::string> admitBody(json& served, const api::ResourceType& type, const std::string& version,
                                   FieldValidation validation) {
  const auto& names = type.names();
  if (api::machinery::nestsDeeperThan(served, api::machinery::kMaxJsonDepth))
    throw api::ApiError::badRequest("the object is nested deeper than the limit of " +
                                    std::to_string(api::machinery::kMaxJsonDepth) + " levels");
  dropNullMembers(served);
  const std::string expectedApiVersion = names.apiVersion(version);
  const std::string apiVersion = typeMetaField(served, "apiVersion", names.kind);
  const std::string kind = typeMetaField(served, "kind", names.kind);
  if (!apiVersion.empty() && apiVersion != expectedApiVersion)
    throw api::ApiError::badRequest("the API version in the data (" + apiVersion +
                                    ") does not match the expected API version (" + expectedApiVersion + ")");
  if (!kind.empty() && kind != names.kind)
    throw api::ApiError::badRequest("the kind in the data (" + kind + ") does not match the expected kind (" +
                                    names.kind + ")");
  served["apiVersion"] = expectedApiVersion;
  served["kind"] = names.kind;

  const auto wrongTypes = type.typeErrors(served, version);
  if (!wrongTypes.empty())
    throw api::ApiError::badRequest(names.kind + " in version " + api::quoted(version) + " cannot be handled as a " +
                                    names.kind + ": " + wrongTypes.front());
  std::vector<std::string> warnings;
  const auto unknown = type.unknownFields(served, version);
  if (unknown.empty()) return warnings;
  if (validation == FieldValidation::Strict) {
    std::string list;
    for (const auto& field : unknown) list += (list.empty() ? "" : ", ") + std::string("unknown field ") + api::quoted(field);
    throw api::ApiError::badRequest(names.kind + " in version " + api::quoted(version) + " cannot be handled as a " +
                                    names.kind + ": strict decoding error: " + list);
  }
  type.dropUnknownFields(served, version);  // never stored
  if (validation == FieldValidation::Warn)
    for (const auto& field : unknown) warnings.push_back("unknown field " + api::quoted(field));
  return warnings;
}

FieldValidation fieldValidationOf(const http::Request& request) {
  const std::string value = request.queryParam("fieldValidation").value_or("");
  if (value.empty() || value == "Warn") return FieldValidation::Warn;
  if (value == "Strict") return FieldValidation::Strict;
  if (value == "Ignore") return FieldValidation::Ignore;
  throw api::ApiError::badRequest("fieldValidation: Invalid value: " + api::quoted(value) +
                                  ": fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\"");
}

bool dryRunOf(const http::Request& request) {
  bool dryRun = false;
  for (auto [it, end] = request.query.equal_range("dryRun"); it != end; ++it) {
    if (it->second != "All")
      throw api::ApiError::badRequest("dryRun: Unsupported value: " + api::quoted(it->second) +
                                      ": supported values: \"All\"");
    dryRun = true;
  }
  return dryRun;
}

namespace {

struct AcceptClause {
  std::string mediaType;
  std::string parameters;  // everything after the media type, lower-cased
  double q = 1;
};

std::vector<AcceptClause> acceptClauses(const std::string& accept) {
  std::vector<AcceptClause> clauses;
  for (const auto& part : splitAccept(accept)) {
    AcceptClause clause{mediaTypeOf(part), asciiLowered(part.substr(std::min(part.size(), part.find(';')))), 1};
    const std::size_t q = clause.parameters.find(";q=");
    if (q != std::string::npos) {
      try {
        clause.q = std::stod(clause.parameters.substr(q + 3));
      } catch (const std::exception&) {
        clause.q = 0;  // unparseable: ignored, as goautoneg ignores it
      }
    }
    clauses.push_back(std::move(clause));
  }
  std::stable_sort(clauses.begin(), clauses.end(), [](const auto& a, const auto& b) { return a.q > b.q; });
  return clauses;
}

}  // namespace

ResponseForm negotiateResponse(const http::Request& request, bool protobufServed) {
  const auto accept = request.header("Accept");
  if (!accept || accept->empty()) return {};
  for (const auto& clause : acceptClauses(*accept)) {
    if (clause.q <= 0) continue;
    const bool asTable = clause.parameters.find("as=table") != std::string::npos &&
                         clause.parameters.find("g=meta.k8s.io") != std::string::npos;
    if (asTable && clause.mediaType == "application/json")
      return {ResponseKind::Table, parseIncludeObject(request.queryParam("includeObject").value_or(""))};
    if (clause.parameters.find("as=") != std::string::npos) continue;  // another meta type, or a protobuf Table: not offered
    if (clause.mediaType == kProtobufMediaType && protobufServed) return {ResponseKind::Protobuf};
    if (clause.mediaType == "application/json" || clause.mediaType == "*/*" || clause.mediaType == "application/*")
      return {ResponseKind::Json};
  }
  throw api::ApiError::notAcceptable("the server was unable to respond with a content type that the client supports");
}

bool servesProtobuf(const api::ResourceType& type, const std::string& version) {
  return api::machinery::hasProtobufForm(type.names().apiVersion(version), type.names().kind);
}

std::function<bool(const json&)> selectorFilter(const http::Request& request, const api::ResourceType& type) {
  const std::string labelText = request.queryParam("labelSelector").value_or("");
  const std::string fieldText = request.queryParam("fieldSelector").value_or("");
  if (labelText.empty() && fieldText.empty()) return {};
  std::optional<api::machinery::LabelSelector> labels;
  std::optional<api::machinery::FieldSelector> fields;
  try {
    if (!labelText.empty()) labels = api::machinery::LabelSelector::parse(labelText);
    if (!fieldText.empty()) fields = api::machinery::FieldSelector::parse(fieldText);
  } catch (const std::exception& error) {
    throw api::ApiError::badRequest(error.what());
  }
  if (fields)
    for (const auto& field : fields->fields())
      if (!isSelectableField(type.names(), field))
        throw api::ApiError::badRequest("field label not supported: " + field);
  const auto& names = type.names();
  return [labels, fields, &names](const json& object) {
    if (labels && !labels->matches(labelsOf(object))) return false;
    if (fields && !fields->matches([&](const std::string& field) { return selectableFieldValue(names, object, field); }))
      return false;
    return true;
  };
}

void addWarnings(http::Headers& headers, const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) headers.emplace("Warning", "299 - " + api::quoted(warning));
}

http::Response jsonResponse(int status, const json& body) {
  http::Response response;
  response.status = status;
  response.headers.emplace("Content-Type", "application/json");
  response.body = api::machinery::dumpSafe(body);  // the one place responses are serialised
  return response;
}

http::Response objectResponse(int status, const json& body, const ResponseForm& form) {
  if (form.kind != ResponseKind::Protobuf) return jsonResponse(status, body);
  http::Response response;
  response.status = status;
  response.headers.emplace("Content-Type", kProtobufMediaType);
  response.body = api::machinery::encodeKubernetesProtobuf(body);
  return response;
}

http::Response statusResponse(const api::ApiError& error, const http::Request& request) {
  // /api/v1/... and /apis/<group>/...: a group with built-in types may answer its errors in protobuf.
  std::string group;
  if (request.path.rfind("/apis/", 0) == 0) group = request.path.substr(6, request.path.find('/', 6) - 6);
  const bool builtIn = request.path.rfind("/api/", 0) == 0 || api::machinery::hasProtobufGroup(group);
  ResponseForm form;
  try {
    if (error.code() != 406 && builtIn) form = negotiateResponse(request, true);
  } catch (const api::ApiError&) {
  }
  return objectResponse(error.code(), error.toStatus(), form);
}

http::Response protobufListResponse(const std::string& apiVersion, const std::string& listKind, const json& metadata,
                                    const std::vector<std::shared_ptr<const std::string>>& items) {
  api::machinery::ProtobufListWriter writer(apiVersion, listKind, metadata);
  auto prefixes = std::make_shared<std::vector<std::string>>();
  prefixes->reserve(items.size());  // never reallocated: the pieces below point into it
  for (const auto& item : items) prefixes->push_back(writer.itemPrefix(api::machinery::protobufRawMessage(*item)));
  http::Response response;
  response.headers.emplace("Content-Type", kProtobufMediaType);
  response.body = writer.head();
  for (std::size_t i = 0; i < items.size(); ++i) {
    response.bodyPieces.push_back({prefixes, (*prefixes)[i]});
    response.bodyPieces.push_back({items[i], api::machinery::protobufRawMessage(*items[i])});
  }
  response.bodyPieces.push_back({nullptr, api::machinery::ProtobufListWriter::tail()});
  return response;
}

JsonListWriter::JsonListWriter(const std::string& kind, const std::string& apiVersion)
    : head_("{\"kind\":" + api::machinery::dumpSafe(json(kind)) +
            ",\"apiVersion\":" + api::machinery::dumpSafe(json(apiVersion))) {}

void JsonListWriter::add(const json& item) {
  addSerialized(std::make_shared<const std::string>(api::machinery::dumpSafe(item)));
}

void JsonListWriter::addSerialized(std::shared_ptr<const std::string> item) {
  if (!items_.empty()) items_.push_back({nullptr, ","});
  const std::string_view bytes = *item;
  items_.push_back({std::move(item), bytes});
}

http::Response JsonListWriter::finish(const json& metadata) {
  http::Response response;
  response.status = 200;
  response.headers.emplace("Content-Type", "application/json");
  response.body = std::move(head_) + ",\"metadata\":" + api::machinery::dumpSafe(metadata) + ",\"items\":[";
  response.bodyPieces = std::move(items_);
  response.bodyPieces.push_back({nullptr, "]}"});
  return response;
}

}  // namespace fedhpa::apiserver
