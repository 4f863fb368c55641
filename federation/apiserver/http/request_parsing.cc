#include "federation/apiserver/http/request_parsing.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace fedhpa::apiserver::http {

bool CaseInsensitiveLess::operator()(const std::string& a, const std::string& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
  });
}

std::optional<std::string> Request::header(const std::string& name) const {
  const auto it = headers.find(name);
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Request::queryParam(const std::string& name) const {
  const auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

std::string percentDecode(const std::string& text, bool plusIsSpace) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size() + 0 && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (c == '+' && plusIsSpace) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

Request requestFrom(std::string method, const std::string& target, Headers headers, std::string body) {
  Request request;
  request.method = std::move(method);
  const auto question = target.find('?');
  request.path = percentDecode(target.substr(0, question), false);
  if (question != std::string::npos) {
    const std::string query = target.substr(question + 1);
    std::size_t start = 0;
    while (start <= query.size()) {
      const auto amp = query.find('&', start);
      const std::string pair = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
      if (!pair.empty()) {
        const auto equals = pair.find('=');
        request.query.emplace(percentDecode(pair.substr(0, equals), true),
                              equals == std::string::npos ? "" : percentDecode(pair.substr(equals + 1), true));
      }
      if (amp == std::string::npos) break;
      start = amp + 1;
    }
  }
  request.headers = std::move(headers);
  request.body = std::move(body);
  return request;
}

}  // namespace

Request toRequest(const boost::beast::http::request<boost::beast::http::string_body>& message) {
  Headers headers;
  for (const auto& field : message) headers.emplace(std::string(field.name_string()), std::string(field.value()));
  return requestFrom(std::string(message.method_string()), std::string(message.target()), std::move(headers),
                     message.body());
}

std::optional<std::string> RequestParser::header(const std::string& name) const {
  const auto it = headers_.find(name);
  if (it == headers_.end()) return std::nullopt;
  return it->second;
}

Request RequestParser::release() {
  return requestFrom(std::move(method_), target_, std::move(headers_), std::move(body_));
}

void RequestParser::on_request_impl(boost::beast::http::verb, boost::beast::string_view method,
                                    boost::beast::string_view target, int version, boost::beast::error_code&) {
  method_ = std::string(method);
  target_ = std::string(target);
  version_ = version;
}

void RequestParser::on_field_impl(boost::beast::http::field, boost::beast::string_view name,
                                  boost::beast::string_view value, boost::beast::error_code&) {
  headers_.emplace(std::string(name), std::string(value));
}

void RequestParser::on_body_init_impl(const boost::optional<std::uint64_t>& contentLength, boost::beast::error_code&) {
  // body_limit() has already refused a larger Content-Length.
  if (contentLength) body_.reserve(static_cast<std::size_t>(*contentLength));
}

std::size_t RequestParser::on_body_impl(boost::beast::string_view body, boost::beast::error_code&) {
  body_.append(body.data(), body.size());
  return body.size();
}

std::size_t RequestParser::on_chunk_body_impl(std::uint64_t, boost::beast::string_view body, boost::beast::error_code&) {
  body_.append(body.data(), body.size());
  return body.size();
}

// What Go's net/http answers itself, before kube-apiserver's handlers see the request: plain text.
Response goHttpError(int status, const std::string& detail) {
  std::string text = std::to_string(status) + " " +
                     std::string(boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status)));
  if (!detail.empty()) text += ": " + detail;
  Response response{status, {}, text};
  response.headers.emplace("Content-Type", "text/plain; charset=utf-8");
  return response;
}

// Beast frames a body by Transfer-Encoding only when its last coding is chunked, and otherwise
// reads none: the body of "Transfer-Encoding: gzip" (or "chunked, identity") would be parsed as a
// second request, one a proxy in front frames differently (request smuggling). Go's net/http
// accepts exactly one Transfer-Encoding field whose value is "chunked" and answers anything else
// 501 before any handler; RFC 9112 allows 400 too, but kube-apiserver answers what Go does.
bool supportedTransferEncoding(const RequestParser& parser) {
  const std::size_t fields = parser.count("Transfer-Encoding");
  if (fields == 0) return true;
  return fields == 1 && boost::beast::iequals(*parser.header("Transfer-Encoding"), "chunked");
}

// Go's exact answer: it does not echo the coding back (a reflected value could carry a script).
Response unsupportedTransferEncoding() {
  Response response{501, {}, "Unsupported transfer encoding"};
  response.headers.emplace("Content-Type", "text/plain; charset=utf-8");
  return response;
}

// "METHOD TARGET HTTP/major.minor", digits only: what Go's ParseHTTPVersion accepts.
bool wellFormedVersion(const std::string& requestLine) {
  const auto space = requestLine.rfind(' ');
  if (space == std::string::npos) return false;
  const std::string version = requestLine.substr(space + 1);
  if (version.rfind("HTTP/", 0) != 0) return false;
  const auto dot = version.find('.', 5);
  const auto digits = [](std::string_view text) {
    return !text.empty() && text.size() <= 3 &&
           std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  return dot != std::string::npos && digits(std::string_view(version).substr(5, dot - 5)) &&
         digits(std::string_view(version).substr(dot + 1));
}

}  // namespace fedhpa::apiserver::http
