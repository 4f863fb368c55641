// A deliberately plain HTTP/1.1 client for API server tests: one request per connection, and a
// watch reader that decodes the chunked stream into one JSON event per line.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "federation/common/ascii.h"

namespace fedhpa::apiserver::testing {

struct HttpReply {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body); }
  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

inline void readHeaders(boost::asio::ip::tcp::iostream& stream, HttpReply& reply) {
  std::string line;
  std::getline(stream, line);
  if (line.size() >= 12) reply.status = std::stoi(line.substr(9, 3));
  while (std::getline(stream, line) && line != "\r" && !line.empty()) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(value.begin());
    if (!value.empty() && value.back() == '\r') value.pop_back();
    reply.headers.emplace(asciiLowered(line.substr(0, colon)), value);
  }
}

// Reads one chunk of a chunked body; nullopt at the terminating chunk or when the stream ends.
inline std::optional<std::string> readChunk(boost::asio::ip::tcp::iostream& stream) {
  std::string sizeLine;
  if (!std::getline(stream, sizeLine)) return std::nullopt;
  const std::size_t size = std::stoul(sizeLine, nullptr, 16);
  if (size == 0) return std::nullopt;
  std::string data(size, '\0');
  stream.read(data.data(), static_cast<std::streamsize>(size));
  std::string crlf;
  std::getline(stream, crlf);
  return data;
}

inline HttpReply call(std::uint16_t port, const std::string& method, const std::string& target,
                      const std::string& body = "",
                      const std::map<std::string, std::string>& headers = {{"Content-Type", "application/json"}}) {
  boost::asio::ip::tcp::iostream stream("127.0.0.1", std::to_string(port));
  stream.expires_after(std::chrono::seconds(20));
  stream << method << " " << target << " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) stream << name << ": " << value << "\r\n";
  stream << "Content-Length: " << body.size() << "\r\n\r\n" << body << std::flush;
  HttpReply reply;
  readHeaders(stream, reply);
  if (asciiLowered(reply.header("transfer-encoding")) == "chunked") {
    while (auto chunk = readChunk(stream)) reply.body += *chunk;
  } else {
    const std::string length = reply.header("content-length");
    if (!length.empty()) {
      reply.body.resize(std::stoul(length));
      stream.read(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
    }
  }
  return reply;
}

// An open watch: GET with watch=true, then events as they come.
class WatchConnection {
 public:
  WatchConnection(std::uint16_t port, const std::string& target, const std::string& accept = "application/json")
      : stream_("127.0.0.1", std::to_string(port)) {
    stream_.expires_after(std::chrono::seconds(30));
    stream_ << "GET " << target << " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: " << accept << "\r\n\r\n" << std::flush;
    readHeaders(stream_, reply_);
  }
  int status() const { return reply_.status; }
  // The next event, or nullopt when the server ended the stream.
  std::optional<nlohmann::json> next() {
    while (true) {
      const auto newline = pending_.find('\n');
      if (newline != std::string::npos) {
        const std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return nlohmann::json::parse(line);
      }
      auto chunk = readChunk(stream_);
      if (!chunk) return std::nullopt;
      pending_ += *chunk;
    }
  }
  std::string header(const std::string& name) const { return reply_.header(name); }
  // The next frame of a protobuf watch (a 4-byte big-endian length, then that many bytes: one
  // WatchEvent message), or nullopt when the server ended the stream.
  std::optional<std::string> nextFrame() {
    while (true) {
      if (pending_.size() >= 4) {
        const auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(pending_[i])); };
        const std::size_t size = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
        if (pending_.size() >= 4 + size) {
          std::string frame = pending_.substr(4, size);
          pending_.erase(0, 4 + size);
          return frame;
        }
      }
      auto chunk = readChunk(stream_);
      if (!chunk) return std::nullopt;
      pending_ += *chunk;
    }
  }

 private:
  boost::asio::ip::tcp::iostream stream_;
  HttpReply reply_;
  std::string pending_;
};

// The default namespace's HPAs, in autoscaling/v2 and v1.
inline constexpr const char* kHpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
inline constexpr const char* kHpasV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";

// Which server's resources a parameterized test serves: the federation's or a member-sim's.
enum class ResourceSet { Federation, MemberSim };

}  // namespace fedhpa::apiserver::testing
