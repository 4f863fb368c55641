// The cpprestsdk client against servers that misbehave on purpose: Status errors become typed
// errors, safe requests are retried through 503s, TLS with a CA and a client certificate works
// (checked for tls-server-name when the kubeconfig gives one, through an http proxy's CONNECT
// tunnel when it gives a proxy-url), watch events come out whole however the stream cuts them.
#include "clusters/client/rest_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cpprest/asyncrt_utils.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "federation/api/status.h"
#include "federation/apiserver/http/server.h"

namespace fedhpa::clusters {
namespace {

using apiserver::http::Handler;
using apiserver::http::Request;
using apiserver::http::Responder;
using apiserver::http::Response;
using ::testing::HasSubstr;

const Resource kHpas{"autoscaling", "v2", "horizontalpodautoscalers", true};

// Answers from a script: the status and body for each path, and the first `failures` requests
// get a 503.
class ScriptedHandler : public Handler {
 public:
  void handle(Request request, std::shared_ptr<Responder> responder) override {
    ++requests;
    lastMethod = request.method;
    lastAuthorization = request.header("Authorization").value_or("");
    lastUserAgent = request.header("User-Agent").value_or("");
    if (failures > 0) {
      --failures;
      responder->respond({503, {{"Content-Type", "application/json"}}, api::ApiError(503, "ServiceUnavailable", "busy").toStatus().dump()});
      return;
    }
    if (request.queryParam("watch") == std::optional<std::string>("true")) {
      auto stream = responder->stream(200, {{"Content-Type", "application/json"}});
      for (const auto& chunk : watchChunks) stream->write(chunk);
      stream->close();
      return;
    }
    if (request.path.ends_with("/whoami")) {
      responder->respond({200, {{"Content-Type", "application/json"}}, nlohmann::json{{"user", request.user ? request.user->name : ""}}.dump()});
      return;
    }
    if (const auto page = pages.find(request.path); page != pages.end()) {
      responder->respond({200, {{"Content-Type", "text/html"}}, page->second});
      return;
    }
    const auto it = answers.find(request.path);
    if (it == answers.end()) {
      responder->respond({404, {{"Content-Type", "application/json"}}, api::ApiError::notFound({"autoscaling", "horizontalpodautoscalers"}, "x").toStatus().dump()});
      return;
    }
    responder->respond({it->second.first, {{"Content-Type", "application/json"}}, it->second.second.dump()});
  }
  std::map<std::string, std::pair<int, nlohmann::json>> answers;
  std::map<std::string, std::string> pages;  // answered 200 with this text as HTML
  std::vector<std::string> watchChunks;  // a watch's body, chunk by chunk, then its end
  std::atomic<int> failures{0};
  std::atomic<int> requests{0};
  std::string lastMethod, lastAuthorization, lastUserAgent;
};

class RestClientTest : public ::testing::Test {
 protected:
  void SetUp() override { initializeHttpClientPool(4); }
  void startServer(apiserver::http::ServerOptions options = {}) {
    server_ = std::make_unique<apiserver::http::Server>(options, handler_);
    port_ = server_->start();
  }
  RestConfig config(const std::string& scheme = "http") const {
    RestConfig out;
    out.server = scheme + "://127.0.0.1:" + std::to_string(port_);
    return out;
  }
  static RestClientOptions fastRetries() {
    RestClientOptions options;
    options.retry = {4, std::chrono::milliseconds(10), std::chrono::milliseconds(50)};
    return options;
  }
  ClientError errorOf(const std::function<void()>& action) {
    try {
      action();
    } catch (const ClientError& error) {
      return error;
    }
    ADD_FAILURE() << "no ClientError";
    return ClientError(ClientError::Kind::Other, 0, "", "");
  }
  std::shared_ptr<ScriptedHandler> handler_ = std::make_shared<ScriptedHandler>();
  std::unique_ptr<apiserver::http::Server> server_;
  std::uint16_t port_ = 0;
};

TEST_F(RestClientTest, StatusErrorsBecomeTypedErrors) {
  startServer();
  const std::string item = kHpas.path("default", "web");
  handler_->answers[item] = {409, api::ApiError::staleResourceVersion({"autoscaling", "horizontalpodautoscalers"}, "web").toStatus()};
  handler_->answers[kHpas.path("default", "exists")] = {409, api::ApiError::alreadyExists({"autoscaling", "horizontalpodautoscalers"}, "exists").toStatus()};
  handler_->answers[kHpas.path("default", "bad")] = {422, api::ApiError::invalid("autoscaling", "HorizontalPodAutoscaler", "bad", {api::fieldRequired("spec.maxReplicas")}).toStatus()};
  handler_->answers[kHpas.path("default", "old")] = {410, api::ApiError::expired("too old resource version").toStatus()};
  handler_->answers[kHpas.path("default", "secret")] = {401, api::ApiError::unauthorized().toStatus()};
  RestClient client(config(), fastRetries());
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "missing"); }).kind(), ClientError::Kind::NotFound);
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "web"); }).kind(), ClientError::Kind::Conflict);
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "exists"); }).kind(), ClientError::Kind::AlreadyExists);
  const ClientError invalid = errorOf([&] { client.get(kHpas, "default", "bad"); });
  EXPECT_EQ(invalid.kind(), ClientError::Kind::Invalid);
  EXPECT_THAT(invalid.what(), HasSubstr("spec.maxReplicas: Required value"));
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "old"); }).kind(), ClientError::Kind::Expired);
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "secret"); }).kind(), ClientError::Kind::Unauthorized);
}

