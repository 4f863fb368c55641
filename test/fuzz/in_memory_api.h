// The federation API server over in-memory SQLite, driven without a socket: what the request-level
// harnesses (HTTP bytes, list options) send their requests to. It starts with a namespace of HPAs
// to list, page through and watch, and checks every answer the way a client would read it.
#pragma once

#include <memory>

#include "federation/apiserver/api_server.h"
#include "federation/apiserver/http/http_types.h"

namespace fedhpa::fuzz {

namespace http = apiserver::http;

class InMemoryApi {
 public:
  InMemoryApi();
  ~InMemoryApi();

  // Serves one request and returns the answer (for a watch, the status and whatever the stream got
  // before it was closed). A finding when the handler answers twice or not at all, with a status
  // outside 100-599, or with a JSON body that does not parse. With FEDHPA_FUZZ_FAIL_ON_500 set in
  // the environment a 500 is one too: kube answers client errors with 4xx, and this finds the
  // requests that still get a 500 (not a finding by default: a crash is, an imperfect code not).
  http::Response serve(http::Request request);

 private:
  std::unique_ptr<apiserver::ApiServer> server_;
  std::shared_ptr<http::Handler> handler_;
  bool failOn500_ = false;
};

// One instance per process: building the server (schemas, SQLite) costs more than a request.
InMemoryApi& sharedApi();

}  // namespace fedhpa::fuzz
