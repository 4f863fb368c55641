// The HTTP seam between the network (Beast, TLS, authentication) and the API machinery. The
// server parses a request, authenticates it and hands it to one Handler; the handler answers once,
// either with a whole response or by opening a stream (watches) that it writes to from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fedhpa::apiserver::http {

// Header names compare case-insensitively.
struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const;
};
using Headers = std::multimap<std::string, std::string, CaseInsensitiveLess>;

// Who sent the request, as kube-apiserver's authenticators report it.
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
};

struct Request {
  std::string method;                          // GET, POST, PUT, PATCH, DELETE, ...
  std::string path;                            // percent-decoded, without the query
  std::multimap<std::string, std::string> query;  // percent-decoded
  Headers headers;
  std::string body;
  std::optional<UserInfo> user;                // set when authentication is configured
  std::string remoteAddress;

  std::optional<std::string> header(const std::string& name) const;
  std::optional<std::string> queryParam(const std::string& name) const;  // the first value
};

// Bytes that others hold too (an object's served form, kept by the watch cache for every reader):
// a response sends them from where they are. owner keeps them alive; unset for static bytes.
struct SharedBytes {
  std::shared_ptr<const void> owner;
  std::string_view bytes;
};

struct Response {
  int status = 200;
  Headers headers;
  std::string body;
  // The rest of the body, after `body`: bytes shared with others, referred to rather than copied
  // into one string (a LIST of 1,000 objects is the watch cache's bytes); the server copies them
  // into its socket a chunk at a time.
  std::vector<SharedBytes> bodyPieces = {};

  std::size_t bodySize() const {
    std::size_t size = body.size();
    for (const auto& piece : bodyPieces) size += piece.bytes.size();
    return size;
  }
  // body and bodyPieces as one string, for whoever must read the body as a whole.
  std::string flatBody() const {
    std::string flat;
    flat.reserve(bodySize());
    flat += body;
    for (const auto& piece : bodyPieces) flat += piece.bytes;
    return flat;
  }
};

// One chunk of a stream made of bytes others hold too: a watch event is a head and a tail of
// static text around its object's served bytes, which every watcher sending that event shares
// (the watch cache keeps them); a protobuf one is its frame's head, shared the same way, then the
// object's bytes. A stream queues the chunk as these references and writes it from
// where the bytes are: one copy of an event's bytes however many watchers it goes to.
struct SharedChunk {
  std::string_view head;  // static text, or bytes body.owner keeps alive
  SharedBytes body;
  std::string_view tail;  // static text
  std::size_t size() const { return head.size() + body.bytes.size() + tail.size(); }
  std::string flat() const {
    std::string flat;
    flat.reserve(size());
    flat.append(head).append(body.bytes).append(tail);
    return flat;
  }
};

// A never-ending chunked response. write() queues one chunk and returns false once the peer is
// gone or the stream was closed; close() sends the terminating chunk. Safe from any thread.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual bool write(std::string chunk) = 0;
  // The same for a chunk of shared bytes, queued by reference (never copied).
  virtual bool write(SharedChunk chunk) = 0;
  virtual void close() = 0;
  virtual bool closed() const = 0;
  // Runs once, on any thread, when the peer disconnects or close() was called.
  virtual void onClosed(std::function<void()> callback) = 0;
};

// How a handler answers: exactly one of respond() or stream().
class Responder {
 public:
  virtual ~Responder() = default;
  virtual void respond(Response response) = 0;
  // Sends status and headers now (Transfer-Encoding: chunked) and returns the stream.
  virtual std::shared_ptr<ResponseStream> stream(int status, Headers headers) = 0;
};

class Handler {
 public:
  virtual ~Handler() = default;
  // Called on a server thread; may take a few milliseconds (a durable write) but must never wait
  // on another request.
  virtual void handle(Request request, std::shared_ptr<Responder> responder) = 0;
};

}  // namespace fedhpa::apiserver::http