TEST_F(RestClientTest, WatchEventsComeOutWholeHoweverTheStreamIsCut) {
  const std::string first = R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}})";
  const std::string second = R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"}}})";
  const std::string third = R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"3"}}})";
  // The first event over three chunks, the second and the start of the third in one, blank lines.
  handler_->watchChunks = {first.substr(0, 10), first.substr(10, 20), first.substr(30) + "\n", "\n",
                           second + "\n" + third.substr(0, 5), third.substr(5) + "\n"};
  startServer();
  RestClient client(config());
  const auto stream = client.watch(kHpas, "default", "0", {});
  std::vector<std::string> versions;
  while (const auto event = stream->next()) versions.push_back(event->at("object").at("metadata").value("resourceVersion", ""));
  EXPECT_THAT(versions, ::testing::ElementsAre("1", "2", "3")) << "then the end of the stream";
}

// The controller's clients read objects without metadata.managedFields (answers, list items,
// watch events), and everything else as sent: a "managedFields" anywhere but in metadata stays,
// and so does a null or scalar value next to a skipped one.
TEST_F(RestClientTest, ManagedFieldsAreLeftOutOfWhatIsReadWhenAsked) {
  const nlohmann::json managed = nlohmann::json::array(
      {{{"manager", "kubectl"}, {"operation", "Update"}, {"fieldsV1", {{"f:spec", {{"f:maxReplicas", nlohmann::json::object()}}}}}}});
  const nlohmann::json object = {{"metadata", {{"name", "web"}, {"managedFields", managed}, {"labels", {{"a", "b"}}}}},
                                 {"spec", {{"managedFields", "mine"}, {"maxReplicas", 4}, {"metrics", {nullptr, 1.5, true}}}}};
  nlohmann::json without = object;
  without["metadata"].erase("managedFields");
  handler_->answers[kHpas.path("default", "web")] = {200, object};
  handler_->answers[kHpas.path("default")] = {200, {{"metadata", {{"resourceVersion", "7"}}}, {"items", {object, object}}}};
  handler_->watchChunks = {nlohmann::json{{"type", "ADDED"}, {"object", object}}.dump() + "\n"};
  startServer();
  RestClientOptions dropping;
  dropping.dropManagedFields = true;
  RestClient client(config(), dropping);
  EXPECT_EQ(client.get(kHpas, "default", "web"), without);
  const auto list = client.list(kHpas, "default", {});
  EXPECT_EQ(list.at("items"), nlohmann::json::array({without, without}));
  EXPECT_EQ(list.at("metadata").at("resourceVersion"), "7");
  const auto stream = client.watch(kHpas, "default", "0", {});
  const auto event = stream->next();
  ASSERT_TRUE(event);
  EXPECT_EQ(*event, (nlohmann::json{{"type", "ADDED"}, {"object", without}}));
  // Without the option, everything as sent.
  EXPECT_EQ(RestClient(config()).get(kHpas, "default", "web"), object);
}

