#include "federation/apiserver/http/server.h"

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <deque>
#include <list>
#include <mutex>
#include <thread>

#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/status.h"
#include "federation/apiserver/http/authentication.h"
#include "federation/apiserver/http/request_parsing.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver::http {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

namespace {

constexpr std::size_t kMaxQueuedStreamBytes = 16 * 1024 * 1024;  // a watcher this far behind is dropped
constexpr auto kIdleTimeout = std::chrono::minutes(5);

std::string serializeHead(int status, const Headers& headers) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " +
                     std::string(beast::http::obsolete_reason(static_cast<beast::http::status>(status))) + "\r\n";
  for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
  return head;
}

std::string statusBody(const api::ApiError& error) { return api::machinery::dumpSafe(error.toStatus()); }

std::string chunk(const std::string& data) {
  char size[20];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

// Who presented this verified client certificate (nullopt: none, or not verified).
std::optional<UserInfo> certificateUser(SSL* ssl) {
  X509* certificate = SSL_get1_peer_certificate(ssl);
  if (!certificate) return std::nullopt;
  std::optional<UserInfo> user;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* subject = X509_get_subject_name(certificate);
    std::string commonName;
    std::vector<std::string> organizations;
    for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
      X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
      const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
      const ASN1_STRING* data = X509_NAME_ENTRY_get_data(entry);
      const std::string value(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                              static_cast<std::size_t>(ASN1_STRING_length(data)));
      if (nid == NID_commonName) commonName = value;
      if (nid == NID_organizationName) organizations.push_back(value);
    }
    if (!commonName.empty()) user = userFromSubject(commonName, organizations);
  }
  X509_free(certificate);
  return user;
}

}  // namespace

// What every connection needs from the server, whatever its transport.
struct ServerContext {
  ServerOptions options;
  std::shared_ptr<Handler> handler;
  std::optional<TokenAuthenticator> tokens;
  bool authenticationRequired = false;
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual void closeStream() = 0;
  // Only once the io_context's threads have stopped.
  virtual void closeSocket() = 0;
};


template <class Stream>
class Session : public Connection, public std::enable_shared_from_this<Session<Stream>> {
 public:
  // The session shares ownership of the io_context: a stream a handler still holds may outlive
  // the Server, and its socket must not outlive its io_context. The context is the server's, and
  // is only read while the server runs.
  Session(std::shared_ptr<net::io_context> io, const ServerContext& context, Stream stream)
      : io_(std::move(io)), context_(context), stream_(std::move(stream)) {}

