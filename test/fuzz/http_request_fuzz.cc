// The bytes a client sends on a connection: the server's own RequestParser with the server's
// default header and body limits, then the API server's handler over in-memory SQLite (request
// info, body decoding, every verb). Every answer is checked by InMemoryApi: one answer, a valid
// status, a JSON body that parses.
#include <boost/beast/http.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "federation/apiserver/http/request_parsing.h"
#include "federation/apiserver/http/server.h"
#include "test/fuzz/in_memory_api.h"

using namespace fedhpa;
namespace http = fedhpa::apiserver::http;
namespace beasthttp = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::InMemoryApi& api = fuzz::sharedApi();
  static const http::ServerOptions defaults;
  http::RequestParser parser;
  parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(defaults.maxHeaderBytes, UINT32_MAX)));
  parser.body_limit(defaults.maxRequestBodyBytes);
  parser.eager(true);
  boost::beast::error_code error;
  std::size_t offset = 0;
  while (!parser.is_done() && offset < size) {
    const std::size_t used = parser.put(boost::asio::buffer(data + offset, size - offset), error);
    if (error == beasthttp::error::need_more) break;
    if (error) return 0;  // the server answers 400 and closes the connection
    offset += used;
  }
  if (!parser.is_done()) {
    if (!parser.got_some()) return 0;  // nothing but a closed connection
    parser.put_eof(error);
    if (error || !parser.is_done()) return 0;
  }
  http::Request request = parser.release();
  request.remoteAddress = "192.0.2.1";
  api.serve(std::move(request));
  return 0;
}