// A watch event that is not JSON, or holds a number no double can, is a ClientError from next()
// (the informer lists again), whichever way the client parses.
TEST_F(RestClientTest, AnUnreadableWatchEventIsAClientError) {
  for (const std::string& line : {std::string("{\"type\":\"ADDED\",\"object\":{"),
                                   std::string(R"({"type":"ADDED","object":{"metadata":{"name":"a"},"spec":{"maxReplicas":1e999}}})")}) {
    handler_->watchChunks = {line + "\n"};
    if (!server_) startServer();
    for (const bool drop : {false, true}) {
      RestClientOptions options;
      options.dropManagedFields = drop;
      RestClient client(config(), options);
      const auto stream = client.watch(kHpas, "default", "0", {});
      const ClientError error = errorOf([&] { stream->next(); });
      EXPECT_EQ(error.kind(), ClientError::Kind::Other) << line;
      EXPECT_THAT(error.what(), HasSubstr("unreadable event")) << line;
    }
  }
}

// A cluster URL that lands on a proxy's or an ingress's page answers 200 with HTML: the call fails
// with a ClientError the caller handles, as client-go's decoding error, instead of a parse
// exception nobody catches.
TEST_F(RestClientTest, AnAnswerThatIsNotJsonIsAClientError) {
  handler_->pages["/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"] = "<html><body>Welcome to nginx!</body></html>";
  handler_->pages["/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web"] = "{\"metadata\":";
  startServer();
  RestClient client(config());
  ClientError error = errorOf([&] { client.list(kHpas, "default", {}); });
  EXPECT_EQ(error.kind(), ClientError::Kind::Other);
  EXPECT_EQ(error.code(), 200);
  EXPECT_THAT(error.what(), HasSubstr("not JSON"));
  error = errorOf([&] { client.get(kHpas, "default", "web"); });
  EXPECT_EQ(error.kind(), ClientError::Kind::Other);
  EXPECT_THAT(error.what(), HasSubstr("not JSON"));
}

TEST_F(RestClientTest, SafeRequestsAreRetriedThroughServerErrors) {
  startServer();
  handler_->answers[kHpas.path("default", "web")] = {200, {{"kind", "HorizontalPodAutoscaler"}}};
  RestClient client(config(), fastRetries());
  handler_->failures = 2;
  EXPECT_EQ(client.get(kHpas, "default", "web")["kind"], "HorizontalPodAutoscaler");
  EXPECT_EQ(handler_->requests, 3);
  handler_->requests = 0;
  handler_->failures = 1;
  const ClientError notRetried = errorOf([&] { client.create(kHpas, "default", {{"kind", "HorizontalPodAutoscaler"}}); });
  EXPECT_EQ(notRetried.code(), 503);
  EXPECT_EQ(handler_->requests, 1) << "a POST is not repeated";
  handler_->requests = 0;
  handler_->failures = 10;
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "web"); }).code(), 503);
  EXPECT_EQ(handler_->requests, 4) << "bounded by the retry policy";
}

TEST_F(RestClientTest, AnUnreachableServerIsAConnectionFailure) {
  startServer();
  const RestConfig unreachable = config();
  server_->stop();
  RestClient client(unreachable, fastRetries());
  EXPECT_EQ(errorOf([&] { client.get(kHpas, "default", "web"); }).kind(), ClientError::Kind::ConnectionFailure);
  EXPECT_EQ(errorOf([&] { client.probe("/readyz"); }).kind(), ClientError::Kind::ConnectionFailure);
  // Refused: nothing went out, so a write cannot have been applied (a timeout says no such thing).
  EXPECT_EQ(errorOf([&] { client.create(kHpas, "default", {{"metadata", {{"name", "web"}}}}); }).reason(),
            clusters::kConnectionRefused);
}

