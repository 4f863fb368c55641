#include "federation/apiserver/http/session.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <mutex>

#include "federation/api/machinery/untrusted_json.h"
#include "federation/api/status.h"
#include "federation/apiserver/http/outbox.h"
#include "federation/apiserver/http/request_parsing.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver::http {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

namespace {

std::string serializeHead(int status, const Headers& headers) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " +
                     std::string(beast::http::obsolete_reason(static_cast<beast::http::status>(status))) + "\r\n";
  for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
  return head;
}

std::string statusBody(const api::ApiError& error) { return api::machinery::dumpSafe(error.toStatus()); }

Response statusResponse(const api::ApiError& error) {
  Response response{error.code(), {}, statusBody(error)};
  response.headers.emplace("Content-Type", "application/json");
  return response;
}

std::string chunk(const std::string& data) {
  char size[20];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

template <class Stream>
class Session : public Connection, public std::enable_shared_from_this<Session<Stream>> {
 public:
  // The session shares ownership of the io_context: a stream a handler still holds may outlive
  // the Server, and its socket must not outlive its io_context. The context is the server's, and
  // is only read while the server runs.
  Session(std::shared_ptr<net::io_context> io, const ServerContext& context, Stream stream,
          std::unique_ptr<ConnectionSlot> slot)
      : io_(std::move(io)), context_(context), stream_(std::move(stream)), slot_(std::move(slot)),
        requestTimer_(stream_.get_executor()), stallTimer_(stream_.get_executor()) {}

  void run() {
    auto self = this->shared_from_this();
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
      beast::get_lowest_layer(stream_).expires_after(context_.options.readHeaderTimeout);
      stream_.async_handshake(ssl::stream_base::server, [self](beast::error_code ec) {
        if (ec) return self->shutdown();
        self->readHeader();
      });
    } else {
      net::dispatch(stream_.get_executor(), [self] { self->readHeader(); });
    }
  }

  // Called from any thread by the stream a handler opened.
  bool writeChunk(std::string data) {
    std::string framed = chunk(data);
    const auto waitStarts = admitChunk(framed.size());
    if (!waitStarts) return false;
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self, framed = std::move(framed), waitStarts = *waitStarts]() mutable {
      self->outbox_.send(self, std::move(framed), {}, {}, true);
      self->afterQueueing(waitStarts);
    });
    return true;
  }

  // The same for shared bytes: the queue holds references to them, never a copy.
  bool writeChunk(SharedChunk data) {
    const auto waitStarts = admitChunk(Outbox<Stream>::framedSize(data.size()));
    if (!waitStarts) return false;
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self, data = std::move(data), waitStarts = *waitStarts]() mutable {
      self->outbox_.sendChunk(self, std::move(data));
      self->afterQueueing(waitStarts);
    });
    return true;
  }

  void closeStream() override {
    if (closed_) return;  // also after the server stopped: nothing may be queued on its io_context then
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self] {
      if (self->streamEnded_) return;
      self->streamEnded_ = true;
      // The terminating chunk waits behind what is queued; a client that stopped reading must not
      // hold the connection for ever waiting for it. (A timer of its own: the stream's deadline
      // may not change while a read and a write are both pending.)
      self->requestTimer_.expires_after(self->context_.options.streamStallTimeout);
      self->requestTimer_.async_wait([self](beast::error_code ec) {
        if (!ec) self->reset();
      });
      self->send("0\r\n\r\n", [self] { self->shutdown(); });
      self->markClosed();
    });
  }

  bool closed() const { return closed_; }

  void closeSocket() override {
    markClosed();
    requestTimer_.cancel();  // its pending wait holds this session, and the session holds the io_context
    stallTimer_.cancel();
    beast::get_lowest_layer(stream_).close();
    slot_.reset();
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

  // Any thread. The first answer to the current request wins: a handler's late answer after the
  // request timed out is dropped. The answer to a HEAD request (`headOnly`) is the head alone,
  // its Content-Length the body's a GET would get, as Go's net/http sends it: body bytes after it
  // would be read as the start of the next response.
  void respond(Response response, bool keepAlive, std::uint64_t requestNumber, bool headOnly = false) {
    const std::size_t size = response.bodySize();
    response.headers.erase("Content-Length");
    response.headers.emplace("Content-Length", std::to_string(size));
    response.headers.emplace("Connection", keepAlive ? "keep-alive" : "close");
    std::string bytes = serializeHead(response.status, response.headers) + "\r\n";
    if (headOnly) response.bodyPieces.clear();
    else bytes += response.body;
    const int status = response.status;
    auto self = this->shared_from_this();
    // dispatch: an answer made on this connection's strand (a handler that answered on the HTTP
    // thread) is sent at once, not queued for whichever HTTP thread the io_context wakes next.
    net::dispatch(stream_.get_executor(), [self, bytes = std::move(bytes), pieces = std::move(response.bodyPieces),
                                           keepAlive, requestNumber, status, size]() mutable {
      if (!self->answer(requestNumber)) return;
      self->logAccess(status, size);
      // A client that does not take its answer within the request timeout loses the connection.
      self->expireAfter(self->context_.options.requestTimeout);
      self->send(std::move(bytes), std::move(pieces), [self, keepAlive] {
        if (keepAlive) self->awaitNextRequest();
        else self->lingeringClose();
      });
    });
  }

  void startStream(int status, Headers headers, std::uint64_t requestNumber) {
    headers.erase("Content-Length");
    headers.emplace("Transfer-Encoding", "chunked");
    headers.emplace("Connection", "close");
    std::string head = serializeHead(status, headers) + "\r\n";
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self, head = std::move(head), requestNumber, status]() mutable {
      if (!self->answer(requestNumber)) {
        // The request timed out before the handler opened its stream: the stream ends here.
        self->markClosed();
        return;
      }
      self->logAccess(status, 0);
      beast::get_lowest_layer(self->stream_).expires_never();
      self->send(std::move(head), {});
      self->watchForDisconnect();
    });
  }

 private:
  // Any thread, before a chunk of `framedSize` bytes is queued: counts it into the backlog and
  // tells whether the wait for the stream's client starts with it; nullopt (and the stream cut
  // off) when the client has stopped reading. kube-apiserver closes a watcher whose buffer stays
  // full; queueing more would hold memory for a client that may never read again.
  std::optional<bool> admitChunk(std::size_t framedSize) {
    if (closed_) return std::nullopt;
    const auto now = steadyNanos();
    const std::size_t backlog = outbox_.queuedBytes();
    const auto& options = context_.options;
    if (backlog > 0 && (backlog > options.maxStreamBacklogBytes || outbox_.queuedChunks() >= options.maxStreamBacklogChunks ||
                        outbox_.stalledFor(now) > options.streamStallTimeout)) {
      FEDHPA_LOG(warning) << "cutting off a stream client that stopped reading (" << backlog << " bytes in "
                          << outbox_.queuedChunks() << " chunks waiting)";
      abortStream();
      return std::nullopt;
    }
    return outbox_.countQueued(framedSize, now);
  }

  // On the strand, after a chunk was queued. A client that stops reading after the last chunk it
  // was sent would otherwise never be checked again: the stall is also watched by a timer, not
  // only when the next chunk comes.
  void afterQueueing(bool waitStarts) {
    if (waitStarts) watchForStall(context_.options.streamStallTimeout);
  }

  // On the strand: true for the first answer to the request in flight.
  bool answer(std::uint64_t requestNumber) {
    if (requestNumber != requestNumber_ || answered_) return false;
    answered_ = true;
    requestTimer_.cancel();
    return true;
  }

  void expireAfter(std::chrono::seconds timeout) {
    if (timeout.count() > 0) beast::get_lowest_layer(stream_).expires_after(timeout);
    else beast::get_lowest_layer(stream_).expires_never();
  }

  // Between kept-alive requests: the idle timeout runs until the next request's first byte, then
  // the header timeout (Go's http.Server IdleTimeout and ReadHeaderTimeout).
  void awaitNextRequest() {
    if (buffer_.size() > 0) return readHeader();
    expireAfter(context_.options.idleTimeout);
    auto self = this->shared_from_this();
    stream_.async_read_some(buffer_.prepare(4096), [self](beast::error_code ec, std::size_t read) {
      if (ec) return self->shutdown();
      self->buffer_.commit(read);
      self->readHeader();
    });
  }

  void readHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(context_.options.maxHeaderBytes, UINT32_MAX)));
    parser_->body_limit(context_.options.maxRequestBodyBytes);
    expireAfter(context_.options.readHeaderTimeout);
    ++requestNumber_;
    answered_ = false;
    auto self = this->shared_from_this();
    beast::http::async_read_header(stream_, buffer_, *parser_, [self](beast::error_code ec, std::size_t) {
      if (ec) return self->readFailed(ec);
      self->headerRead();
    });
  }

  // What Go's server checks before any handler: the version, Host, Expect.
  void headerRead() {
    const RequestParser& parser = *parser_;
    if (parser.version() != 10 && parser.version() != 11)
      return reject(goHttpError(505, "unsupported protocol version"));
    if (!supportedTransferEncoding(parser)) return reject(unsupportedTransferEncoding());
    const std::size_t hosts = parser.count("Host");
    if (hosts > 1) return reject(goHttpError(400, "too many Host headers"));
    if (hosts == 0 && parser.version() == 11) return reject(goHttpError(400, "missing required Host header"));
    const auto expect = parser.header("Expect");
    bool continueFirst = false;
    if (expect) {
      if (!beast::iequals(*expect, "100-continue")) return reject(goHttpError(417, ""));
      continueFirst = parser.version() == 11 && !parser.is_done();
    }
    if (parser_->is_done()) return handleRequest();
    // The body, like the handling, counts against the request timeout (kube's handlers read it).
    expireAfter(context_.options.requestTimeout);
    if (!continueFirst) return readBody();
    auto self = this->shared_from_this();
    send("HTTP/1.1 100 Continue\r\n\r\n", [self] { self->readBody(); });
  }

  void readBody() {
    auto self = this->shared_from_this();
    beast::http::async_read(stream_, buffer_, *parser_, [self](beast::error_code ec, std::size_t) {
      if (ec) return self->readFailed(ec);
      self->handleRequest();
    });
  }

  void readFailed(beast::error_code ec) {
    if (ec == beast::http::error::body_limit) {
      return reject(statusResponse(api::ApiError::requestEntityTooLarge(
          "Request entity too large: limit is " + std::to_string(context_.options.maxRequestBodyBytes))));
    }
    if (ec == beast::http::error::header_limit) return reject(goHttpError(431, ""));
    // Beast reads only HTTP/1.x; Go tells a well-formed other version (505) from garbage (400).
    if (ec == beast::http::error::bad_version && wellFormedVersion(requestLine()))
      return reject(goHttpError(505, "unsupported protocol version"));
    // Only a request that does not parse gets a 400; a peer that went away (or too slow) just goes.
    const bool malformed = ec.category() == beast::http::make_error_code(beast::http::error::bad_target).category() &&
                           ec != beast::http::error::end_of_stream && ec != beast::http::error::partial_message;
    if (malformed) return reject(statusResponse(api::ApiError::badRequest("malformed HTTP request: " + ec.message())));
    shutdown();
  }

  std::string requestLine() const {
    const auto data = buffer_.data();
    const std::string_view text(static_cast<const char*>(data.data()), data.size());
    return std::string(text.substr(0, std::min(text.find('\r'), std::size_t{256})));
  }

  // Answers a request that never reaches the handler and closes the connection after it.
  void reject(Response response) {
    started_ = std::chrono::steady_clock::now();
    respond(std::move(response), false, requestNumber_);
  }

  void handleRequest() {
    const bool keepAlive = parser_->keep_alive();
    Request request = parser_->release();
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
    bool rejectedToken = false;
    if (!request.user && context_.options.bearerTokenAuthenticator) {
      if (const auto token = bearerToken(request.header("Authorization").value_or(""))) {
        try {
          request.user = context_.options.bearerTokenAuthenticator(*token);
        } catch (const std::exception& error) {
          FEDHPA_LOG(error) << "bearer token authentication: " << error.what();
        }
        rejectedToken = !request.user;
      }
    }
    user_ = request.user ? request.user->name : "";
    const bool isPublic = std::find(context_.options.publicPaths.begin(), context_.options.publicPaths.end(),
                                    request.path) != context_.options.publicPaths.end();
    const bool headOnly = request.method == "HEAD";
    if (context_.authenticationRequired && (rejectedToken || (!request.user && !isPublic))) {
      respond(statusResponse(api::ApiError::unauthorized()), keepAlive, requestNumber_, headOnly);
      return;
    }
    armRequestTimeout(keepAlive, headOnly);
    auto responder = makeResponder(keepAlive, headOnly);
    try {
      context_.handler->handle(std::move(request), responder);
    } catch (const std::exception& error) {
      // The handler answers its own errors; this is the last line, so one request never ends the process.
      FEDHPA_LOG(error) << "internal error serving " << method_ << ": " << error.what();
      responder->respond(statusResponse(api::ApiError::internal("the request could not be served")));
    }
  }

  // kube-apiserver's timeout filter: a request that has not been answered (nor opened a stream)
  // within --request-timeout gets a 504 Timeout Status; the handler's later answer is dropped.
  void armRequestTimeout(bool keepAlive, bool headOnly) {
    if (context_.options.requestTimeout.count() <= 0) return;
    requestTimer_.expires_after(context_.options.requestTimeout);
    auto self = this->shared_from_this();
    const std::uint64_t number = requestNumber_;
    requestTimer_.async_wait([self, number, keepAlive, headOnly](beast::error_code ec) {
      if (ec || number != self->requestNumber_ || self->answered_) return;
      const api::ApiError timeout(504, "Timeout",
                                  "Timeout: request did not complete within requested timeout - context deadline exceeded",
                                  nlohmann::json{{"retryAfterSeconds", 0}});
      self->respond(statusResponse(timeout), keepAlive, number, headOnly);
    });
  }

  std::shared_ptr<Responder> makeResponder(bool keepAlive, bool headOnly);

  void watchForDisconnect() {
    auto self = this->shared_from_this();
    stream_.async_read_some(net::buffer(discard_), [self](beast::error_code ec, std::size_t) {
      if (ec) {
        self->markClosed();
        beast::error_code ignored;
        beast::get_lowest_layer(self->stream_).socket().close(ignored);
        self->slot_.reset();
        return;
      }
      self->watchForDisconnect();
    });
  }

  // On the strand: after `wait`, cuts the stream off if what is queued has made no progress for
  // the stall timeout; while something is still queued, looks again when that time would be up.
  void watchForStall(std::chrono::nanoseconds wait) {
    auto self = this->shared_from_this();
    stallTimer_.expires_after(wait);
    stallTimer_.async_wait([self](beast::error_code ec) {
      if (ec || self->closed_ || self->outbox_.queuedBytes() == 0) return;
      const auto stalledFor = self->outbox_.stalledFor(steadyNanos());
      const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(self->context_.options.streamStallTimeout);
      if (stalledFor < timeout) return self->watchForStall(timeout - stalledFor);
      FEDHPA_LOG(warning) << "cutting off a stream client that stopped reading (" << self->outbox_.queuedBytes()
                          << " bytes waiting)";
      self->abortStream();
    });
  }

  // Any thread: drops what is queued and closes the connection at once.
  void abortStream() {
    markClosed();
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self] {
      self->streamEnded_ = true;
      self->reset();
    });
  }

  // On the strand.
  void send(std::string bytes, std::function<void()> after) { send(std::move(bytes), {}, std::move(after)); }

  void send(std::string bytes, std::vector<SharedBytes> pieces, std::function<void()> after) {
    outbox_.send(this->shared_from_this(), std::move(bytes), std::move(pieces), std::move(after));
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

  // Closes with a reset: what the kernel still holds for this client is dropped as well. A client
  // that stopped reading would otherwise get it trickled out after the close, one segment per
  // retransmission timeout, for as long as it keeps its end open.
  void reset() {
    markClosed();
    requestTimer_.cancel();
    stallTimer_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().set_option(net::socket_base::linger(true, 0), ignored);
    beast::get_lowest_layer(stream_).close();
    slot_.reset();
  }

  void shutdown() {
    markClosed();
    requestTimer_.cancel();
    stallTimer_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream_).close();
    slot_.reset();
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
  std::unique_ptr<ConnectionSlot> slot_;
  net::steady_timer requestTimer_;
  net::steady_timer stallTimer_;  // watches a stream whose queued bytes stopped going out
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  // A failed write drops the connection (shutdown, on the strand, from the write's completion,
  // which holds the session).
  Outbox<Stream> outbox_{stream_, [this] { shutdown(); }};
  bool streamEnded_ = false;
  // The request being read or served, and whether it was answered (both on the strand).
  std::uint64_t requestNumber_ = 0;
  bool answered_ = false;
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
  bool write(SharedChunk data) override { return session_->writeChunk(std::move(data)); }
  void close() override { session_->closeStream(); }
  bool closed() const override { return session_->closed(); }
  void onClosed(std::function<void()> callback) override { session_->onClosed(std::move(callback)); }

 private:
  std::shared_ptr<Session<Stream>> session_;
};


