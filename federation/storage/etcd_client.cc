#include "federation/storage/etcd_client.h"

#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>

#include <array>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "federation/common/body_lines.h"
#include "federation/common/logging.h"
#include "federation/common/response_body.h"
#include "federation/storage/storage.h"

namespace fedhpa::storage {

namespace http = web::http;
using web::http::client::http_client;
using web::http::client::http_client_config;
using nlohmann::json;

namespace {

// cpprestsdk's timeout is an inactivity timer and 0 cancels at once, so a stream that must survive
// long silences gets a very long one instead of none.
constexpr std::chrono::hours kStreamTimeout{24 * 365};
constexpr std::size_t kReadRounds = 4;
constexpr std::chrono::milliseconds kBetweenRounds{250};

std::string readFile(const std::string& path, const char* what) {
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty())
    throw StorageError(StorageError::Code::Unavailable, std::string("cannot read the etcd ") + what + " " + path);
  return text.str();
}

// Failures that happen before etcd can have seen the request: safe to send elsewhere even for a write.
bool neverReachedEtcd(const std::exception& error) {
  const std::string message = error.what();
  for (const char* before : {"Failed to connect", "Failed to resolve", "Error in SSL handshake", "Failed to set TLS SNI"})
    if (message.find(before) != std::string::npos) return true;
  return false;
}

class GatewayStream : public EtcdStream {
 public:
  GatewayStream(std::unique_ptr<http_client> client, http::http_response response,
                pplx::cancellation_token_source cancel)
      : client_(std::move(client)), lines_(response.body()), cancel_(std::move(cancel)) {}
  ~GatewayStream() override { cancel(); }

  std::optional<json> next() override {
    std::optional<std::string_view> line;
    try {
      line = lines_.next();
    } catch (const std::exception& error) {
      throw StorageError(StorageError::Code::Unavailable, std::string("etcd stream: ") + error.what());
    }
    if (!line) return std::nullopt;
    json message = json::parse(line->begin(), line->end(), nullptr, false);
    if (message.is_discarded())
      throw StorageError(StorageError::Code::Unavailable, "etcd stream: unreadable " + std::string(*line));
    return message;
  }

  void cancel() override { cancel_.cancel(); }

 private:
  std::unique_ptr<http_client> client_;  // a client of its own: its connection is never shared
  BodyLines lines_;
  pplx::cancellation_token_source cancel_;
};

}  // namespace

std::string EtcdReply::error() const {
  if (body.is_object() && body.contains("message") && body["message"].is_string())
    return body["message"].get<std::string>();
  return "HTTP " + std::to_string(status) + " " + body.dump();
}

class EtcdClient::Impl {
  enum Use : std::size_t { kRead = 0, kWrite = 1 };

 public:
  explicit Impl(EtcdClientOptions options)
      : options_(std::move(options)),
        ca_(readFile(options_.tls.caFile, "CA file")),
        cert_(readFile(options_.tls.certFile, "certificate file")),
        key_(readFile(options_.tls.keyFile, "key file")) {
    if (options_.endpoints.empty()) throw StorageError(StorageError::Code::Unavailable, "no etcd endpoints");
    if (cert_.empty() != key_.empty())
      throw StorageError(StorageError::Code::Unavailable, "an etcd client certificate needs its key, and a key its certificate");
    for (const Use use : {kRead, kWrite})
      for (const auto& endpoint : options_.endpoints) clients_[use].push_back(newClient(endpoint, timeoutOf(use)));
  }

  std::shared_ptr<http_client> clientFor(Use use, std::size_t index) {
    std::lock_guard lock(clientsMutex_);
    return clients_[use][index];
  }

  // A fresh client for the endpoint: the old one's pooled connections close when its last
  // request ends, so none of them serves another reply after an error's unread trailer.
  void dropConnections(Use use, std::size_t index, const std::shared_ptr<http_client>& poisoned) {
    std::lock_guard lock(clientsMutex_);
    if (clients_[use][index] == poisoned) clients_[use][index] = newClient(options_.endpoints[index], timeoutOf(use));
  }