  void run() {
    auto self = this->shared_from_this();
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
      stream_.async_handshake(ssl::stream_base::server, [self](beast::error_code ec) {
        if (ec) return self->shutdown();
        self->readRequest();
      });
    } else {
      net::dispatch(stream_.get_executor(), [self] { self->readRequest(); });
    }
  }

  // Called from any thread by the stream a handler opened.
  bool writeChunk(std::string data) {
    if (closed_) return false;
    if (queuedBytes_ > kMaxQueuedStreamBytes) {
      FEDHPA_LOG(warning) << "dropping a watch client that stopped reading";
      closeStream();
      return false;
    }
    queuedBytes_ += data.size();
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self, data = chunk(data)]() mutable { self->send(std::move(data), {}); });
    return true;
  }

  void closeStream() override {
    if (closed_) return;  // also after the server stopped: nothing may be queued on its io_context then
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self] {
      if (self->streamEnded_) return;
      self->streamEnded_ = true;
      self->send("0\r\n\r\n", [self] { self->shutdown(); });
      self->markClosed();
    });
  }

  bool closed() const { return closed_; }

  void closeSocket() override {
    markClosed();
    beast::get_lowest_layer(stream_).close();
  }


  void onClosed(std::function<void()> callback) {
    std::unique_lock lock(callbacksMutex_);
    if (closed_) {
      lock.unlock();
      callback();
      return;
    }
    callbacks_.push_back(std::move(callback));
  }

  void respond(Response response, bool keepAlive) {
    response.headers.erase("Content-Length");
    response.headers.emplace("Content-Length", std::to_string(response.body.size()));
    response.headers.emplace("Connection", keepAlive ? "keep-alive" : "close");
    std::string bytes = serializeHead(response.status, response.headers) + "\r\n" + response.body;
    logAccess(response.status, response.body.size());
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self, bytes = std::move(bytes), keepAlive]() mutable {
      self->send(std::move(bytes), [self, keepAlive] {
        if (keepAlive) self->readRequest();
        else self->lingeringClose();
      });
    });
  }

  void startStream(int status, Headers headers, std::function<void()> registered) {
    headers.erase("Content-Length");
    headers.emplace("Transfer-Encoding", "chunked");
    headers.emplace("Connection", "close");
    logAccess(status, 0);
    std::string head = serializeHead(status, headers) + "\r\n";
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self, head = std::move(head), registered = std::move(registered)]() mutable {
      beast::get_lowest_layer(self->stream_).expires_never();
      self->send(std::move(head), {});
      registered();
      self->watchForDisconnect();
    });
  }

 private:
  struct Outgoing {
    std::string bytes;
    std::function<void()> after;
  };

  void readRequest() {
    parser_.emplace();
    parser_->body_limit(context_.options.maxRequestBodyBytes);
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    auto self = this->shared_from_this();
    beast::http::async_read(stream_, buffer_, *parser_, [self](beast::error_code ec, std::size_t) {
      if (ec == beast::http::error::body_limit) {
        const auto error = api::ApiError::requestEntityTooLarge(
            "Request entity too large: limit is " + std::to_string(self->context_.options.maxRequestBodyBytes));
        Response response{413, {}, statusBody(error)};
        response.headers.emplace("Content-Type", "application/json");
        self->respond(std::move(response), false);
        return;
      }
      if (ec == beast::http::error::end_of_stream || ec == net::error::eof) return self->shutdown();
      if (ec) {
        // Only a request that does not parse gets a 400; a peer that went away just goes.
        const bool malformed = ec.category() == beast::http::make_error_code(beast::http::error::bad_target).category();
        if (malformed) {
          Response response{400, {}, statusBody(api::ApiError::badRequest("malformed HTTP request: " + ec.message()))};
          response.headers.emplace("Content-Type", "application/json");
          self->respond(std::move(response), false);
          return;
        }
        return self->shutdown();
      }
      self->handleRequest();
    });
  }

  void handleRequest() {
    auto message = parser_->release();
    Request request = toRequest(message);
    started_ = std::chrono::steady_clock::now();
    method_ = request.method;
    path_ = request.path;
    try {
      request.remoteAddress = beast::get_lowest_layer(stream_).socket().remote_endpoint().address().to_string();
    } catch (const std::exception&) {
    }
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
      if (context_.options.clientCaFile) request.user = certificateUser(stream_.native_handle());
    }
    if (!request.user && context_.tokens) request.user = context_.tokens->authenticate(request.header("Authorization").value_or(""));
    user_ = request.user ? request.user->name : "";
    const bool isPublic = std::find(context_.options.publicPaths.begin(), context_.options.publicPaths.end(),
                                    request.path) != context_.options.publicPaths.end();
    const bool keepAlive = message.keep_alive();
    if (context_.authenticationRequired && !request.user && !isPublic) {
      Response response{401, {}, statusBody(api::ApiError::unauthorized())};
      response.headers.emplace("Content-Type", "application/json");
      respond(std::move(response), keepAlive);
      return;
    }
    auto responder = makeResponder(keepAlive);
    try {
      context_.handler->handle(std::move(request), responder);
    } catch (const std::exception& error) {
      // The handler answers its own errors; this is the last line, so one request never ends the process.
      FEDHPA_LOG(error) << "internal error serving " << method_ << ": " << error.what();
      const auto internal = api::ApiError::internal("the request could not be served");
      Response response{500, {}, statusBody(internal)};
      response.headers.emplace("Content-Type", "application/json");
      responder->respond(std::move(response));
    }
  }

  std::shared_ptr<Responder> makeResponder(bool keepAlive);

  void watchForDisconnect() {
    auto self = this->shared_from_this();
    stream_.async_read_some(net::buffer(discard_), [self](beast::error_code ec, std::size_t) {
      if (ec) {
        self->markClosed();
        beast::error_code ignored;
        beast::get_lowest_layer(self->stream_).socket().close(ignored);
        return;
      }
      self->watchForDisconnect();
    });
  }

  // On the strand.
  void send(std::string bytes, std::function<void()> after) {
    outbox_.push_back({std::move(bytes), std::move(after)});
    if (!writing_) writeNext();
  }

  void writeNext() {
    if (outbox_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    auto self = this->shared_from_this();
    net::async_write(stream_, net::buffer(outbox_.front().bytes), [self](beast::error_code ec, std::size_t written) {
      Outgoing done = std::move(self->outbox_.front());
      self->outbox_.pop_front();
      self->queuedBytes_ -= std::min<std::size_t>(self->queuedBytes_, written > 0 ? done.bytes.size() : 0);
      if (ec) {
        self->outbox_.clear();
        self->writing_ = false;
        self->markClosed();
        return self->shutdown();
      }
      if (done.after) done.after();
      self->writeNext();
    });
  }

  void markClosed() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(callbacksMutex_);
      if (closed_.exchange(true)) return;
      callbacks.swap(callbacks_);
    }
    for (auto& callback : callbacks) callback();
  }

  // Closing with unread request bytes makes the peer's TCP stack reset the connection, and the
  // client loses our answer (a 413, say). So stop sending, read what is left, then close.
  void lingeringClose() {
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ignored);
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(5));
    drain();
  }

  void drain() {
    auto self = this->shared_from_this();
    beast::get_lowest_layer(stream_).async_read_some(net::buffer(discard_), [self](beast::error_code ec, std::size_t) {
      if (ec) return self->shutdown();
      self->drain();
    });
  }

  void shutdown() {
    markClosed();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream_).close();
  }

  void logAccess(int status, std::size_t bytes) {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_).count();
    FEDHPA_LOG(debug) << "http " << method_ << " " << path_ << " " << status << " " << bytes << "B " << micros
                      << "us user=" << (user_.empty() ? "-" : user_);
  }

  std::shared_ptr<net::io_context> io_;
  const ServerContext& context_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<beast::http::request_parser<beast::http::string_body>> parser_;
  std::deque<Outgoing> outbox_;
  bool writing_ = false;
  bool streamEnded_ = false;
  std::atomic<std::size_t> queuedBytes_{0};
  std::atomic<bool> closed_{false};
  std::mutex callbacksMutex_;
  std::vector<std::function<void()>> callbacks_;
  std::array<char, 512> discard_{};
  std::chrono::steady_clock::time_point started_;
  std::string method_, path_, user_;
};