// The stream a HEAD request gets: its head has gone out, and nothing written to it is sent.
class DiscardedStream : public ResponseStream {
 public:
  bool write(std::string) override { return false; }
  bool write(SharedChunk) override { return false; }
  void close() override {}
  bool closed() const override { return true; }
  void onClosed(std::function<void()> callback) override { callback(); }
};

template <class Stream>
class SessionResponder : public Responder {
 public:
  SessionResponder(std::shared_ptr<Session<Stream>> session, bool keepAlive, std::uint64_t requestNumber, bool headOnly)
      : session_(std::move(session)), keepAlive_(keepAlive), requestNumber_(requestNumber), headOnly_(headOnly) {}
  ~SessionResponder() override {
    if (!answered_) {
      // A handler that forgot to answer must not leave the client hanging.
      session_->respond(statusResponse(api::ApiError::internal("the request was not answered")), false, requestNumber_);
    }
  }
  void respond(Response response) override {
    if (answered_.exchange(true)) return;
    session_->respond(std::move(response), keepAlive_, requestNumber_, headOnly_);
  }
  std::shared_ptr<ResponseStream> stream(int status, Headers headers) override {
    if (headOnly_) {  // a head without a length: the connection ends after it
      if (!answered_.exchange(true)) session_->respond({status, std::move(headers), ""}, false, requestNumber_, true);
      return std::make_shared<DiscardedStream>();
    }
    answered_ = true;
    auto stream = std::make_shared<SessionStream<Stream>>(session_);
    session_->startStream(status, std::move(headers), requestNumber_);
    return stream;
  }

 private:
  std::shared_ptr<Session<Stream>> session_;
  bool keepAlive_;
  std::uint64_t requestNumber_;
  bool headOnly_;
  std::atomic<bool> answered_{false};
};

template <class Stream>
std::shared_ptr<Responder> Session<Stream>::makeResponder(bool keepAlive, bool headOnly) {
  return std::make_shared<SessionResponder<Stream>>(this->shared_from_this(), keepAlive, requestNumber_, headOnly);
}

}  // namespace

std::shared_ptr<Connection> serveConnection(std::shared_ptr<net::io_context> io, const ServerContext& context,
                                            tcp::socket socket, ssl::context* tls, std::unique_ptr<ConnectionSlot> slot) {
  std::shared_ptr<Connection> connection;
  if (tls) {
    auto session = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
        std::move(io), context, beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), *tls),
        std::move(slot));
    session->run();
    connection = std::move(session);
  } else {
    auto session = std::make_shared<Session<beast::tcp_stream>>(std::move(io), context, beast::tcp_stream(std::move(socket)),
                                                                 std::move(slot));
    session->run();
    connection = std::move(session);
  }
  return connection;
}

}  // namespace fedhpa::apiserver::http