  EtcdReply call(const std::string& path, const json& body, bool repeatable, bool errorLikely) {
    const std::string payload = body.dump();
    std::string failures;
    // A read goes round the endpoints a few times: an election after a member died answers 503
    // ("no leader") everywhere for about a second.
    const std::size_t attempts = options_.endpoints.size() * (repeatable ? kReadRounds : 1);
    const std::size_t first = preferred_.load();
    for (std::size_t attempt = 0; attempt < attempts; ++attempt) {
      const std::size_t index = (first + attempt) % options_.endpoints.size();
      if (attempt > 0 && index == first) std::this_thread::sleep_for(kBetweenRounds * (attempt / options_.endpoints.size()));
      try {
        EtcdReply reply = send(kRead, index, path, payload, errorLikely);
        // etcd answers 503 (no leader, member stopping) on a member that cannot serve: another may.
        if (reply.status == 503 && repeatable) {
          failures += " " + options_.endpoints[index] + ": " + reply.error() + ";";
          preferred_ = (index + 1) % options_.endpoints.size();
          continue;
        }
        return reply;
      } catch (const std::exception& error) {
        failures += " " + options_.endpoints[index] + ": " + error.what() + ";";
        preferred_ = (index + 1) % options_.endpoints.size();
        if (!repeatable && !neverReachedEtcd(error))
          throw StorageError(StorageError::Code::Unavailable, "etcd" + path + ":" + failures);
        FEDHPA_LOG(debug) << "etcd " << options_.endpoints[index] << path << ": " << error.what() << "; trying the next endpoint";
      }
    }
    throw StorageError(StorageError::Code::Unavailable, "etcd" + path + ":" + failures);
  }

  EtcdReply callWrite(const std::string& path, const json& body, bool& earlierTryMayHaveApplied) {
    const std::string payload = body.dump();
    const auto deadline = std::chrono::steady_clock::now() + options_.requestTimeout;
    std::string failures;
    earlierTryMayHaveApplied = false;
    for (std::size_t attempt = 1;; ++attempt) {
      const std::size_t index = preferred_.load() % options_.endpoints.size();
      try {
        EtcdReply reply = send(kWrite, index, path, payload, false);
        if (reply.status < 500) return reply;  // answered: applied, or refused by etcd itself
        // "leader changed", "no leader", "request timed out": the last may yet have applied.
        failures += " " + options_.endpoints[index] + ": " + reply.error() + ";";
        earlierTryMayHaveApplied = true;
      } catch (const std::exception& error) {
        failures += " " + options_.endpoints[index] + ": " + error.what() + ";";
        if (!neverReachedEtcd(error)) earlierTryMayHaveApplied = true;
      }
      FEDHPA_LOG(debug) << "etcd " << options_.endpoints[index] << path << " (try " << attempt << "):" << failures;
      preferred_ = (index + 1) % options_.endpoints.size();
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) throw StorageError(StorageError::Code::Unavailable, "etcd" + path + ":" + failures);
      // Once round every endpoint, a pause: an election takes about a second.
      if (attempt % options_.endpoints.size() == 0)
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kBetweenRounds, deadline - now));
    }
  }

  std::unique_ptr<EtcdStream> stream(const std::string& path, const json& body) {
    const std::string payload = body.dump();
    std::string failures;
    const std::size_t first = preferred_.load();
    for (std::size_t attempt = 0; attempt < options_.endpoints.size(); ++attempt) {
      const std::size_t index = (first + attempt) % options_.endpoints.size();
      auto client = newClient(options_.endpoints[index], kStreamTimeout);
      pplx::cancellation_token_source cancel;
      try {
        http::http_response response =
            client->request(http::methods::POST, path, payload, "application/json", cancel.get_token()).get();
        if (response.status_code() == 200)
          return std::make_unique<GatewayStream>(std::move(client), std::move(response), std::move(cancel));
        failures += " " + options_.endpoints[index] + ": HTTP " + std::to_string(response.status_code()) + ";";
      } catch (const std::exception& error) {
        failures += " " + options_.endpoints[index] + ": " + error.what() + ";";
      }
      cancel.cancel();
      preferred_ = (index + 1) % options_.endpoints.size();
    }
    throw StorageError(StorageError::Code::Unavailable, "etcd" + path + ":" + failures);
  }

  const std::vector<std::string>& endpoints() const { return options_.endpoints; }

 private:
  // One POST to one endpoint; throws what cpprestsdk throws when no reply came.
  EtcdReply send(Use use, std::size_t index, const std::string& path, const std::string& payload, bool errorLikely) {
    const std::shared_ptr<http_client> client = clientFor(use, index);
    // A fresh request every attempt: cpprestsdk asserts (and aborts) when one is sent twice.
    http::http_request request(http::methods::POST);
    request.set_request_uri(path);
    request.set_body(payload, "application/json");
    if (errorLikely) request.headers().add("Connection", "close");
    const http::http_response response = client->request(request).get();
    const std::string text = bodyOf(response);
    const int status = response.status_code();
    EtcdReply reply{status, json::parse(text, nullptr, false)};
    if (reply.body.is_discarded()) reply.body = json{{"message", text}};
    if (!reply.ok() && !errorLikely) dropConnections(use, index, client);
    return reply;
  }

  std::chrono::milliseconds timeoutOf(Use use) const {
    return use == kWrite ? options_.writeTryTimeout : std::chrono::milliseconds(options_.requestTimeout);
  }

  template <class Duration>
  std::unique_ptr<http_client> newClient(const std::string& endpoint, Duration timeout) const {
    http_client_config config;
    config.set_timeout(timeout);
    if (!ca_.empty() || !cert_.empty())
      // Copies: a stream's client may outlive this Impl (a watch thread finishing after the storage).
      config.set_ssl_context_callback([ca = ca_, cert = cert_, key = key_](boost::asio::ssl::context& context) {
        if (!ca.empty()) context.add_certificate_authority(boost::asio::buffer(ca));
        if (!cert.empty()) {
          context.use_certificate_chain(boost::asio::buffer(cert));
          context.use_private_key(boost::asio::buffer(key), boost::asio::ssl::context::pem);
        }
      });
    return std::make_unique<http_client>(endpoint, config);
  }

  EtcdClientOptions options_;
  const std::string ca_, cert_, key_;  // PEM, read once: the callback runs for every connection
  std::mutex clientsMutex_;
  // Per endpoint, one client for reads and one for writes: a write's try is cut much sooner.
  std::array<std::vector<std::shared_ptr<http_client>>, 2> clients_;
  std::atomic<std::size_t> preferred_{0};  // the endpoint that answered last
};

