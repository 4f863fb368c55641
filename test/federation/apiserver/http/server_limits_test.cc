// The HTTP server's limits and answers as kube-apiserver's Go http.Server gives them: header
// size (431), protocol version (505), Transfer-Encoding (501), Host (400), Expect: 100-continue,
// the read-header, idle and request timeouts, the connection limit, and stream clients that stop
// reading (cut off at the stall timeout, the byte bound or the chunk bound, while the others
// carry on).
#include "federation/apiserver/http/server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <thread>

#include "test/federation/apiserver/http_test_client.h"

// GCC defines __SANITIZE_ADDRESS__ under ASan; clang answers __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define FEDHPA_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FEDHPA_UNDER_ASAN 1
#endif
#endif
#ifndef FEDHPA_UNDER_ASAN
#define FEDHPA_UNDER_ASAN 0
#endif

namespace fedhpa::apiserver::http {
namespace {

using apiserver::testing::call;
using apiserver::testing::HttpReply;
using apiserver::testing::readHeaders;
using ::testing::HasSubstr;
using tcp = boost::asio::ip::tcp;

// "/hang" is never answered (the handler keeps the responder); "/stream" opens a stream; anything
// else answers 200 with the body's size.
class LimitsHandler : public Handler {
 public:
  void handle(Request request, std::shared_ptr<Responder> responder) override {
    std::lock_guard lock(mutex_);
    if (request.path == "/hang") {
      hanging_.push_back(responder);
    } else if (request.path == "/stream") {
      streams_.push_back(responder->stream(200, {{"Content-Type", "application/json"}}));
    } else {
      responder->respond({200, {{"Content-Type", "text/plain"}}, std::to_string(request.body.size())});
    }
    changed_.notify_all();
  }
  // Lets go of what it holds, while the server still runs its queued work.
  void release() {
    std::lock_guard lock(mutex_);
    hanging_.clear();
    streams_.clear();
  }
  std::shared_ptr<ResponseStream> waitForStream() {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return !streams_.empty(); });
    return streams_.empty() ? nullptr : streams_.front();
  }
  // The stream opened as the count-th (1: the first), once it is.
  std::shared_ptr<ResponseStream> waitForStreams(std::size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return streams_.size() >= count; });
    return streams_.size() >= count ? streams_[count - 1] : nullptr;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::shared_ptr<Responder>> hanging_;
  std::vector<std::shared_ptr<ResponseStream>> streams_;
};

class ServerLimitsTest : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}) {
    server_ = std::make_unique<Server>(options, handler_);
    port_ = server_->start();
  }
  void TearDown() override {
    handler_->release();
    if (server_) server_->stop();
  }
  // Sends raw bytes on a new connection and reads the answer's status line and headers.
  HttpReply raw(const std::string& bytes) {
    tcp::iostream stream("127.0.0.1", std::to_string(port_));
    stream.expires_after(std::chrono::seconds(20));
    stream << bytes << std::flush;
    HttpReply reply;
    readHeaders(stream, reply);
    const std::string length = reply.header("content-length");
    if (!length.empty()) {
      reply.body.resize(std::stoul(length));
      stream.read(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
    }
    return reply;
  }
  // True when the server closes the connection (EOF) within the time given.
  static bool closedWithin(tcp::socket& socket, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    socket.non_blocking(true);
    std::vector<char> discard(64 * 1024);
    do {
      boost::system::error_code ec;
      socket.read_some(boost::asio::buffer(discard), ec);
      if (ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset) return true;
      if (ec == boost::asio::error::would_block) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
  }
  tcp::socket connect() {
    tcp::socket socket(io_);
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), port_});
    return socket;
  }

  boost::asio::io_context io_;
  std::shared_ptr<LimitsHandler> handler_ = std::make_shared<LimitsHandler>();
  std::unique_ptr<Server> server_;
  std::uint16_t port_ = 0;
};

