// The query of a list, watch or get, as a client writes it after "?": limit, continue tokens,
// resourceVersion and resourceVersionMatch, timeoutSeconds, label and field selectors, watch
// and bookmark flags, Table output. The first byte picks the URL (HPAs in a namespace, in all
// namespaces, one HPA, Namespaces, a Deployment's scale); the rest is the raw query string.
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>

#include "federation/apiserver/http/request_parsing.h"
#include "test/fuzz/fuzz_checks.h"
#include "test/fuzz/in_memory_api.h"

using namespace fedhpa;
namespace http = fedhpa::apiserver::http;
namespace beasthttp = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::InMemoryApi& api = fuzz::sharedApi();
  static const char* const paths[] = {
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
      "/apis/autoscaling/v1/horizontalpodautoscalers",
      "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web-1",
      "/api/v1/namespaces",
      "/apis/apps/v1/namespaces/default/deployments",
      "/apis/federation/v1beta1/clusters",
  };
  if (size < 1) return 0;
  const std::string path = paths[data[0] % std::size(paths)];
  beasthttp::request<beasthttp::string_body> message;
  message.method(beasthttp::verb::get);
  message.target(path + "?" + std::string(fuzz::asText(data + 1, size - 1)));
  if (data[0] & 0x80) message.set(beasthttp::field::accept, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  api.serve(http::toRequest(message));
  return 0;
}