EtcdClient::EtcdClient(EtcdClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
EtcdClient::~EtcdClient() = default;
EtcdReply EtcdClient::call(const std::string& path, const json& body, bool repeatable, bool errorLikely) {
  return impl_->call(path, body, repeatable, errorLikely);
}
EtcdReply EtcdClient::callWrite(const std::string& path, const json& body, bool& earlierTryMayHaveApplied) {
  return impl_->callWrite(path, body, earlierTryMayHaveApplied);
}
std::unique_ptr<EtcdStream> EtcdClient::stream(const std::string& path, const json& body) {
  return impl_->stream(path, body);
}
const std::vector<std::string>& EtcdClient::endpoints() const { return impl_->endpoints(); }

namespace {
constexpr char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}  // namespace

// Standard base64 with padding, as the gateway writes bytes fields (Go's encoding/json), straight
// between strings: cpprestsdk's goes through a vector each way.
std::string toBase64(const std::string& bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                                static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                                static_cast<unsigned char>(bytes[i + 2]);
    for (const int shift : {18, 12, 6, 0}) text.push_back(kBase64Alphabet[(group >> shift) & 63]);
  }
  if (const std::size_t left = bytes.size() - i; left > 0) {
    std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (left == 2) group |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    text.push_back(kBase64Alphabet[(group >> 18) & 63]);
    text.push_back(kBase64Alphabet[(group >> 12) & 63]);
    text.push_back(left == 2 ? kBase64Alphabet[(group >> 6) & 63] : '=');
    text.push_back('=');
  }
  return text;
}

std::string fromBase64(const std::string& text) {
  static const std::array<std::int8_t, 256> kValue = [] {
    std::array<std::int8_t, 256> value{};
    value.fill(-1);
    for (int i = 0; i < 64; ++i) value[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<std::int8_t>(i);
    return value;
  }();
  std::size_t length = text.size();
  while (length > 0 && text[length - 1] == '=') --length;
  if (text.size() % 4 != 0 || text.size() - length > 2)
    throw StorageError(StorageError::Code::Unavailable, "etcd: not base64 (length " + std::to_string(text.size()) + ")");
  std::string bytes;
  bytes.reserve(length * 3 / 4);
  std::uint32_t group = 0;
  int bits = 0;
  for (std::size_t i = 0; i < length; ++i) {
    const std::int8_t value = kValue[static_cast<unsigned char>(text[i])];
    if (value < 0) throw StorageError(StorageError::Code::Unavailable, "etcd: not base64 (at " + std::to_string(i) + ")");
    group = group << 6 | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<char>((group >> bits) & 0xff));
    }
  }
  return bytes;
}

std::int64_t int64Field(const json& object, const char* field) {
  if (!object.is_object()) return 0;
  const auto it = object.find(field);
  if (it == object.end()) return 0;
  if (it->is_string()) return std::stoll(it->get<std::string>());
  if (it->is_number_integer()) return it->get<std::int64_t>();
  return 0;
}

}  // namespace fedhpa::storage