template <class Stream>
class SessionStream : public ResponseStream {
 public:
  explicit SessionStream(std::shared_ptr<Session<Stream>> session) : session_(std::move(session)) {}
  ~SessionStream() override { session_->closeStream(); }
  bool write(std::string data) override { return session_->writeChunk(std::move(data)); }
  void close() override { session_->closeStream(); }
  bool closed() const override { return session_->closed(); }
  void onClosed(std::function<void()> callback) override { session_->onClosed(std::move(callback)); }

 private:
  std::shared_ptr<Session<Stream>> session_;
};

// Remembers connections so that stop() can end their streams and then close them all.
class StreamRegistry {
 public:
  void add(std::weak_ptr<Connection> connection) {
    std::lock_guard lock(mutex_);
    std::erase_if(connections_, [](const auto& weak) { return weak.expired(); });
    connections_.push_back(std::move(connection));
  }
  void forEach(const std::function<void(Connection&)>& action) {
    std::list<std::weak_ptr<Connection>> connections;
    {
      std::lock_guard lock(mutex_);
      connections = connections_;
    }
    for (auto& weak : connections)
      if (auto connection = weak.lock()) action(*connection);
  }

 private:
  std::mutex mutex_;
  std::list<std::weak_ptr<Connection>> connections_;
};

template <class Stream>
class SessionResponder : public Responder {
 public:
  SessionResponder(std::shared_ptr<Session<Stream>> session, bool keepAlive)
      : session_(std::move(session)), keepAlive_(keepAlive) {}
  ~SessionResponder() override {
    if (!answered_) {
      // A handler that forgot to answer must not leave the client hanging.
      const auto error = api::ApiError::internal("the request was not answered");
      Response response{500, {}, statusBody(error)};
      response.headers.emplace("Content-Type", "application/json");
      session_->respond(std::move(response), false);
    }
  }
  void respond(Response response) override {
    if (answered_.exchange(true)) return;
    session_->respond(std::move(response), keepAlive_);
  }
  std::shared_ptr<ResponseStream> stream(int status, Headers headers) override {
    answered_ = true;
    auto stream = std::make_shared<SessionStream<Stream>>(session_);
    session_->startStream(status, std::move(headers), [] {});
    return stream;
  }

