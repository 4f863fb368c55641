// What a connection's outbox hands the socket: a stream chunk of shared bytes goes out from where
// those bytes are (the same memory for every watcher that sends it), its backlog holds references,
// and everything goes out in order. Driven on a fake stream that records each write's buffers
// (not a plain TCP stream: the outbox treats it as TLS, whose small buffers go out together).
#include "federation/apiserver/http/outbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fedhpa::apiserver::http {
namespace {

// An AsyncWriteStream that records every buffer it is handed and takes all of it, or, while held,
// completes nothing: a client that does not read.
class RecordingStream {
 public:
  using executor_type = boost::asio::io_context::executor_type;
  explicit RecordingStream(boost::asio::io_context& io) : io_(io) {}
  executor_type get_executor() { return io_.get_executor(); }

  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    std::size_t size = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::const_buffer buffer(*it);
      written.push_back(buffer);
      received.append(static_cast<const char*>(buffer.data()), buffer.size());
      size += buffer.size();
    }
    auto held = std::make_shared<std::decay_t<Handler>>(std::forward<Handler>(handler));
    std::function<void()> complete = [held, size] { (*held)(boost::beast::error_code(), size); };
    if (holding) pending.push_back(std::move(complete));
    else boost::asio::post(io_, std::move(complete));
  }

  void release() {
    holding = false;
    for (auto& complete : pending) boost::asio::post(io_, std::move(complete));
    pending.clear();
  }

  bool holding = false;
  std::vector<boost::asio::const_buffer> written;
  std::string received;

 private:
  boost::asio::io_context& io_;
  std::vector<std::function<void()>> pending;
};

struct Watcher {
  explicit Watcher(boost::asio::io_context& io) : stream(io) {}
  RecordingStream stream;
  Outbox<RecordingStream> outbox{stream, [this] { failed = true; }};
  bool failed = false;
  // Queues one chunk the way the HTTP session does: counted, then handed to the outbox.
  void send(const SharedChunk& chunk) {
    outbox.countQueued(Outbox<RecordingStream>::framedSize(chunk.size()), steadyNanos());
    outbox.sendChunk(owner, chunk);
  }
  std::shared_ptr<int> owner = std::make_shared<int>(0);
};

SharedChunk eventOf(const std::shared_ptr<const std::string>& object) {
  return {R"({"type":"MODIFIED","object":)", {object, *object}, "}\n"};
}

TEST(OutboxTest, AnEventSentToManyWatchersIsWrittenFromTheOneSharedCopy) {
  boost::asio::io_context io;
  const auto object = std::make_shared<const std::string>(32 * 1024, 'x');
  std::vector<std::unique_ptr<Watcher>> watchers;
  for (int i = 0; i < 5; ++i) watchers.push_back(std::make_unique<Watcher>(io));
  for (auto& watcher : watchers) watcher->send(eventOf(object));
  io.run();
  const std::string line = R"({"type":"MODIFIED","object":)" + *object + "}\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", line.size());
  for (auto& watcher : watchers) {
    EXPECT_EQ(watcher->stream.received, size + line + "\r\n") << "a well-framed chunk";
    std::size_t fromTheSharedBytes = 0;
    for (const auto& buffer : watcher->stream.written)
      if (buffer.data() == object->data() && buffer.size() == object->size()) ++fromTheSharedBytes;
    EXPECT_EQ(fromTheSharedBytes, 1u) << "the object's bytes went to the socket from the shared copy, not a copy of it";
    EXPECT_EQ(watcher->outbox.queuedBytes(), 0u);
    EXPECT_EQ(watcher->outbox.queuedChunks(), 0u);
  }
  EXPECT_EQ(object.use_count(), 1) << "nothing holds the event once it is written";
}

TEST(OutboxTest, ABacklogOfAWatcherThatDoesNotReadHoldsReferencesNotCopies) {
  boost::asio::io_context io;
  const auto object = std::make_shared<const std::string>(32 * 1024, 'y');
  Watcher reading(io), stalled(io);
  stalled.stream.holding = true;
  constexpr int kEvents = 200;
  for (int i = 0; i < kEvents; ++i) {
    reading.send(eventOf(object));
    stalled.send(eventOf(object));
  }
  io.run();
  EXPECT_EQ(reading.outbox.queuedChunks(), 0u);
  EXPECT_EQ(stalled.outbox.queuedChunks(), static_cast<std::size_t>(kEvents));
  EXPECT_EQ(stalled.outbox.queuedBytes(), kEvents * Outbox<RecordingStream>::framedSize(eventOf(object).size()))
      << "the backlog counts the bytes it will send";
  EXPECT_EQ(object.use_count(), 1 + kEvents) << "the stalled watcher's backlog refers to the one copy";
  for (const auto& buffer : stalled.stream.written)
    EXPECT_TRUE(buffer.size() < 4096 || buffer.data() == object->data()) << "no copy of the object is written from";
  stalled.stream.release();
  io.restart();
  io.run();
  EXPECT_EQ(stalled.stream.received, reading.stream.received) << "once it reads, it gets every event";
  EXPECT_EQ(stalled.outbox.queuedBytes(), 0u);
  EXPECT_EQ(object.use_count(), 1);
}

TEST(OutboxTest, ChunksAndAnswersGoOutInTheOrderQueued) {
  boost::asio::io_context io;
  Watcher watcher(io);
  std::vector<std::shared_ptr<const std::string>> objects;
  std::string expected;
  bool afterRan = false;
  watcher.outbox.send(watcher.owner, "HEAD\r\n\r\n", {}, [&] { afterRan = true; });
  expected += "HEAD\r\n\r\n";
  for (int i = 0; i < 100; ++i) {
    objects.push_back(std::make_shared<const std::string>("{\"n\":" + std::to_string(i) + "}"));
    watcher.send(eventOf(objects.back()));
    const std::string line = R"({"type":"MODIFIED","object":)" + *objects.back() + "}\n";
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", line.size());
    expected += size + line + "\r\n";
    if (i == 50) {
      watcher.outbox.send(watcher.owner, "owned\r\n", {}, {}, false);
      expected += "owned\r\n";
    }
  }
  io.run();
  EXPECT_TRUE(afterRan);
  EXPECT_EQ(watcher.stream.received, expected);
  EXPECT_FALSE(watcher.failed);
  EXPECT_LT(watcher.stream.written.size(), 40u) << "small events go out together, not a buffer (a TLS record) each";
}

}  // namespace
}  // namespace fedhpa::apiserver::http