TEST_F(ServerLimitsTest, HeadersUpToOneMebibyteAreServedAndBeyondA431) {
  start();
  const std::string token(100 * 1024, 't');
  EXPECT_EQ(raw("GET /x?selector=" + std::string(100 * 1024, 's') + " HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " +
                token + "\r\nX-Big: " + std::string(16 * 1024, 'b') + "\r\nConnection: close\r\n\r\n")
                .status,
            200)
      << "kube serves 100 KiB URLs and tokens, and 16 KiB headers";
  const auto tooLarge = raw("GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(1100 * 1024, 'b') + "\r\n\r\n");
  EXPECT_EQ(tooLarge.status, 431);
  EXPECT_EQ(tooLarge.body, "431 Request Header Fields Too Large");
  std::string manyHeaders = "GET /x HTTP/1.1\r\nHost: a\r\n";
  for (int i = 0; i < 100000; ++i) manyHeaders += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(raw(manyHeaders + "\r\n").status, 431) << "many small headers count together";
  EXPECT_EQ(call(port_, "GET", "/after").status, 200);
}

TEST_F(ServerLimitsTest, AnotherProtocolVersionIs505AndAMalformedOneIs400) {
  start();
  const auto unsupported = raw("GET /x HTTP/9.9\r\nHost: a\r\n\r\n");
  EXPECT_EQ(unsupported.status, 505);
  EXPECT_EQ(unsupported.body, "505 HTTP Version Not Supported: unsupported protocol version");
  EXPECT_EQ(raw("GET /x HTTP/2.0\r\nHost: a\r\n\r\n").status, 505);
  EXPECT_EQ(raw("GET /x HTTP/x.y\r\nHost: a\r\n\r\n").status, 400);
  EXPECT_EQ(raw("GET /x HTTP/1.0\r\n\r\n").status, 200) << "HTTP/1.0 needs no Host";
}

TEST_F(ServerLimitsTest, MissingOrDuplicateHostIs400AsInGo) {
  start();
  const auto missing = raw("GET /x HTTP/1.1\r\n\r\n");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body, "400 Bad Request: missing required Host header");
  const auto duplicate = raw("GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
  EXPECT_EQ(duplicate.status, 400);
  EXPECT_EQ(duplicate.body, "400 Bad Request: too many Host headers");
  EXPECT_EQ(raw("GET /x HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n\r\n").status, 417);
}

TEST_F(ServerLimitsTest, ATransferEncodingOtherThanChunkedIs501AndItsBodyIsNeverReadAsARequest) {
  start();
  const std::string smuggled = "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n";
  for (const char* framing :
       {"Transfer-Encoding: gzip\r\n", "Transfer-Encoding: chunked, identity\r\n",
        "Transfer-Encoding: identity\r\nContent-Length: 0\r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"}) {
    tcp::socket socket = connect();
    const std::string request = std::string("POST /x HTTP/1.1\r\nHost: a\r\n") + framing + "\r\n" + smuggled;
    boost::asio::write(socket, boost::asio::buffer(request));
    // Everything the server sends until it closes: one answer, never a second for the body.
    std::string answers;
    boost::system::error_code ec;
    boost::asio::read(socket, boost::asio::dynamic_buffer(answers), ec);
    EXPECT_EQ(ec, boost::asio::error::eof) << framing;
    EXPECT_THAT(answers, ::testing::StartsWith("HTTP/1.1 501 Not Implemented\r\n")) << framing;
    EXPECT_THAT(answers, ::testing::EndsWith("\r\n\r\nUnsupported transfer encoding")) << framing;
    EXPECT_EQ(answers.find("HTTP/1.1", 1), std::string::npos) << framing << answers;
  }
  EXPECT_EQ(raw("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n"
                "5\r\nhello\r\n0\r\n\r\n")
                .body,
            "5")
      << "chunked alone, in any case, is read";
}

TEST_F(ServerLimitsTest, ExpectContinueGetsTheInterimResponseBeforeTheBodyIsSent) {
  start();
  tcp::iostream stream("127.0.0.1", std::to_string(port_));
  stream.expires_after(std::chrono::seconds(20));
  stream << "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n" << std::flush;
  HttpReply interim;
  readHeaders(stream, interim);
  EXPECT_EQ(interim.status, 100) << "the client waits for this before it sends the body";
  stream << "hello" << std::flush;
  HttpReply reply;
  readHeaders(stream, reply);
  EXPECT_EQ(reply.status, 200);
  reply.body.resize(std::stoul(reply.header("content-length")));
  stream.read(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
  EXPECT_EQ(reply.body, "5");
}

TEST_F(ServerLimitsTest, ASlowClientIsCutOffAtTheReadHeaderTimeoutWhileOthersAreServed) {
  ServerOptions options;
  options.readHeaderTimeout = std::chrono::seconds(1);
  start(options);
  auto slow = connect();
  const std::string request = "GET /x HTTP/1.1\r\nHost: a\r\nX-Slow: " + std::string(100, 's') + "\r\n\r\n";
  const auto started = std::chrono::steady_clock::now();
  bool cutOff = false;
  for (char byte : request) {
    boost::system::error_code ec;
    boost::asio::write(slow, boost::asio::buffer(&byte, 1), ec);
    if (ec) {
      cutOff = true;
      break;
    }
    EXPECT_EQ(call(port_, "GET", "/other").status, 200);
    if (closedWithin(slow, std::chrono::seconds(0))) {
      cutOff = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(cutOff || closedWithin(slow, std::chrono::seconds(5)));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
}

TEST_F(ServerLimitsTest, AnIdleConnectionIsClosedAtTheIdleTimeout) {
  ServerOptions options;
  options.idleTimeout = std::chrono::seconds(1);
  options.readHeaderTimeout = std::chrono::seconds(1);
  start(options);
  auto neverSends = connect();
  auto keptAlive = connect();
  boost::asio::write(keptAlive, boost::asio::buffer(std::string("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")));
  EXPECT_TRUE(closedWithin(neverSends, std::chrono::seconds(5))) << "no request at all: the header timeout";
  EXPECT_TRUE(closedWithin(keptAlive, std::chrono::seconds(5))) << "after its answer, the idle timeout";
}

TEST_F(ServerLimitsTest, AnUnansweredRequestIsA504TimeoutStatusAtTheRequestTimeout) {
  ServerOptions options;
  options.requestTimeout = std::chrono::seconds(1);
  start(options);
  const auto started = std::chrono::steady_clock::now();
  const auto reply = call(port_, "GET", "/hang");
  EXPECT_EQ(reply.status, 504);
  EXPECT_EQ(reply.json()["kind"], "Status");
  EXPECT_EQ(reply.json()["reason"], "Timeout");
  EXPECT_THAT(reply.json()["message"].get<std::string>(), HasSubstr("Timeout: request did not complete"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  // A body that never comes counts against the same timeout.
  auto halfBody = connect();
  boost::asio::write(halfBody, boost::asio::buffer(std::string("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nab")));
  EXPECT_TRUE(closedWithin(halfBody, std::chrono::seconds(5)));
}

TEST_F(ServerLimitsTest, ConnectionsBeyondMaxConnectionsAreClosed) {
  ServerOptions options;
  options.maxConnections = 2;
  start(options);
  auto first = connect();
  auto second = connect();
  // An answer on each proves both were accepted, however slowly the server's thread was scheduled.
  for (tcp::socket* accepted : {&first, &second}) {
    boost::asio::write(*accepted, boost::asio::buffer(std::string("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")));
    boost::asio::streambuf answer;
    ASSERT_NO_THROW(boost::asio::read_until(*accepted, answer, "\r\n\r\n"));
    EXPECT_THAT(std::string(boost::asio::buffers_begin(answer.data()), boost::asio::buffers_end(answer.data())),
                HasSubstr("200 OK"));
  }
  auto third = connect();
  EXPECT_TRUE(closedWithin(third, std::chrono::seconds(5)));
  first.close();
  // The server learns of the close when it next reads that socket: wait for it, within a limit.
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      status = call(port_, "GET", "/x").status;
    } catch (const std::exception&) {
      status = 0;  // closed at once: the place is not free yet
    }
  }
  EXPECT_EQ(status, 200) << "a closed connection frees its place";
}

TEST_F(ServerLimitsTest, AStreamClientThatStopsReadingIsCutOffNotBufferedWithoutBound) {
  ServerOptions options;
  options.streamStallTimeout = std::chrono::milliseconds(500);
  start(options);
  auto watcher = connect();
  boost::asio::write(watcher, boost::asio::buffer(std::string("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")));
  auto stream = handler_->waitForStream();
  ASSERT_TRUE(stream);
  const std::string chunk(64 * 1024, 'e');
  std::size_t written = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (stream->write(chunk) && std::chrono::steady_clock::now() < deadline) {
    written += chunk.size();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(stream->closed()) << "the client that never reads is cut off";
  EXPECT_LT(written, options.maxStreamBacklogBytes + 64 * 1024 * 1024) << "what was queued stays bounded";
  EXPECT_TRUE(closedWithin(watcher, std::chrono::seconds(10)));
}

// Reads a stream's answer on its own thread and keeps the numbers of the "event N " lines the
// chunks carry, in the order they came.
class EventReader {
 public:
  explicit EventReader(tcp::socket& socket) : socket_(socket), thread_([this] { run(); }) {}
  ~EventReader() {
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    thread_.join();
  }
  bool waitFor(std::size_t count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(20), [&] { return events_.size() >= count; });
  }
  std::vector<int> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  void run() {
    std::string received;
    std::size_t scanned = 0;
    std::vector<char> buffer(256 * 1024);
    for (;;) {
      boost::system::error_code ec;
      const std::size_t n = socket_.read_some(boost::asio::buffer(buffer), ec);
      if (ec) return;
      received.append(buffer.data(), n);
      for (std::size_t at; (at = received.find("event ", scanned)) != std::string::npos && at + 12 <= received.size();) {
        std::lock_guard lock(mutex_);
        events_.push_back(std::stoi(received.substr(at + 6, 5)));
        scanned = at + 12;
        changed_.notify_all();
      }
    }
  }
  tcp::socket& socket_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<int> events_;
  std::thread thread_;
};

// A watch event as the API server writes it: its object's bytes shared by every stream.
SharedChunk numberedEvent(int number, std::size_t size) {
  char text[16];
  std::snprintf(text, sizeof text, "event %05d ", number);
  std::string bytes = text;
  bytes.resize(size, 'p');
  auto shared = std::make_shared<const std::string>(std::move(bytes));
  const std::string_view view = *shared;
  return {"{\"object\":\"", {std::move(shared), view}, "\"}\n"};
}

TEST_F(ServerLimitsTest, AStreamClientThatStopsReadingIsCutOffAtTheByteBoundWhileAnotherGetsEveryEventInOrder) {
  ServerOptions options;
  options.maxStreamBacklogBytes = 1024 * 1024;
  options.streamStallTimeout = std::chrono::minutes(10);  // the bytes, not the clock, cut it off
  start(options);
  tcp::socket stalled(io_);
  stalled.open(tcp::v4());
  stalled.set_option(boost::asio::socket_base::receive_buffer_size(4096));
  stalled.connect({boost::asio::ip::make_address("127.0.0.1"), port_});
  boost::asio::write(stalled, boost::asio::buffer(std::string("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")));
  const auto stalledStream = handler_->waitForStreams(1);
  ASSERT_TRUE(stalledStream);
  auto readerSocket = connect();
  boost::asio::write(readerSocket, boost::asio::buffer(std::string("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")));
  const auto readerStream = handler_->waitForStreams(2);
  ASSERT_TRUE(readerStream);
  EventReader reader(readerSocket);

  // Each event goes to both; the next waits until the reader has it, so that only the one that
  // does not read falls behind, whatever the machine's speed. 64 MiB in all is far beyond the
  // bound plus what the kernel's socket buffers take.
  constexpr int kMostEvents = 2048;
  int sent = 0;
  for (; sent < kMostEvents && !stalledStream->closed(); ++sent) {
    const SharedChunk event = numberedEvent(sent, 32 * 1024);
    ASSERT_TRUE(readerStream->write(event));
    stalledStream->write(event);
    ASSERT_TRUE(reader.waitFor(static_cast<std::size_t>(sent) + 1)) << "the reading client has every event so far";
  }
  EXPECT_TRUE(stalledStream->closed()) << "the client that stopped reading is cut off once its backlog passed the bound";
  EXPECT_LT(sent, kMostEvents);
  EXPECT_TRUE(closedWithin(stalled, std::chrono::seconds(10)));
  for (int more = 0; more < 5; ++more) ASSERT_TRUE(readerStream->write(numberedEvent(sent + more, 32 * 1024)));
  ASSERT_TRUE(reader.waitFor(static_cast<std::size_t>(sent) + 5));
  std::vector<int> expected(static_cast<std::size_t>(sent) + 5);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(reader.events(), expected) << "the other client got every event, in order, and goes on getting them";
}

// Small events cost their queue entries more than their bytes: the backlog is bounded in chunks
// too, far below what the byte bound would let through.
TEST_F(ServerLimitsTest, AStreamClientThatStopsReadingIsCutOffAtTheChunkBound) {
  ServerOptions options;
  options.maxStreamBacklogChunks = 64;
  options.streamStallTimeout = std::chrono::minutes(10);
  start(options);
  tcp::socket stalled(io_);
  stalled.open(tcp::v4());
  stalled.set_option(boost::asio::socket_base::receive_buffer_size(4096));
  stalled.connect({boost::asio::ip::make_address("127.0.0.1"), port_});
  boost::asio::write(stalled, boost::asio::buffer(std::string("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")));
  const auto stream = handler_->waitForStream();
  ASSERT_TRUE(stream);
  // 100,000 chunks of about 120 bytes: 12 MB framed, within the byte bound (16 MiB) even before
  // the kernel's socket buffers take their part.
  constexpr int kMostEvents = 100000;
  int sent = 0;
  while (sent < kMostEvents && stream->write(numberedEvent(sent, 100))) ++sent;
  EXPECT_TRUE(stream->closed());
  EXPECT_LT(sent, kMostEvents);
  EXPECT_TRUE(closedWithin(stalled, std::chrono::seconds(10)));
}

// At the file-descriptor limit accept() fails at once, every time: retrying at once would spin
// a core until a descriptor frees up.
TEST_F(ServerLimitsTest, AtTheFileDescriptorLimitTheAcceptLoopBacksOffInsteadOfSpinning) {
#if FEDHPA_UNDER_ASAN
  // UBSan's vptr check needs a pipe to probe memory: with no descriptor left it reports every
  // virtual call as invalid. The release and ThreadSanitizer builds run this test.
  GTEST_SKIP() << "the sanitizers themselves need file descriptors";
#endif
  start();
  rlimit original{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &original), 0);
  std::size_t open = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++open;
  }
  rlimit lowered = original;
  lowered.rlim_cur = open + 16;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  std::vector<tcp::socket> clients;
  for (int i = 0; i < 40; ++i) {
    tcp::socket socket(io_);
    boost::system::error_code ec;
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
    if (ec) break;  // this process is out of descriptors too
    clients.push_back(std::move(socket));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server is now failing to accept
  const auto cpuSeconds = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  };
  const double before = cpuSeconds();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double used = cpuSeconds() - before;
  clients.clear();
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &original), 0);
  EXPECT_LT(used, 1.0) << "a spinning accept loop burns a whole core: about 2 s of CPU in these 2 s";
  EXPECT_EQ(call(port_, "GET", "/after").status, 200) << "once descriptors are free, it accepts again";
}

}  // namespace
}  // namespace fedhpa::apiserver::http
