// One accepted connection of the HTTP server: reads its requests (HTTP/1.x over TCP or TLS),
// authenticates them, hands them to the Handler and carries the answers and streams back, with
// the limits and timeouts of ServerOptions. Internal to the server: server.cc accepts and stops
// connections; this is all it needs of them.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <optional>

#include "federation/apiserver/http/authentication.h"
#include "federation/apiserver/http/server.h"

namespace fedhpa::apiserver::http {

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

// One open connection counted against ServerOptions::maxConnections; released when its socket
// closes (a session a handler still holds may live on without one).
class ConnectionSlot {
 public:
  explicit ConnectionSlot(std::shared_ptr<std::atomic<std::size_t>> open) : open_(std::move(open)) { ++*open_; }
  ~ConnectionSlot() { --*open_; }
  ConnectionSlot(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(const ConnectionSlot&) = delete;

 private:
  std::shared_ptr<std::atomic<std::size_t>> open_;
};

// Starts serving an accepted socket, over TLS when `tls` is given (the context must outlive the
// connection's handshake: it is the server's). The server keeps a weak reference to stop it.
std::shared_ptr<Connection> serveConnection(std::shared_ptr<boost::asio::io_context> io, const ServerContext& context,
                                            boost::asio::ip::tcp::socket socket, boost::asio::ssl::context* tls,
                                            std::unique_ptr<ConnectionSlot> slot);

}  // namespace fedhpa::apiserver::http
