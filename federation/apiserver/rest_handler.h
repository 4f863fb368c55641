// The REST verbs of one served resource, as kube-apiserver's handlers implement them: decode the
// body (JSON or Kubernetes protobuf), check fields per fieldValidation, convert between the URL's
// version and the stored form, apply patches, answer with objects, lists, Tables or watch streams.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "federation/apiserver/http/http_types.h"
#include "federation/apiserver/request_info.h"
#include "federation/apiserver/resource_store.h"
#include "federation/apiserver/watch_session.h"

namespace fedhpa::apiserver {

class RestHandler {
 public:
  RestHandler(storage::Storage& storage, const std::vector<std::shared_ptr<const api::ResourceType>>& resources,
              WatchRegistry& watches, std::chrono::seconds minRequestTimeout);

  // Answers through responder; throws ApiError for every failure before a response started.
  void handle(const RequestInfo& info, const http::Request& request, const std::shared_ptr<http::Responder>& responder);

  // Answers a LIST that the watch cache holds at once (ResourceStore::listFromMemory), every
  // object's served bytes made already, on the calling thread, and returns true; false, having
  // answered nothing, when it needs more: a Table, selectors, a comparison with the storage's
  // revision, a wait for the cache, a storage read, an object to convert and serialize. handle()
  // answers those.
  bool listFromMemory(const RequestInfo& info, const http::Request& request,
                      const std::shared_ptr<http::Responder>& responder);

  // The store of a resource by group and plural name, for server-side helpers (namespace lifecycle).
  ResourceStore* find(const std::string& group, const std::string& resource);

  struct Call;  // one request in flight: its resource, version and parsed options (rest_handler.cc)

 private:
  ResourceStore& storeFor(const RequestInfo& info, std::string& version);
  http::Response get(const Call& call);
  void list(const Call& call, const std::shared_ptr<http::Responder>& responder);
  // The list's answer as the objects' served bytes; nullopt when fromMemoryOnly and the storage
  // cannot answer at once.
  std::optional<http::Response> servedList(const Call& call, const ListRequest& listRequest, bool fromMemoryOnly);
  http::Response create(const Call& call);
  http::Response update(const Call& call);
  http::Response patch(const Call& call);
  http::Response remove(const Call& call);
  http::Response removeCollection(const Call& call);
  http::Response scale(const Call& call);

  void admitNamespace(const std::string& namespaceName);

  std::map<std::string, std::unique_ptr<ResourceStore>> stores_;  // by "group/resource"
  WatchRegistry& watches_;
  std::chrono::seconds minRequestTimeout_;
};

}  // namespace fedhpa::apiserver
