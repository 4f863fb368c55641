// From Beast's parsed message to the handler's Request: percent-decoded path and query,
// headers as they came; and what Go's net/http refuses before any handler.
#pragma once

#include <boost/beast/http.hpp>
#include <optional>
#include <string>

#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::http {

// "%2C" -> ","; with plusIsSpace, "+" -> " " (query strings). Malformed escapes stay as they are.
std::string percentDecode(const std::string& text, bool plusIsSpace);

Request toRequest(const boost::beast::http::request<boost::beast::http::string_body>& message);

// The server's HTTP/1 request parser. Beast's own request_parser keeps each header in 16-bit
// lengths, so one value above 64 KiB cannot be held (a 100 KiB bearer token, which kube serves);
// this one keeps what Request needs, bounded as a whole by header_limit() and body_limit().
class RequestParser : public boost::beast::http::basic_parser<true> {
 public:
  int version() const { return version_; }
  const std::string& method() const { return method_; }
  std::size_t count(const std::string& header) const { return headers_.count(header); }
  std::optional<std::string> header(const std::string& name) const;
  // The parsed request; the parser is spent afterwards.
  Request release();

 private:
  void on_request_impl(boost::beast::http::verb, boost::beast::string_view method, boost::beast::string_view target,
                       int version, boost::beast::error_code&) override;
  void on_response_impl(int, boost::beast::string_view, int, boost::beast::error_code&) override {}
  void on_field_impl(boost::beast::http::field, boost::beast::string_view name, boost::beast::string_view value,
                     boost::beast::error_code&) override;
  void on_header_impl(boost::beast::error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>& contentLength, boost::beast::error_code&) override;
  std::size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code&) override;
  void on_chunk_header_impl(std::uint64_t, boost::beast::string_view, boost::beast::error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, boost::beast::string_view body, boost::beast::error_code&) override;
  void on_finish_impl(boost::beast::error_code&) override {}

  int version_ = 11;
  std::string method_;
  std::string target_;
  Headers headers_;
  std::string body_;
};

// What Go's net/http checks and answers itself, before kube-apiserver's handlers see a request.
// Its plain-text error answer: "400 Bad Request: detail".
Response goHttpError(int status, const std::string& detail);
// Whether Go accepts the request's Transfer-Encoding (none, or exactly one "chunked").
bool supportedTransferEncoding(const RequestParser& parser);
// Go's answer to any other (501), which does not echo the coding back.
Response unsupportedTransferEncoding();
// Whether a request line ends in a version Go's ParseHTTPVersion accepts.
bool wellFormedVersion(const std::string& requestLine);

}  // namespace fedhpa::apiserver::http
