#include "federation/apiserver/http/request_parsing.h"

#include <cctype>

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

Request toRequest(const boost::beast::http::request<boost::beast::http::string_body>& message) {
  Request request;
  request.method = std::string(message.method_string());
  const std::string target(message.target());
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
  for (const auto& field : message) request.headers.emplace(std::string(field.name_string()), std::string(field.value()));
  request.body = message.body();
  return request;
}

}  // namespace fedhpa::apiserver::http