 private:
  std::shared_ptr<Session<Stream>> session_;
  bool keepAlive_;
  std::atomic<bool> answered_{false};
};

template <class Stream>
std::shared_ptr<Responder> Session<Stream>::makeResponder(bool keepAlive) {
  return std::make_shared<SessionResponder<Stream>>(this->shared_from_this(), keepAlive);
}

class Server::Impl {
 public:
  Impl(ServerOptions options, std::shared_ptr<Handler> handler) {
    auto context = std::make_shared<ServerContext>();
    context->options = std::move(options);
    context->handler = std::move(handler);
    if (context->options.tokenAuthFile) context->tokens = TokenAuthenticator::fromFile(*context->options.tokenAuthFile);
    context->authenticationRequired = context->options.tokenAuthFile.has_value() || context->options.clientCaFile.has_value();
    contextOwner_ = context;
    if (contextOwner_->options.tls) {
      tls_.emplace(ssl::context::tls_server);
      tls_->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                        ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      tls_->use_certificate_chain_file(contextOwner_->options.tls->certFile);
      tls_->use_private_key_file(contextOwner_->options.tls->privateKeyFile, ssl::context::pem);
      if (contextOwner_->options.clientCaFile) {
        tls_->load_verify_file(*contextOwner_->options.clientCaFile);
        // Ask for a certificate but let requests without one go on to token authentication.
        tls_->set_verify_mode(ssl::verify_peer);
        tls_->set_verify_callback([](bool, ssl::verify_context&) { return true; });
      }
    }
  }

  ~Impl() { stop(); }

  std::uint16_t start() {
    const tcp::endpoint endpoint(net::ip::make_address(contextOwner_->options.address), contextOwner_->options.port);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
    const std::uint16_t port = acceptor_.local_endpoint().port();
    accept();
    for (int i = 0; i < std::max(1, contextOwner_->options.threads); ++i)
      threads_.emplace_back([this] {
        // An exception out of a completion handler must not take the process down: log it and go on serving.
        for (;;) {
          try {
            io_->run();
            return;
          } catch (const std::exception& error) {
            FEDHPA_LOG(error) << "uncaught exception on an HTTP thread: " << error.what();
          }
        }
      });
    return port;
  }

  void stop() {
    if (stopped_.exchange(true) || threads_.empty()) return;
    net::post(acceptor_.get_executor(), [this] {
      beast::error_code ignored;
      acceptor_.close(ignored);
    });
    connections_.forEach([](Connection& connection) { connection.closeStream(); });
    // Give the terminating chunks a moment to leave before the threads stop.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    io_->stop();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
    // Sessions hold the io_context (a stream a handler keeps may outlive the server) and pending
    // handlers hold sessions: close every socket and let the handlers finish, so nothing is left
    // holding anything.
    connections_.forEach([](Connection& connection) { connection.closeSocket(); });
    io_->restart();
    io_->run_for(std::chrono::seconds(2));
  }

 private:
  void accept() {
    acceptor_.async_accept(net::make_strand(*io_), [this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec != net::error::operation_aborted) accept();
        return;
      }
      socket.set_option(tcp::no_delay(true));
      if (tls_) {
        startSession(std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
            io_, *contextOwner_, beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), *tls_)));
      } else {
        startSession(std::make_shared<Session<beast::tcp_stream>>(io_, *contextOwner_, beast::tcp_stream(std::move(socket))));
      }
      accept();
    });
  }

  template <class Stream>
  void startSession(std::shared_ptr<Session<Stream>> session) {
    connections_.add(session);
    session->run();
  }

  std::shared_ptr<const ServerContext> contextOwner_;
  std::shared_ptr<net::io_context> io_ = std::make_shared<net::io_context>();
  tcp::acceptor acceptor_{*io_};
  std::optional<ssl::context> tls_;
  StreamRegistry connections_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopped_{false};
};

Server::Server(ServerOptions options, std::shared_ptr<Handler> handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}
Server::~Server() = default;
std::uint16_t Server::start() { return impl_->start(); }
void Server::stop() { impl_->stop(); }

}  // namespace fedhpa::apiserver::http