TEST_F(RestClientTest, BearerTokensAndDeleteOptions) {
  startServer();
  handler_->answers[kHpas.path("default", "web")] = {200, {{"kind", "HorizontalPodAutoscaler"}}};
  RestConfig withToken = config();
  withToken.bearerToken = "s3cret";
  RestClient client(withToken, fastRetries());
  client.remove(kHpas, "default", "web", "Orphan");
  EXPECT_EQ(handler_->lastMethod, "DELETE");
  EXPECT_EQ(handler_->lastAuthorization, "Bearer s3cret");
}

// The API server names a write's field manager after the User-Agent's product: the member HPAs
// the controller writes are managed by fedhpa-controller, not by the HTTP library.
TEST_F(RestClientTest, TheUserAgentIsTheOptionsOne) {
  startServer();
  handler_->answers[kHpas.path("default", "web")] = {200, {{"kind", "HorizontalPodAutoscaler"}}};
  RestClientOptions options = fastRetries();
  options.userAgent = kControllerUserAgent;
  RestClient(config(), options).mergePatch(kHpas, "default", "web", {{"spec", {{"maxReplicas", 3}}}});
  EXPECT_EQ(handler_->lastUserAgent, "fedhpa-controller/v0 (linux)");
  RestClient(config(), fastRetries()).get(kHpas, "default", "web");
  EXPECT_EQ(handler_->lastUserAgent, "fedhpa/v0 (linux)");
}

// A CA, a server certificate for `serverSan` ("IP:127.0.0.1", "DNS:member.example") and a
// client certificate for federation-admin (system:masters), written to a fresh directory.
class TestCertificates {
 public:
  explicit TestCertificates(const std::string& serverSan)
      : dir_(std::filesystem::temp_directory_path() /
             ("fedhpa-client-tls-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(dir_);
    const std::string script =
        "cd " + dir_.string() + " && set -e && "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca 2>/dev/null && "
        "printf 'subjectAltName=" + serverSan + "' > san.ext && "
        "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=test-server 2>/dev/null && "
        "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile san.ext 2>/dev/null && "
        "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj '/O=system:masters/CN=federation-admin' 2>/dev/null && "
        "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 2 2>/dev/null";
    created_ = std::system(script.c_str()) == 0;
  }
  ~TestCertificates() { std::filesystem::remove_all(dir_); }
  bool created() const { return created_; }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::string read(const char* name) const {
    std::ifstream file(dir_ / name);
    return std::string(std::istreambuf_iterator<char>(file), {});
  }
  // A client that trusts this CA and presents the client certificate: what a kubeconfig holds.
  RestConfig trustedBy(RestConfig config) const {
    config.caPem = read("ca.crt");
    config.clientCertPem = read("client.crt");
    config.clientKeyPem = read("client.key");
    return config;
  }
  apiserver::http::ServerOptions serverOptions() const {
    apiserver::http::ServerOptions options;
    options.tls = apiserver::http::TlsOptions{path("server.crt"), path("server.key")};
    options.clientCaFile = path("ca.crt");
    return options;
  }

 private:
  std::filesystem::path dir_;
  bool created_ = false;
};

TEST_F(RestClientTest, TlsWithTheKubeconfigsCaAndClientCertificate) {
  const TestCertificates certs("IP:127.0.0.1");
  ASSERT_TRUE(certs.created());
  startServer(certs.serverOptions());
  RestConfig tls = certs.trustedBy(config("https"));
  RestClient client(tls, fastRetries());
  EXPECT_EQ(client.get({"", "v1", "whoami", false}, "", "")["user"], "federation-admin");
  RestConfig untrusted = config("https");
  RestClient stranger(untrusted, fastRetries());
  EXPECT_EQ(errorOf([&] { stranger.probe("/healthz"); }).kind(), ClientError::Kind::ConnectionFailure)
      << "the server's certificate is not trusted without the CA";
}

// A server reached by address whose certificate names it by another name (a private endpoint, a
// load balancer): kubeconfig's tls-server-name is the name checked, as in client-go.
TEST_F(RestClientTest, TlsServerNameIsTheNameTheCertificateIsCheckedFor) {
  const TestCertificates certs("DNS:member.example");
  ASSERT_TRUE(certs.created());
  startServer(certs.serverOptions());
  RestConfig tls = certs.trustedBy(config("https"));
  EXPECT_EQ(errorOf([&] { RestClient(tls, fastRetries()).probe("/healthz"); }).kind(), ClientError::Kind::ConnectionFailure)
      << "127.0.0.1 is not a name in the certificate";
  tls.tlsServerName = "member.example";
  EXPECT_EQ(RestClient(tls, fastRetries()).get({"", "v1", "whoami", false}, "", "")["user"], "federation-admin");
  tls.tlsServerName = "other.example";
  EXPECT_EQ(errorOf([&] { RestClient(tls, fastRetries()).probe("/healthz"); }).kind(), ClientError::Kind::ConnectionFailure)
      << "a name the certificate does not hold is refused";
}

// A forward proxy that serves CONNECT only, as corporate proxies in front of clusters do: it
// records each CONNECT's target and Proxy-Authorization and relays bytes both ways. A name (not an
// address) it reaches at 127.0.0.1: the proxy knows names this machine cannot resolve.
class ConnectProxy {
 public:
  ConnectProxy() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error("proxy: cannot listen");
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }
  // Sockets are closed only once no thread uses them (a close racing a read could hit a reused fd).
  ~ConnectProxy() {
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    ::close(listener_);
    {
      std::lock_guard lock(mutex_);
      for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& relay : relays_) relay.join();
    for (int fd : open_) ::close(fd);
  }
  std::uint16_t port() const { return port_; }
  std::vector<std::string> connects() {
    std::lock_guard lock(mutex_);
    return connects_;
  }
  std::vector<std::string> authorizations() {
    std::lock_guard lock(mutex_);
    return authorizations_;
  }

