#include "federation/apiserver/request_info.h"

#include <gtest/gtest.h>

namespace fedhpa::apiserver {
namespace {

http::Request request(const std::string& method, const std::string& path, bool watch = false) {
  http::Request r;
  r.method = method;
  r.path = path;
  if (watch) r.query.emplace("watch", "true");
  return r;
}

TEST(RequestInfo, NamespacedItemAndSubresource) {
  const auto info = parseResourceRequest(
      request("PUT", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache/status"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->group, "autoscaling");
  EXPECT_EQ(info->version, "v2");
  EXPECT_EQ(info->namespaceName, "default");
  EXPECT_EQ(info->resource, "horizontalpodautoscalers");
  EXPECT_EQ(info->name, "php-apache");
  EXPECT_EQ(info->subresource, "status");
  EXPECT_EQ(info->verb, "update");
}

TEST(RequestInfo, CoreGroupListsAndWatches) {
  const auto list = parseResourceRequest(request("GET", "/api/v1/events"));
  ASSERT_TRUE(list);
  EXPECT_EQ(list->group, "");
  EXPECT_EQ(list->resource, "events");
  EXPECT_EQ(list->verb, "list");
  EXPECT_EQ(parseResourceRequest(request("GET", "/api/v1/namespaces/ns/events", true))->verb, "watch");
  EXPECT_EQ(parseResourceRequest(request("GET", "/apis/apps/v1/watch/namespaces/ns/deployments"))->verb, "watch");
  http::Request python = request("GET", "/api/v1/namespaces/ns/events");
  python.query.emplace("watch", "True");  // what the Python client sends
  EXPECT_EQ(parseResourceRequest(python)->verb, "watch");
  EXPECT_EQ(parseResourceRequest(request("DELETE", "/api/v1/namespaces/ns/events"))->verb, "deletecollection");
}

TEST(RequestInfo, NamespacesAreTheirOwnResource) {
  const auto item = parseResourceRequest(request("GET", "/api/v1/namespaces/kube-system"));
  ASSERT_TRUE(item);
  EXPECT_EQ(item->resource, "namespaces");
  EXPECT_EQ(item->name, "kube-system");
  EXPECT_EQ(item->namespaceName, "");
  const auto status = parseResourceRequest(request("PUT", "/api/v1/namespaces/kube-system/status"));
  EXPECT_EQ(status->resource, "namespaces");
  EXPECT_EQ(status->subresource, "status");
}

TEST(RequestInfo, NonResourcePaths) {
  for (const char* path : {"/version", "/apis", "/api", "/apis/autoscaling", "/openapi/v3", "/healthz"})
    EXPECT_FALSE(parseResourceRequest(request("GET", path))) << path;
  EXPECT_FALSE(parseResourceRequest(request("GET", "/apis/a/v1/namespaces/n/r/name/sub/extra")));
}

}  // namespace
}  // namespace fedhpa::apiserver
