#include "federation/apiserver/http/server.h"

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <list>
#include <mutex>
#include <thread>

#include "federation/apiserver/http/session.h"
#include "federation/common/logging.h"

namespace fedhpa::apiserver::http {

namespace beast = boost::beast;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

namespace {

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

}  // namespace

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
      acceptRetry_.cancel();
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
      if (ec == net::error::operation_aborted || stopped_) return;
      if (ec) {
        // Out of file descriptors (EMFILE, ENFILE) or another transient failure: retrying at once
        // would spin a core until a descriptor frees up, so wait as Go's http.Server does (5 ms,
        // doubling up to 1 s).
        acceptBackoff_ = acceptBackoff_.count() == 0 ? std::chrono::milliseconds(5)
                                                     : std::min(acceptBackoff_ * 2, std::chrono::milliseconds(1000));
        FEDHPA_LOG(warning) << "accept failed: " << ec.message() << "; retrying in " << acceptBackoff_.count() << " ms";
        acceptRetry_.expires_after(acceptBackoff_);
        acceptRetry_.async_wait([this](beast::error_code waitError) {
          if (!waitError && !stopped_) accept();
        });
        return;
      }
      acceptBackoff_ = std::chrono::milliseconds(0);
      const std::size_t limit = contextOwner_->options.maxConnections;
      if (limit > 0 && openConnections_->load() >= limit) {
        beast::error_code ignored;
        socket.close(ignored);  // over --max-connections: the client sees the connection close
        return accept();
      }
      socket.set_option(tcp::no_delay(true));
      connections_.add(serveConnection(io_, *contextOwner_, std::move(socket), tls_ ? &*tls_ : nullptr,
                                       std::make_unique<ConnectionSlot>(openConnections_)));
      accept();
    });
  }

  std::shared_ptr<const ServerContext> contextOwner_;
  std::shared_ptr<net::io_context> io_ = std::make_shared<net::io_context>();
  // The acceptor, its retry timer and stop()'s close run on one strand: the accept handler (which
  // starts the next accept) and the close posted by stop() would otherwise meet on two threads.
  net::strand<net::io_context::executor_type> acceptStrand_ = net::make_strand(*io_);
  tcp::acceptor acceptor_{acceptStrand_};
  net::steady_timer acceptRetry_{acceptStrand_};
  std::chrono::milliseconds acceptBackoff_{0};
  std::shared_ptr<std::atomic<std::size_t>> openConnections_ = std::make_shared<std::atomic<std::size_t>>(0);
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
