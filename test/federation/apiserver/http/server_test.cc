// The HTTP server as clients meet it: requests reach the handler decoded, oversize bodies get a
// 413 Status, streams flow and notice their client leaving, HTTPS and both authenticators work.
#include "federation/apiserver/http/server.h"
#include "federation/apiserver/http/authentication.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include "test/federation/apiserver/http_test_client.h"

namespace fedhpa::apiserver::http {
namespace {

using ::testing::HasSubstr;
using apiserver::testing::call;
using apiserver::testing::WatchConnection;

// Answers with what it saw; /stream opens a stream the test writes to.
class EchoHandler : public Handler {
 public:
  void handle(Request request, std::shared_ptr<Responder> responder) override {
    if (request.path == "/stream") {
      auto stream = responder->stream(200, {{"Content-Type", "application/json"}});
      stream->onClosed([this] {
        std::lock_guard lock(mutex_);
        ++closedStreams_;
        changed_.notify_all();
      });
      std::lock_guard lock(mutex_);
      streams_.push_back(stream);
      changed_.notify_all();
      return;
    }
    nlohmann::json seen = {{"method", request.method}, {"path", request.path}, {"body", request.body},
                           {"user", request.user ? request.user->name : ""}};
    for (const auto& [key, value] : request.query) seen["query"][key] = value;
    if (request.user) seen["groups"] = request.user->groups;
    seen["header"] = request.header("x-test").value_or("");
    Response response{200, {{"Content-Type", "application/json"}}, seen.dump()};
    responder->respond(std::move(response));
  }
  std::shared_ptr<ResponseStream> waitForStream(std::size_t index) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return streams_.size() > index; });
    return streams_.size() > index ? streams_[index] : nullptr;
  }
  bool waitForClosed(int count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return closedStreams_ >= count; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::shared_ptr<ResponseStream>> streams_;
  int closedStreams_ = 0;
};

class ServerTest : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}) {
    options.maxRequestBodyBytes = 1024;
    server_ = std::make_unique<Server>(options, handler_);
    port_ = server_->start();
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  std::shared_ptr<EchoHandler> handler_ = std::make_shared<EchoHandler>();
  std::unique_ptr<Server> server_;
  std::uint16_t port_ = 0;
};

TEST_F(ServerTest, HandlerSeesTheDecodedRequest) {
  start();
  const auto reply = call(port_, "POST", "/apis/x/v1/a%20b?fieldSelector=metadata.name%3Dweb&watch=true", "hello",
                          {{"X-Test", "yes"}});
  ASSERT_EQ(reply.status, 200);
  const auto seen = reply.json();
  EXPECT_EQ(seen["method"], "POST");
  EXPECT_EQ(seen["path"], "/apis/x/v1/a b");
  EXPECT_EQ(seen["query"]["fieldSelector"], "metadata.name=web");
  EXPECT_EQ(seen["body"], "hello");
  EXPECT_EQ(seen["header"], "yes") << "header names are case-insensitive";
}