 private:
  void acceptLoop() {
    for (;;) {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      std::lock_guard lock(mutex_);
      open_.push_back(client);
      relays_.emplace_back([this, client] { serve(client); });
    }
  }
  void serve(int client) {
    std::string head;
    char byte;
    while (head.find("\r\n\r\n") == std::string::npos && ::read(client, &byte, 1) == 1) head += byte;
    std::istringstream lines(head);
    std::string method, target, authorization, line;
    lines >> method >> target;
    while (std::getline(lines, line))
      if (line.rfind("Proxy-Authorization: ", 0) == 0) authorization = line.substr(21, line.find('\r') - 21);
    {
      std::lock_guard lock(mutex_);
      connects_.push_back(method + " " + target);
      authorizations_.push_back(authorization);
    }
    const auto colon = target.rfind(':');
    const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(target.substr(colon + 1))));
    if (::inet_pton(AF_INET, target.substr(0, colon).c_str(), &address.sin_addr) != 1)
      ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (method != "CONNECT" || ::connect(upstream, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      const std::string refused = "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n";
      [[maybe_unused]] auto sent = ::write(client, refused.data(), refused.size());
      ::close(upstream);
      ::shutdown(client, SHUT_RDWR);
      return;
    }
    {
      std::lock_guard lock(mutex_);
      open_.push_back(upstream);
    }
    const std::string established = "HTTP/1.1 200 Connection established\r\n\r\n";
    [[maybe_unused]] auto sent = ::write(client, established.data(), established.size());
    pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
    char buffer[16384];
    while (::poll(fds, 2, -1) > 0) {
      const int from = (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) ? 0 : 1;
      const ssize_t got = ::read(fds[from].fd, buffer, sizeof buffer);
      if (got <= 0 || ::write(fds[1 - from].fd, buffer, static_cast<std::size_t>(got)) != got) break;
    }
    ::shutdown(client, SHUT_RDWR);
    ::shutdown(upstream, SHUT_RDWR);
  }

  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> relays_;
  std::vector<int> open_;  // closed with the proxy, after the relays end
  std::vector<std::string> connects_, authorizations_;
};

