// What one connection sends, in order: answers (a head, then the shared pieces of a body),
// stream chunks, "100 Continue". One write at a time; each item's `after` runs once its bytes
// are out. Internal to the HTTP session (session.cc), a template over its stream (TCP or TLS).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <algorithm>
#include <atomic>
#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "federation/apiserver/http/http_types.h"

namespace fedhpa::apiserver::http {

inline std::int64_t steadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class Stream>
class Outbox {
 public:
  // `failed` runs (on the strand) when a write fails, after everything queued was dropped.
  Outbox(Stream& stream, std::function<void()> failed) : stream_(stream), failed_(std::move(failed)) {}

  // On the strand. `owner` keeps the stream, and this outbox, alive until the writes complete.
  // `counted`: the bytes were counted by countQueued, and leave the backlog when written.
  void send(std::shared_ptr<void> owner, std::string bytes, std::vector<SharedBytes> pieces, std::function<void()> after,
            bool counted = false) {
    queue_.push_back({std::move(bytes), std::move(pieces), std::move(after), counted});
    if (!writing_) writeNext(std::move(owner));
  }

  // The backlog of a chunked stream, read from any thread: bytes queued and not yet written
  // (counted by the stream as it queues them), and when a write last went out.
  std::size_t queuedBytes() const { return queuedBytes_.load(); }
  std::chrono::nanoseconds stalledFor(std::int64_t now) const { return std::chrono::nanoseconds(now - lastProgress_.load()); }
  // Any thread, before queueing a chunk of `size` bytes: true when nothing was waiting, so that
  // the wait for this chunk starts `now`.
  bool countQueued(std::size_t size, std::int64_t now) {
    // The wait's clock is set before its bytes are counted: another thread that sees them waiting
    // must not see them waiting since the last write of an idle stream, long ago, and cut it off.
    if (queuedBytes_.load() == 0) lastProgress_ = now;
    return queuedBytes_.fetch_add(size) == 0;
  }

 private:
  struct Outgoing {
    std::string bytes;
    std::vector<SharedBytes> pieces;  // sent after bytes, gathered a chunk at a time
    std::function<void()> after;
    bool counted = false;  // in queuedBytes_
    std::size_t nextPiece = 0;  // the first piece not yet gathered
    std::size_t size() const {
      std::size_t size = bytes.size();
      for (const auto& piece : pieces) size += piece.bytes.size();
      return size;
    }
  };

  void writeNext(std::shared_ptr<void> owner) {
    if (queue_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    Outgoing& next = queue_.front();
    boost::asio::const_buffer buffer = boost::asio::buffer(next.bytes);
    if (!next.pieces.empty()) {
      // Pieces go out gathered into chunks: a gather write sends 64 buffers per sendmsg (asio's
      // iovec bound), and on loopback each sendmsg costs far more than copying a few KiB. The
      // chunk is sized first, so that it is allocated once.
      std::size_t end = next.nextPiece;
      std::size_t size = next.nextPiece == 0 ? next.bytes.size() : 0;
      while (end < next.pieces.size() && size < kGatherChunkBytes) size += next.pieces[end++].bytes.size();
      gathered_.clear();
      gathered_.reserve(size);
      if (next.nextPiece == 0) gathered_ += next.bytes;
      for (; next.nextPiece < end; ++next.nextPiece) gathered_ += next.pieces[next.nextPiece].bytes;
      buffer = boost::asio::buffer(gathered_);
    }
    buffer += writeWhatTheSocketTakesNow(buffer);
    // The buffer is queue_.front()'s or gathered_, which stay until this write completes.
    boost::asio::async_write(stream_, buffer, [this, owner](boost::beast::error_code ec, std::size_t) {
      if (ec) {
        queue_.clear();
        queuedBytes_ = 0;
        writing_ = false;
        return failed_();
      }
      lastProgress_ = steadyNanos();
      Outgoing& sent = queue_.front();
      if (sent.nextPiece < sent.pieces.size()) return writeNext(owner);  // more of the same answer
      Outgoing done = std::move(sent);
      queue_.pop_front();
      if (!done.pieces.empty()) std::string().swap(gathered_);  // an idle connection holds no chunk
      if (done.counted) queuedBytes_ -= done.size();
      if (done.after) done.after();
      writeNext(owner);
    });
  }

  // Beast's tcp_stream writes at most 64 KiB per operation, each completing through the
  // io_context (for a LIST of 765 KB: 12 completions, each free to land on another of the HTTP
  // threads). The socket itself takes what its send buffer holds in one non-blocking sendmsg;
  // the async write then carries only the rest, with the stream's timeout. Over TLS, nothing.
  std::size_t writeWhatTheSocketTakesNow(boost::asio::const_buffer buffer) {
    if constexpr (std::is_same_v<Stream, boost::beast::tcp_stream>) {
      auto& socket = stream_.socket();
      boost::beast::error_code ec;
      if (!socket.non_blocking()) socket.non_blocking(true, ec);
      if (ec) return 0;
      const std::size_t written = socket.write_some(buffer, ec);
      return ec ? 0 : written;  // would_block: nothing now; another error: the async write meets it
    } else {
      (void)buffer;
      return 0;
    }
  }

  Stream& stream_;
  std::function<void()> failed_;
  std::deque<Outgoing> queue_;
  bool writing_ = false;
  static constexpr std::size_t kGatherChunkBytes = 1024 * 1024;
  std::string gathered_;  // the chunk of an answer's pieces being written
  std::atomic<std::size_t> queuedBytes_{0};
  std::atomic<std::int64_t> lastProgress_{0};  // steady-clock nanoseconds of the last write that went out
};

}  // namespace fedhpa::apiserver::http