TEST_F(ServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  start();
  boost::asio::ip::tcp::iostream stream("127.0.0.1", std::to_string(port_));
  for (int i = 0; i < 3; ++i) {
    stream << "GET /n" << i << " HTTP/1.1\r\nHost: x\r\n\r\n" << std::flush;
    apiserver::testing::HttpReply reply;
    apiserver::testing::readHeaders(stream, reply);
    ASSERT_EQ(reply.status, 200);
    reply.body.resize(std::stoul(reply.header("content-length")));
    stream.read(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
    EXPECT_EQ(reply.json()["path"], "/n" + std::to_string(i));
  }
}

// A HEAD is answered with the head a GET gets, Content-Length and all, and no body: the bytes of
// one would be read as the start of the next response on the connection (Go's client drops the
// connection over them, curl reports "Excess found"). A stream opened for a HEAD sends its head
// only, and the handler finds it closed.
TEST_F(ServerTest, HeadGetsTheHeadAloneAndTheNextRequestItsOwnAnswer) {
  start();
  boost::asio::ip::tcp::iostream stream("127.0.0.1", std::to_string(port_));
  stream.expires_after(std::chrono::seconds(10));
  stream << "HEAD /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n" << std::flush;
  apiserver::testing::HttpReply head;
  apiserver::testing::readHeaders(stream, head);
  ASSERT_EQ(head.status, 200);
  EXPECT_GT(std::stoul(head.header("content-length")), 0u) << "the length a GET would get";
  apiserver::testing::HttpReply next;
  apiserver::testing::readHeaders(stream, next);
  ASSERT_EQ(next.status, 200) << "the HEAD's body was read as the next response";
  next.body.resize(std::stoul(next.header("content-length")));
  stream.read(next.body.data(), static_cast<std::streamsize>(next.body.size()));
  EXPECT_EQ(next.json()["path"], "/second");

  boost::asio::ip::tcp::iostream headOfStream("127.0.0.1", std::to_string(port_));
  headOfStream.expires_after(std::chrono::seconds(10));
  headOfStream << "HEAD /stream HTTP/1.1\r\nHost: x\r\n\r\n" << std::flush;
  apiserver::testing::HttpReply streamHead;
  apiserver::testing::readHeaders(headOfStream, streamHead);
  EXPECT_EQ(streamHead.status, 200);
  EXPECT_EQ(streamHead.header("transfer-encoding"), "");
  const auto opened = handler_->waitForStream(0);
  ASSERT_TRUE(opened);
  EXPECT_TRUE(opened->closed());
  EXPECT_FALSE(opened->write("{}")) << "nothing is sent after the head";
  EXPECT_TRUE(handler_->waitForClosed(1));
}

TEST_F(ServerTest, OversizeBodyIsA413Status) {
  start();
  const auto reply = call(port_, "POST", "/big", std::string(64 * 1024, 'x'));
  EXPECT_EQ(reply.status, 413);
  EXPECT_EQ(reply.json()["reason"], "RequestEntityTooLarge");
  EXPECT_EQ(call(port_, "GET", "/after").status, 200) << "the server goes on";
}

TEST_F(ServerTest, MalformedRequestIsA400) {
  start();
  boost::asio::ip::tcp::iostream stream("127.0.0.1", std::to_string(port_));
  stream << "GARBAGE\r\n\r\n" << std::flush;
  apiserver::testing::HttpReply reply;
  apiserver::testing::readHeaders(stream, reply);
  EXPECT_EQ(reply.status, 400);
}

TEST_F(ServerTest, StreamsDeliverChunksAndNoticeTheClientLeaving) {
  start();
  {
    WatchConnection watch(port_, "/stream");
    auto stream = handler_->waitForStream(0);
    ASSERT_TRUE(stream);
    EXPECT_TRUE(stream->write("{\"n\":1}\n"));
    EXPECT_TRUE(stream->write("{\"n\":2}\n"));
    EXPECT_EQ((*watch.next())["n"], 1);
    EXPECT_EQ((*watch.next())["n"], 2);
  }  // the client hangs up
  EXPECT_TRUE(handler_->waitForClosed(1));
  EXPECT_TRUE(handler_->waitForStream(0)->closed());
}

TEST_F(ServerTest, StopEndsOpenStreamsWithTheTerminatingChunk) {
  start();
  WatchConnection watch(port_, "/stream");
  ASSERT_TRUE(handler_->waitForStream(0));
  std::thread stopper([&] { server_->stop(); });
  EXPECT_FALSE(watch.next()) << "the stream ends cleanly";
  stopper.join();
}

TEST_F(ServerTest, ManyStreamsWhileRequestsAreServed) {
  start();
  std::vector<std::unique_ptr<WatchConnection>> watches;
  for (int i = 0; i < 250; ++i) watches.push_back(std::make_unique<WatchConnection>(port_, "/stream"));
  ASSERT_TRUE(handler_->waitForStream(249));
  EXPECT_EQ(call(port_, "GET", "/still-here").status, 200);
  handler_->waitForStream(100)->write("{\"n\":100}\n");
  // Stream 100 is not necessarily connection 100: find the one that received it by closing all.
  int received = 0;
  for (int i = 0; i < 250; ++i) handler_->waitForStream(static_cast<std::size_t>(i))->close();
  for (auto& watch : watches)
    while (auto event = watch->next()) received += (*event)["n"] == 100;
  EXPECT_EQ(received, 1);
}

// Certificates made by the openssl CLI for the TLS tests: a CA, a server cert for 127.0.0.1, a
// client cert (CN=admin, O=system:masters) from that CA and one from a stranger's CA.
class TlsServerTest : public ServerTest {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("fedhpa-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::string d = dir_.string();
    const std::string script =
        "cd " + d + " && set -e && "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca 2>/dev/null && "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout rogue-ca.key -out rogue-ca.crt -days 2 -subj /CN=rogue 2>/dev/null && "
        "printf 'subjectAltName=IP:127.0.0.1' > san.ext && "
        "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null && "
        "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile san.ext 2>/dev/null && "
        "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj '/O=system:masters/CN=admin' 2>/dev/null && "
        "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 2 2>/dev/null && "
        "openssl req -newkey rsa:2048 -nodes -keyout rogue.key -out rogue.csr -subj '/CN=rogue' 2>/dev/null && "
        "openssl x509 -req -in rogue.csr -CA rogue-ca.crt -CAkey rogue-ca.key -CAcreateserial -out rogue.crt -days 2 2>/dev/null && "
        "printf 'secret-token,alice,uid-1,\"dev,ops\"\\n' > tokens.csv";
    ASSERT_EQ(std::system(script.c_str()), 0);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  ServerOptions tlsOptions() {
    ServerOptions options;
    options.tls = TlsOptions{(dir_ / "server.crt").string(), (dir_ / "server.key").string()};
    options.clientCaFile = (dir_ / "ca.crt").string();
    options.tokenAuthFile = (dir_ / "tokens.csv").string();
    return options;
  }

  // curl over HTTPS; prints "<status> <body>".
  std::string curl(const std::string& path, const std::string& extra) {
    const std::string command = "curl -s -w ' %{http_code}' --cacert " + (dir_ / "ca.crt").string() + " " + extra +
                                " https://127.0.0.1:" + std::to_string(port_) + path;
    std::string output;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
      char buffer[4096];
      while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
      ::pclose(pipe);
    }
    return output;
  }
  std::string clientCert(const std::string& name) {
    return "--cert " + (dir_ / (name + ".crt")).string() + " --key " + (dir_ / (name + ".key")).string();
  }

  static std::filesystem::path dir_;
};

std::filesystem::path TlsServerTest::dir_;

TEST_F(TlsServerTest, ClientCertificateNamesTheUserAndGroups) {
  start(tlsOptions());
  const std::string out = curl("/who", clientCert("client"));
  EXPECT_THAT(out, HasSubstr("\"user\":\"admin\""));
  EXPECT_THAT(out, HasSubstr("system:masters"));
  EXPECT_THAT(out, ::testing::EndsWith(" 200"));
}

TEST_F(TlsServerTest, CertificateFromAnotherCaIsNotAuthenticated) {
  start(tlsOptions());
  const std::string out = curl("/who", clientCert("rogue"));
  EXPECT_THAT(out, ::testing::EndsWith(" 401"));
  EXPECT_THAT(out, HasSubstr("\"reason\":\"Unauthorized\""));
}

TEST_F(TlsServerTest, BearerTokensFromTheTokenFile) {
  start(tlsOptions());
  EXPECT_THAT(curl("/who", "-H 'Authorization: Bearer secret-token'"), HasSubstr("\"user\":\"alice\""));
  EXPECT_THAT(curl("/who", "-H 'Authorization: Bearer secret-token'"), HasSubstr("\"ops\""));
  EXPECT_THAT(curl("/who", "-H 'Authorization: Bearer wrong'"), ::testing::EndsWith(" 401"));
  EXPECT_THAT(curl("/who", ""), ::testing::EndsWith(" 401"));
  EXPECT_THAT(curl("/healthz", ""), ::testing::EndsWith(" 200")) << "health stays open";
}

// Over TLS the small parts of a stream's chunks (size lines, events' heads and tails) go out
// together and the large ones from where they are: every event arrives whole and in order.
TEST_F(TlsServerTest, AStreamOfSharedChunksArrivesWholeAndInOrder) {
  start(tlsOptions());
  auto client = std::async(std::launch::async, [&] { return curl("/stream", "-N --max-time 60 " + clientCert("client")); });
  auto stream = handler_->waitForStream(0);
  ASSERT_TRUE(stream);
  std::vector<std::string> expected;
  for (int i = 0; i < 40; ++i) {
    // Small events, and every fourth one larger than a TLS record.
    auto object = std::make_shared<const std::string>("{\"n\":" + std::to_string(i) + ",\"pad\":\"" +
                                                      std::string(i % 4 == 3 ? 40000 : 10, 'p') + "\"}");
    expected.push_back("{\"object\":" + *object + "}");
    const std::string_view bytes = *object;
    ASSERT_TRUE(stream->write(SharedChunk{"{\"object\":", {std::move(object), bytes}, "}\n"}));
  }
  stream->close();
  const std::string out = client.get();
  std::vector<std::string> lines;
  std::istringstream text(out);
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), expected.size() + 1) << out.substr(0, 300);
  EXPECT_EQ(lines.back(), " 200");
  lines.pop_back();
  EXPECT_EQ(lines, expected);
}

TEST(TokenAuthenticator, TheSchemeIsCaseInsensitiveAsKubeReadsIt) {
  const auto tokens = TokenAuthenticator::fromCsv("secret-token,alice,1\n", "tokens.csv");
  for (const char* header : {"Bearer secret-token", "bearer secret-token", "BEARER secret-token", "  Bearer secret-token  ",
                             "Bearer secret-token extra"}) {
    const auto user = tokens.authenticate(header);
    ASSERT_TRUE(user.has_value()) << header;
    EXPECT_EQ(user->name, "alice");
  }
  for (const char* header : {"", "Bearer", "Bearer ", "Basic secret-token", "Bearersecret-token", "Bearer wrong",
                             "Bearer  secret-token"})
    EXPECT_FALSE(tokens.authenticate(header).has_value()) << header;
}

TEST(TokenAuthenticator, ReportsTheFileAndLineOfABadEntry) {
  try {
    TokenAuthenticator::fromCsv("good,user,1\nonlytoken\n", "tokens.csv");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("tokens.csv:2"));
  }
}

}  // namespace
}  // namespace fedhpa::apiserver::http