TEST_F(RestClientTest, HttpsThroughAnHttpProxyTunnelsWithConnect) {
  const TestCertificates certs("IP:127.0.0.1");
  ASSERT_TRUE(certs.created());
  startServer(certs.serverOptions());
  ConnectProxy proxy;
  RestConfig tls = certs.trustedBy(config("https"));
  tls.proxyUrl = "http://fedhpa:s%3Acret@127.0.0.1:" + std::to_string(proxy.port());
  {
    RestClient client(tls, fastRetries());
    EXPECT_EQ(client.get({"", "v1", "whoami", false}, "", "")["user"], "federation-admin") << "TLS end to end, through the tunnel";
  }
  ASSERT_FALSE(proxy.connects().empty());
  EXPECT_EQ(proxy.connects().front(), "CONNECT 127.0.0.1:" + std::to_string(port_));
  EXPECT_EQ(proxy.authorizations().front(), "Basic " + utility::conversions::to_base64(std::vector<unsigned char>{
                                                           'f', 'e', 'd', 'h', 'p', 'a', ':', 's', ':', 'c', 'r', 'e', 't'}))
      << "the proxy-url's user and (decoded) password, as Basic credentials";
}

// Sets environment variables for one scope and puts back what was there.
using Variables = std::map<std::string, std::string>;
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const Variables& variables) {
    for (const auto& [name, value] : variables) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// With no proxy-url, HTTPS_PROXY is the proxy, as client-go's: a member named by a name only the
// proxy resolves is reached through the tunnel; NO_PROXY naming it connects directly (and so
// fails here: nothing else resolves it); proxy-url wins over the environment; and a socks5 proxy
// from the environment, which fedhpa cannot use, fails every request with why.
TEST_F(RestClientTest, WithoutAProxyUrlTheEnvironmentsProxyIsUsedAsClientGoUsesIt) {
  const TestCertificates certs("DNS:member1.fedhpa-proxy.test");
  ASSERT_TRUE(certs.created());
  startServer(certs.serverOptions());
  ConnectProxy proxy;
  RestConfig tls = certs.trustedBy(config("https"));
  const std::string target = "member1.fedhpa-proxy.test:" + std::to_string(port_);
  tls.server = "https://" + target;
  const std::string proxyAddress = "127.0.0.1:" + std::to_string(proxy.port());
  const Resource whoami{"", "v1", "whoami", false};
  {
    ScopedEnvironment environment(Variables{{"HTTPS_PROXY", proxyAddress}, {"NO_PROXY", "10.0.0.0/8,.other.test"}});
    EXPECT_EQ(RestClient(tls, fastRetries()).get(whoami, "", "")["user"], "federation-admin") << "TLS end to end, through the tunnel";
    ASSERT_EQ(proxy.connects().size(), 1u);
    EXPECT_EQ(proxy.connects().front(), "CONNECT " + target);
  }
  {
    ScopedEnvironment environment(Variables{{"HTTPS_PROXY", proxyAddress}, {"NO_PROXY", "fedhpa-proxy.test"}});
    EXPECT_EQ(errorOf([&] { RestClient(tls, fastRetries()).get(whoami, "", ""); }).kind(), ClientError::Kind::ConnectionFailure);
    EXPECT_EQ(proxy.connects().size(), 1u) << "NO_PROXY: not through the proxy";
  }
  {
    ScopedEnvironment environment(Variables{{"HTTPS_PROXY", "http://127.0.0.1:1"}});
    RestConfig viaProxyUrl = tls;
    viaProxyUrl.proxyUrl = "http://" + proxyAddress;
    EXPECT_EQ(RestClient(viaProxyUrl, fastRetries()).get(whoami, "", "")["user"], "federation-admin");
    EXPECT_EQ(proxy.connects().size(), 2u) << "the kubeconfig's proxy-url, not HTTPS_PROXY";
  }
  {
    ScopedEnvironment environment(Variables{{"HTTPS_PROXY", "socks5://" + proxyAddress}});
    const ClientError error = errorOf([&] { RestClient(tls, fastRetries()).get(whoami, "", ""); });
    EXPECT_EQ(error.kind(), ClientError::Kind::ConnectionFailure);
    EXPECT_NE(std::string(error.what()).find("the proxy from the environment, socks5://..., is not supported"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace fedhpa::clusters
