#include "clusters/client/rest_client.h"

#include <cpprest/http_client.h>
#include <cpprest/rawptrstream.h>
#include <cpprest/containerstream.h>
#include <pplx/threadpool.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "clusters/client/credential_source.h"
#include "clusters/client/proxy_environment.h"
#include "federation/common/body_lines.h"
#include "federation/common/logging.h"
#include "federation/common/response_body.h"

namespace fedhpa::clusters {

namespace http = web::http;
using web::http::client::http_client;
using web::http::client::http_client_config;

namespace {

// A watch must outlive long silences: cpprestsdk's timeout is an inactivity timer and 0 cancels
// at once, so "no timeout" is a very long one.
constexpr std::chrono::hours kWatchTimeout{24 * 365};

std::string queryOf(const ListOptions& options, std::initializer_list<std::pair<std::string, std::string>> extra) {
  web::uri_builder builder;
  if (!options.labelSelector.empty()) builder.append_query("labelSelector", options.labelSelector);
  if (!options.fieldSelector.empty()) builder.append_query("fieldSelector", options.fieldSelector);
  if (options.limit) builder.append_query("limit", std::to_string(*options.limit));
  if (!options.continueToken.empty()) builder.append_query("continue", options.continueToken);
  for (const auto& [key, value] : extra) builder.append_query(key, value);
  const std::string query = builder.query();
  return query.empty() ? "" : "?" + query;
}

bool retryable(int code) { return code == 429 || code >= 500; }

// nlohmann's DOM builder, fed by the parser event by event, that lets the value of every
// "managedFields" key of a "metadata" object go by without building it.
class WithoutManagedFields {
 public:
  explicit WithoutManagedFields(json& out) : dom_(out, true) {}
  bool null() { return skipping_ ? skipped() : (value(), dom_.null()); }
  bool boolean(bool v) { return skipping_ ? skipped() : (value(), dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return skipping_ ? skipped() : (value(), dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return skipping_ ? skipped() : (value(), dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const std::string& text) { return skipping_ ? skipped() : (value(), dom_.number_float(v, text)); }
  bool string(std::string& v) { return skipping_ ? skipped() : (value(), dom_.string(v)); }
  bool binary(json::binary_t& v) { return skipping_ ? skipped() : (value(), dom_.binary(v)); }
  bool start_object(std::size_t size) {
    if (skipping_) return opened();
    inMetadata_.push_back(nextIsMetadata_);
    nextIsMetadata_ = false;
    return dom_.start_object(size);
  }
  bool key(std::string& key) {
    if (skipping_) return true;
    if (inMetadata_.back() && key == "managedFields") {
      skipping_ = true;
      skipDepth_ = 0;
      return true;
    }
    nextIsMetadata_ = key == "metadata";
    return dom_.key(key);
  }
  bool end_object() {
    if (skipping_) return closed();
    inMetadata_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t size) {
    if (skipping_) return opened();
    value();
    inMetadata_.push_back(false);
    return dom_.start_array(size);
  }
  bool end_array() {
    if (skipping_) return closed();
    inMetadata_.pop_back();
    return dom_.end_array();
  }
  template <class Exception>  // parse_error or out_of_range: thrown as what it is, not as its base
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    return dom_.parse_error(position, token, error);  // throws it
  }

 private:
  void value() { nextIsMetadata_ = false; }
  bool skipped() {  // a scalar: the skipped value itself, or inside it
    if (skipDepth_ == 0) skipping_ = false;
    return true;
  }
  bool opened() {
    ++skipDepth_;
    return true;
  }
  bool closed() {
    if (--skipDepth_ == 0) skipping_ = false;
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<bool> inMetadata_;  // per open object or array: is it a "metadata" object
  bool nextIsMetadata_ = false;   // the key just read is "metadata"
  bool skipping_ = false;
  int skipDepth_ = 0;  // objects and arrays open inside the value skipped
};

// Throws json::parse_error on text that is not JSON, json::out_of_range on a number past double's.
json parseJson(const char* begin, const char* end, bool dropManagedFields) {
  if (!dropManagedFields) return json::parse(begin, end);
  json out;
  WithoutManagedFields builder(out);
  json::sax_parse(begin, end, &builder);
  return out;
}

// No connection was made, so nothing was sent. cpprestsdk reports a connect that failed on every
// resolved endpoint (refused, unreachable) as host_unreachable.
bool connectFailed(const http::http_exception& error) {
  const int value = error.error_code().value();
  return value == static_cast<int>(std::errc::host_unreachable) || value == static_cast<int>(std::errc::connection_refused);
}

class RestWatchStream : public WatchStream {
 public:
  RestWatchStream(http::http_response response, pplx::cancellation_token_source cancel, bool dropManagedFields)
      : lines_(response.body()), cancel_(std::move(cancel)), dropManagedFields_(dropManagedFields) {}
  ~RestWatchStream() override { cancel(); }

  // One event per line, parsed where it lies in the received bytes.
  std::optional<json> next() override {
    std::optional<std::string_view> line;
    try {
      line = lines_.next();
    } catch (const std::exception& error) {
      if (cancel_.get_token().is_canceled()) return std::nullopt;
      throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", std::string("watch: ") + error.what());
    }
    if (!line) return std::nullopt;
    try {
      return parseJson(line->data(), line->data() + line->size(), dropManagedFields_);
    } catch (const json::exception&) {  // not JSON, or a number out of range (1e999)
      throw ClientError(ClientError::Kind::Other, 0, "", "watch: unreadable event: " + std::string(*line));
    }
  }

  void cancel() override { cancel_.cancel(); }

 private:
  BodyLines lines_;
  pplx::cancellation_token_source cancel_;
  bool dropManagedFields_;
};

}  // namespace

void initializeHttpClientPool(std::size_t threads) {
  static std::once_flag once;
  std::call_once(once, [threads] { crossplat::threadpool::initialize_with_threads(threads); });
}

class RestClient::Impl {
 public:
  Impl(RestConfig config, RestClientOptions options)
      : config_(std::move(config)), options_(options),
        credentials_(credentialSourceFor(config_, options_.timeSource ? options_.timeSource : std::make_shared<RealTimeSource>())) {
    // The kubeconfig's proxy-url, else the environment's (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), as
    // client-go's transport. cpprestsdk tunnels through http:// proxies only: another kind from
    // the environment fails every request (the kubeconfig reader refuses it in proxy-url).
    proxy_ = config_.proxyUrl.empty() ? proxyFor(config_.server, ProxyEnvironment::read()) : config_.proxyUrl;
    if (!proxy_.empty() && proxy_.rfind("http://", 0) != 0)
      proxyError_ = "the proxy from the environment, " + proxy_.substr(0, proxy_.find("://")) +
                    "://..., is not supported (fedhpa reaches clusters through http:// proxies only): set the cluster's "
                    "proxy-url, or name the host in NO_PROXY";
    else connectionsFor(Credential{config_.bearerToken, config_.clientCertPem, config_.clientKeyPem});
  }

  json call(const http::method& method, const std::string& pathAndQuery, const std::optional<json>& body,
            const std::string& contentType = "application/json") {
    const bool idempotent = method == http::methods::GET || method == http::methods::PUT || method == http::methods::DEL;
    // A create that went through and is sent again fails with AlreadyExists when it names its
    // object; one whose name the server generates (an Event's) would be created twice.
    const bool repeatable = method != http::methods::POST || !body || !body->contains("metadata") ||
                            !(*body)["metadata"].is_object() || !(*body)["metadata"].contains("generateName");
    std::optional<std::mt19937> jitter;  // seeded on the first retry: a random_device costs a syscall
    auto backoff = options_.retry.initialBackoff;
    bool reauthenticated = false;
    for (int attempt = 1;; ++attempt) {
      const Credential credential = currentCredential();
      try {
        http::http_response response =
            connectionsFor(credential)->client.request(request(method, pathAndQuery, body, contentType, credential)).get();
        const std::string text = bodyOf(response);
        const int code = response.status_code();
        if (code < 300) return answerOf(text, code);
        // A 401 was not acted on, whatever the method: sent once more with a fresh credential.
        if (code == 401 && !reauthenticated && credentials_->rejected(credential)) {
          reauthenticated = true;
          --attempt;
          continue;
        }
        ClientError error = errorFromStatus(code, text);
        if (!idempotent || !retryable(code) || attempt >= options_.retry.attempts) throw error;
        FEDHPA_LOG(debug) << "retrying " << method << " " << pathAndQuery << " after HTTP " << code;
      } catch (const http::http_exception& error) {
        // The request may not have got through (refused, a pooled connection the server had
        // closed, or no answer in time): repeat it only when a second copy does no harm.
        if (attempt >= options_.retry.attempts || !repeatable)
          throw ClientError(ClientError::Kind::ConnectionFailure, 0, connectFailed(error) ? kConnectionRefused : "",
                            config_.server + ": " + error.what());
        FEDHPA_LOG(debug) << "retrying " << method << " " << pathAndQuery << ": " << error.what();
      }
      // Full jitter: a random wait up to the doubling backoff, capped.
      if (!jitter) jitter.emplace(std::random_device{}());
      std::this_thread::sleep_for(std::chrono::milliseconds(
          std::uniform_int_distribution<long long>(backoff.count() / 2, backoff.count())(*jitter)));
      backoff = std::min(backoff * 2, options_.retry.maxBackoff);
    }
  }

  std::unique_ptr<WatchStream> watch(const std::string& pathAndQuery) {
    for (bool reauthenticated = false;; reauthenticated = true) {
      const Credential credential = currentCredential();
      pplx::cancellation_token_source cancel;
      http::http_response response;
      try {
        response = connectionsFor(credential)
                       ->watchClient.request(request(http::methods::GET, pathAndQuery, std::nullopt, "", credential), cancel.get_token())
                       .get();
      } catch (const std::exception& error) {
        throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", config_.server + ": " + error.what());
      }
      if (response.status_code() < 300)
        return std::make_unique<RestWatchStream>(std::move(response), std::move(cancel), options_.dropManagedFields);
      std::string text;
      try {
        text = bodyOf(response);
      } catch (const std::exception&) {
        // The status code alone says the watch was refused.
      }
      if (response.status_code() == 401 && !reauthenticated && credentials_->rejected(credential)) continue;
      throw errorFromStatus(response.status_code(), text);
    }
  }

  int probe(const std::string& path) {
    for (bool reauthenticated = false;; reauthenticated = true) {
      const Credential credential = currentCredential();
      int code = 0;
      try {
        code = connectionsFor(credential)->client.request(request(http::methods::GET, path, std::nullopt, "", credential)).get().status_code();
      } catch (const std::exception& error) {
        throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", config_.server + ": " + error.what());
      }
      if (code == 401 && !reauthenticated && credentials_->rejected(credential)) continue;
      return code;
    }
  }

 private:
  // The http_clients for one client certificate: cpprestsdk sets a certificate per client, so a
  // plugin that hands out a new one gets new clients (and new connections).
  struct Connections {
    Connections(const std::string& server, http_client_config config, http_client_config watchConfig)
        : client(server, std::move(config)), watchClient(server, std::move(watchConfig)) {}
    http_client client;
    http_client watchClient;
  };

  Credential currentCredential() {
    try {
      return credentials_->current();
    } catch (const CredentialError& error) {
      throw ClientError(ClientError::Kind::Unauthorized, 0, "", config_.server + ": " + error.what());
    }
  }

  std::shared_ptr<Connections> connectionsFor(const Credential& credential) {
    if (!proxyError_.empty()) throw ClientError(ClientError::Kind::ConnectionFailure, 0, "", config_.server + ": " + proxyError_);
    std::lock_guard lock(connectionsMutex_);
    if (!connections_ || connectionsCert_ != credential.clientCertPem || connectionsKey_ != credential.clientKeyPem) {
      connections_ = std::make_shared<Connections>(config_.server, configFor(options_.requestTimeout, credential),
                                                   configFor(kWatchTimeout, credential));
      connectionsCert_ = credential.clientCertPem;
      connectionsKey_ = credential.clientKeyPem;
    }
    return connections_;
  }

  // A successful answer's object. One that is not JSON (a proxy's or an ingress's HTML page at a
  // wrong URL, say) is an error of this call, as client-go's decoding error is, not a crash.
  json answerOf(const std::string& text, int code) const {
    if (text.empty()) return json::object();
    try {
      return parseJson(text.data(), text.data() + text.size(), options_.dropManagedFields);
    } catch (const json::exception& error) {
      throw ClientError(ClientError::Kind::Other, code, "", config_.server + ": the answer is not JSON: " + error.what());
    }
  }

  http_client_config configFor(std::chrono::seconds timeout, const Credential& credential) const {
    http_client_config config;
    config.set_timeout(timeout);
    if (config_.insecureSkipTlsVerify) config.set_validate_certificates(false);
    if (!proxy_.empty()) config.set_proxy(proxyOf(proxy_));
    const std::string ca = config_.caPem, cert = credential.clientCertPem, key = credential.clientKeyPem;
    if (!ca.empty() || !cert.empty())
      config.set_ssl_context_callback([ca, cert, key](boost::asio::ssl::context& context) {
        if (!ca.empty()) context.add_certificate_authority(boost::asio::buffer(ca));
        if (!cert.empty()) {
          context.use_certificate_chain(boost::asio::buffer(cert));
          context.use_private_key(boost::asio::buffer(key), boost::asio::ssl::context::pem);
        }
      });
    return config;
  }

  // http://[user:password@]host:port: cpprestsdk tunnels https through it with CONNECT and sends
  // the user and password as Proxy-Authorization (Basic).
  static web::web_proxy proxyOf(const std::string& url) {
    const web::uri parsed(url);
    web::uri_builder withoutUser(parsed);
    withoutUser.set_user_info("");
    web::web_proxy proxy(withoutUser.to_uri());
    if (const std::string userInfo = web::uri::decode(parsed.user_info()); !userInfo.empty()) {
      const auto colon = userInfo.find(':');
      proxy.set_credentials(web::credentials(userInfo.substr(0, colon), colon == std::string::npos ? "" : userInfo.substr(colon + 1)));
    }
    return proxy;
  }

  http::http_request request(const http::method& method, const std::string& pathAndQuery, const std::optional<json>& body,
                             const std::string& contentType, const Credential& credential) const {
    http::http_request request(method);
    request.set_request_uri(pathAndQuery);
    request.headers().add("Accept", "application/json");
    request.headers().add("User-Agent", options_.userAgent);
    // cpprestsdk takes the name it sends as SNI and checks in the server's certificate from the
    // Host header when there is one: how tls-server-name reaches the TLS layer.
    if (!config_.tlsServerName.empty()) request.headers().add("Host", config_.tlsServerName);
    if (!credential.bearerToken.empty()) request.headers().add("Authorization", "Bearer " + credential.bearerToken);
    if (body) request.set_body(body->dump(), contentType);
    return request;
  }

  RestConfig config_;
  RestClientOptions options_;
  std::string proxy_;       // the proxy in use: "" to connect directly
  std::string proxyError_;  // why the environment's proxy cannot be used
  std::shared_ptr<CredentialSource> credentials_;
  std::mutex connectionsMutex_;
  std::shared_ptr<Connections> connections_;
  std::string connectionsCert_, connectionsKey_;
};

RestClient::RestClient(RestConfig config, RestClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), options)) {}
RestClient::~RestClient() = default;

json RestClient::get(const Resource& resource, const std::string& namespaceName, const std::string& name) {
  return impl_->call(http::methods::GET, resource.path(namespaceName, name), std::nullopt);
}

json RestClient::list(const Resource& resource, const std::string& namespaceName, const ListOptions& options) {
  return impl_->call(http::methods::GET, resource.path(namespaceName) + queryOf(options, {}), std::nullopt);
}

json RestClient::create(const Resource& resource, const std::string& namespaceName, const json& object) {
  return impl_->call(http::methods::POST, resource.path(namespaceName), object);
}

json RestClient::update(const Resource& resource, const json& object, const std::string& subresource) {
  const json& meta = object.at("metadata");
  return impl_->call(http::methods::PUT,
                     resource.path(meta.value("namespace", ""), meta.value("name", ""), subresource), object);
}

json RestClient::mergePatch(const Resource& resource, const std::string& namespaceName, const std::string& name,
                            const json& patch, const std::string& subresource) {
  return impl_->call(http::methods::PATCH, resource.path(namespaceName, name, subresource), patch,
                     "application/merge-patch+json");
}

json RestClient::remove(const Resource& resource, const std::string& namespaceName, const std::string& name,
                        const std::string& propagationPolicy, const std::string& resourceVersion) {
  std::optional<json> body;
  if (!propagationPolicy.empty() || !resourceVersion.empty()) body = json{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!propagationPolicy.empty()) (*body)["propagationPolicy"] = propagationPolicy;
  if (!resourceVersion.empty()) (*body)["preconditions"] = {{"resourceVersion", resourceVersion}};
  return impl_->call(http::methods::DEL, resource.path(namespaceName, name), body);
}

std::unique_ptr<WatchStream> RestClient::watch(const Resource& resource, const std::string& namespaceName,
                                               const std::string& resourceVersion, const ListOptions& options) {
  return impl_->watch(resource.path(namespaceName) +
                      queryOf(options, {{"watch", "true"}, {"allowWatchBookmarks", "true"}, {"resourceVersion", resourceVersion}}));
}

int RestClient::probe(const std::string& path) { return impl_->probe(path); }

}  // namespace fedhpa::clusters
