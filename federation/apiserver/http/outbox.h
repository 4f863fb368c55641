// What one connection sends, in order: answers (a head, then the shared pieces of a body),
// stream chunks (a watch event's shared bytes by reference), "100 Continue". One write at a time;
// each item's `after` runs once its bytes are out. Internal to the HTTP session (session.cc), a template over its stream (TCP or TLS).
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
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
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
    queue_.push_back({std::move(bytes), {}, false, std::move(pieces), std::move(after), counted});
    if (!writing_) writeNext(std::move(owner));
  }

  // On the strand: one chunk of a stream, counted by countQueued, framed here (its size line, its
  // parts, CRLF) and written from where its shared bytes are.
  void sendChunk(std::shared_ptr<void> owner, SharedChunk chunk) {
    char sizeLine[24];
    const int length = std::snprintf(sizeLine, sizeof sizeLine, "%zx\r\n", chunk.size());
    queue_.push_back({std::string(sizeLine, static_cast<std::size_t>(length)), std::move(chunk), true, {}, {}, true});
    if (!writing_) writeNext(std::move(owner));
  }

  // The framed size of a chunk of `size` bytes: what it adds to the backlog.
  static std::size_t framedSize(std::size_t size) {
    std::size_t digits = 1;
    for (std::size_t rest = size >> 4; rest; rest >>= 4) ++digits;
    return digits + 2 + size + 2;
  }

  // The backlog of a chunked stream, read from any thread: bytes (most of them shared with other
  // streams) and chunks queued and not yet written (counted by the stream as it queues them), and
  // when a write last went out.
  std::size_t queuedBytes() const { return queuedBytes_.load(); }
  std::size_t queuedChunks() const { return queuedChunks_.load(); }
  std::chrono::nanoseconds stalledFor(std::int64_t now) const { return std::chrono::nanoseconds(now - lastProgress_.load()); }
  // Any thread, before queueing a chunk of `size` bytes: true when nothing was waiting, so that
  // the wait for this chunk starts `now`.
  bool countQueued(std::size_t size, std::int64_t now) {
    // The wait's clock is set before its bytes are counted: another thread that sees them waiting
    // must not see them waiting since the last write of an idle stream, long ago, and cut it off.
    if (queuedBytes_.load() == 0) lastProgress_ = now;
    ++queuedChunks_;
    return queuedBytes_.fetch_add(size) == 0;
  }

 private:
  struct Outgoing {
    std::string bytes;   // a head, a whole chunk, or the size line of a shared chunk
    SharedChunk shared;  // with isSharedChunk: its parts, after bytes, then CRLF
    bool isSharedChunk = false;
    std::vector<SharedBytes> pieces;  // an answer's body, sent after bytes, gathered a chunk at a time
    std::function<void()> after;
    bool counted = false;  // in queuedBytes_ and queuedChunks_
    std::size_t nextPiece = 0;  // the first piece not yet gathered
    std::size_t size() const {
      std::size_t size = bytes.size() + (isSharedChunk ? shared.size() + kCrlf.size() : 0);
      for (const auto& piece : pieces) size += piece.bytes.size();
      return size;
    }
  };

  static constexpr std::string_view kCrlf = "\r\n";
  // What one gather write carries at most: asio's iovec bound per sendmsg.
  static constexpr std::size_t kMaxBuffers = 64;
  static constexpr std::size_t kMaxBuffersPerEntry = 5;

  static void append(std::vector<boost::asio::const_buffer>& buffers, std::string_view bytes) {
    if (!bytes.empty()) buffers.push_back(boost::asio::buffer(bytes.data(), bytes.size()));
  }

  // Drops the first `written` bytes of `buffers`.
  static void consume(std::vector<boost::asio::const_buffer>& buffers, std::size_t written) {
    std::size_t whole = 0;
    while (whole < buffers.size() && written >= buffers[whole].size()) written -= buffers[whole++].size();
    buffers.erase(buffers.begin(), buffers.begin() + static_cast<std::ptrdiff_t>(whole));
    if (written > 0 && !buffers.empty()) buffers.front() += written;
  }

  void writeNext(std::shared_ptr<void> owner) {
    if (queue_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    batch_.clear();
    batchEntries_ = 0;
    Outgoing& front = queue_.front();
    if (!front.pieces.empty()) {
      // An answer's pieces go out gathered into chunks: a gather write sends 64 buffers per
      // sendmsg (asio's iovec bound), and on loopback each sendmsg costs far more than copying a
      // few KiB. The chunk is sized first, so that it is allocated once.
      std::size_t end = front.nextPiece;
      std::size_t size = front.nextPiece == 0 ? front.bytes.size() : 0;
      while (end < front.pieces.size() && size < kGatherChunkBytes) size += front.pieces[end++].bytes.size();
      gathered_.clear();
      gathered_.reserve(size);
      if (front.nextPiece == 0) gathered_ += front.bytes;
      for (; front.nextPiece < end; ++front.nextPiece) gathered_ += front.pieces[front.nextPiece].bytes;
      append(batch_, gathered_);
    } else {
      // Everything else (stream chunks above all: a watcher's backlog) goes out from where its
      // bytes are, several entries in one gather write, never copied. An entry whose `after`
      // must run before what follows it is written ends the batch.
      for (const Outgoing& entry : queue_) {
        if (!entry.pieces.empty() || batch_.size() + kMaxBuffersPerEntry > kMaxBuffers) break;
        append(batch_, entry.bytes);
        if (entry.isSharedChunk) {
          append(batch_, entry.shared.head);
          append(batch_, entry.shared.body.bytes);
          append(batch_, entry.shared.tail);
          append(batch_, kCrlf);
        }
        ++batchEntries_;
        if (entry.after) break;
      }
    }
    if constexpr (!std::is_same_v<Stream, boost::beast::tcp_stream>) coalesceSmallBuffers();
    consume(batch_, writeWhatTheSocketTakesNow());
    // The buffers point into queue_'s entries or gathered_, which stay until this write completes
    // (a deque keeps its elements where they are as entries are added behind them).
    boost::asio::async_write(stream_, batch_, [this, owner](boost::beast::error_code ec, std::size_t) {
      if (ec) {
        queue_.clear();
        queuedBytes_ = 0;
        queuedChunks_ = 0;
        writing_ = false;
        return failed_();
      }
      lastProgress_ = steadyNanos();
      if (batchEntries_ == 0) {  // a part of an answer's pieces
        Outgoing& sent = queue_.front();
        if (sent.nextPiece < sent.pieces.size()) return writeNext(owner);  // more of the same answer
        std::string().swap(gathered_);  // an idle connection holds no chunk
        batchEntries_ = 1;
      }
      for (std::size_t i = 0; i < batchEntries_; ++i) {
        Outgoing done = std::move(queue_.front());
        queue_.pop_front();
        if (done.counted) {
          queuedBytes_ -= done.size();
          --queuedChunks_;
        }
        if (done.after) done.after();  // the batch's last entry
      }
      writeNext(owner);
    });
  }

  // Over TLS each buffer of a write becomes a record of its own, and a socket write: runs of small
  // buffers (size lines, events' heads and tails, small objects) are copied together into one,
  // while large ones (a big object's bytes) stay where they are. What is copied is what goes out
  // now, never the backlog.
  void coalesceSmallBuffers() {
    std::size_t small = 0;
    for (const auto& buffer : batch_)
      if (buffer.size() < kSmallBuffer) small += buffer.size();
    staged_.clear();
    staged_.reserve(small);  // once: the views below point into it
    std::vector<boost::asio::const_buffer> merged;
    std::size_t runStart = 0;
    const auto endRun = [&] {
      if (staged_.size() > runStart) merged.push_back(boost::asio::buffer(staged_.data() + runStart, staged_.size() - runStart));
      runStart = staged_.size();
    };
    for (const auto& buffer : batch_) {
      if (buffer.size() < kSmallBuffer) {
        staged_.append(static_cast<const char*>(buffer.data()), buffer.size());
      } else {
        endRun();
        merged.push_back(buffer);
      }
    }
    endRun();
    batch_.swap(merged);
  }

  // Beast's tcp_stream writes at most 64 KiB per operation, each completing through the
  // io_context (for a LIST of 765 KB: 12 completions, each free to land on another of the HTTP
  // threads). The socket itself takes what its send buffer holds in one non-blocking sendmsg;
  // the async write then carries only the rest, with the stream's timeout. Over TLS, nothing.
  std::size_t writeWhatTheSocketTakesNow() {
    if constexpr (std::is_same_v<Stream, boost::beast::tcp_stream>) {
      auto& socket = stream_.socket();
      boost::beast::error_code ec;
      if (!socket.non_blocking()) socket.non_blocking(true, ec);
      if (ec) return 0;
      const std::size_t written = socket.write_some(batch_, ec);
      return ec ? 0 : written;  // would_block: nothing now; another error: the async write meets it
    } else {
      return 0;
    }
  }

  Stream& stream_;
  std::function<void()> failed_;
  std::deque<Outgoing> queue_;
  bool writing_ = false;
  std::vector<boost::asio::const_buffer> batch_;  // what the write in flight carries
  std::size_t batchEntries_ = 0;  // the queue entries it completes; 0: a part of an answer's pieces
  static constexpr std::size_t kGatherChunkBytes = 1024 * 1024;
  std::string gathered_;  // the chunk of an answer's pieces being written
  static constexpr std::size_t kSmallBuffer = 4096;
  std::string staged_;  // over TLS: the small buffers of the write in flight, together
  std::atomic<std::size_t> queuedBytes_{0};
  std::atomic<std::size_t> queuedChunks_{0};
  std::atomic<std::int64_t> lastProgress_{0};  // steady-clock nanoseconds of the last write that went out
};

}  // namespace fedhpa::apiserver::http
