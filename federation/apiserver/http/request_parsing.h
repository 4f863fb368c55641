// From Beast's parsed message to the handler's Request: percent-decoded path and query,
// headers as they came.
#pragma once

#include <boost/beast/http.hpp>
#include <string>

#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::http {

// "%2C" -> ","; with plusIsSpace, "+" -> " " (query strings). Malformed escapes stay as they are.
std::string percentDecode(const std::string& text, bool plusIsSpace);

Request toRequest(const boost::beast::http::request<boost::beast::http::string_body>& message);

}  // namespace fedhpa::apiserver::http
