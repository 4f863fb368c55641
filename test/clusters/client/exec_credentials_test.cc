// Exec credential plugins as client-go runs them, checked through a RestClient against a server
// that accepts only the tokens the test says: the plugin (a bash script that counts its runs)
// runs once per expiry and once more after a 401, never once per request; its environment holds
// the kubeconfig's env and KUBERNETES_EXEC_INFO; a missing or misbehaving plugin is an error that
// names it (and, when missing, carries its installHint); interactiveMode decides, as in client-go,
// whether it gets fedhpa's stdin; a v1beta1 plugin (EKS's, GKE's) works as a v1 one does.
#include "clusters/client/exec_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "clusters/client/rest_client.h"
#include "federation/api/status.h"
#include "federation/api/time.h"
#include "federation/apiserver/http/server.h"
#include "test/federation/common/fake_time_source.h"

namespace fedhpa::clusters {
namespace {

using ::testing::HasSubstr;

const Resource kConfigMaps{"", "v1", "configmaps", true};

// 200 to a bearer token it accepts, 401 (a kube Status) to anything else.
class TokenCheckingHandler : public apiserver::http::Handler {
 public:
  void handle(apiserver::http::Request request, std::shared_ptr<apiserver::http::Responder> responder) override {
    std::lock_guard lock(mutex_);
    const std::string authorization = request.header("Authorization").value_or("");
    seen.push_back(authorization);
    if (!accepted.count(authorization)) {
      responder->respond({401, {{"Content-Type", "application/json"}}, api::ApiError::unauthorized().toStatus().dump()});
      return;
    }
    responder->respond({200, {{"Content-Type", "application/json"}}, nlohmann::json{{"kind", "ConfigMap"}}.dump()});
  }
  void accept(std::set<std::string> tokens) {
    std::lock_guard lock(mutex_);
    accepted.clear();
    for (const auto& token : tokens) accepted.insert("Bearer " + token);
  }
  std::vector<std::string> requests() {
    std::lock_guard lock(mutex_);
    return seen;
  }

 private:
  std::mutex mutex_;
  std::set<std::string> accepted;
  std::vector<std::string> seen;
};

class ExecCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    initializeHttpClientPool(4);
    dir_ = std::filesystem::temp_directory_path() /
           ("fedhpa-exec-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    server_ = std::make_unique<apiserver::http::Server>(apiserver::http::ServerOptions{}, handler_);
    port_ = server_->start();
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A plugin that counts its runs in <dir>/runs, keeps each run's KUBERNETES_EXEC_INFO and
  // prints token-<run> expiring at the time in $RUNS_DIR/expiry (RUNS_DIR from the kubeconfig's env).
  void writePlugin(const std::string& name, const std::string& apiVersion = kExecApiV1) {
    const auto path = dir_ / name;
    std::ofstream(path) << "#!/bin/bash\n"
                           "runs=$(( $(cat \"$RUNS_DIR/runs\" 2>/dev/null || echo 0) + 1 ))\n"
                           "echo $runs > \"$RUNS_DIR/runs\"\n"
                           "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$RUNS_DIR/exec-info-$runs\"\n"
                           "echo \"test plugin run $runs\" >&2\n"
                           "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\""
                        << apiVersion
                        << "\",\"status\":{\"token\":\"token-%s\",\"expirationTimestamp\":\"%s\"}}' \"$runs\" \"$(cat \"$RUNS_DIR/expiry\")\"\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
  // A plugin that prints `output` and exits with `code`.
  void writeScript(const std::string& name, const std::string& output, int code = 0) {
    const auto path = dir_ / name;
    std::ofstream(path) << "#!/bin/bash\ncat <<'EOF'\n" << output << "\nEOF\nexit " << code << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
  // What the plugin's next credentials give as their expirationTimestamp: `in` from the fake now.
  void expireIn(std::chrono::minutes in) { std::ofstream(dir_ / "expiry") << api::formatRfc3339(time_->systemTime() + in); }
  int runs() const {
    std::ifstream file(dir_ / "runs");
    int count = 0;
    file >> count;
    return count;
  }
  nlohmann::json execInfoOfRun(int run) const {
    std::ifstream file(dir_ / ("exec-info-" + std::to_string(run)));
    return nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(file), {}));
  }
  // A kubeconfig next to the plugin whose user runs `command` (relative to the kubeconfig's directory).
  RestConfig kubeconfigWithExec(const std::string& command) {
    std::ofstream(dir_ / "config") << "current-context: member\n"
                                      "contexts: [{name: member, context: {cluster: member, user: plugin-user}}]\n"
                                      "clusters:\n"
                                      "- name: member\n"
                                      "  cluster:\n"
                                      "    server: http://127.0.0.1:"
                                   << port_
                                   << "\n"
                                      "    tls-server-name: member.example\n"
                                      "    extensions:\n"
                                      "    - name: client.authentication.k8s.io/exec\n"
                                      "      extension: {audience: fedhpa-test}\n"
                                      "users:\n"
                                      "- name: plugin-user\n"
                                      "  user:\n"
                                      "    exec:\n"
                                      "      apiVersion: client.authentication.k8s.io/v1\n"
                                      "      command: "
                                   << command
                                   << "\n"
                                      "      args: [--cluster, member]\n"
                                      "      interactiveMode: Never\n"
                                      "      provideClusterInfo: true\n"
                                      "      installHint: 'install it with: make test-plugin'\n"
                                      "      env:\n"
                                      "      - {name: RUNS_DIR, value: '"
                                   << dir_.string()
                                   << "'}\n";
    expireIn(std::chrono::minutes(10));
    RestConfig config = loadKubeconfig({dir_ / "config"}).resolve();
    config.tlsServerName.clear();  // the server is plain http: the name only travels in KUBERNETES_EXEC_INFO
    return config;
  }
  RestClientOptions options() const {
    RestClientOptions out;
    out.timeSource = time_;
    out.retry.attempts = 1;
    return out;
  }
  std::string clientErrorOf(const std::function<void()>& action) {
    try {
      action();
    } catch (const ClientError& error) {
      return error.what();
    }
    ADD_FAILURE() << "no ClientError";
    return "";
  }

  std::filesystem::path dir_;
  std::shared_ptr<TokenCheckingHandler> handler_ = std::make_shared<TokenCheckingHandler>();
  std::unique_ptr<apiserver::http::Server> server_;
  std::uint16_t port_ = 0;
  std::shared_ptr<testing::FakeTimeSource> time_ = std::make_shared<testing::FakeTimeSource>();
};

TEST_F(ExecCredentialsTest, ThePluginRunsOncePerExpiryAndOnceMoreAfterA401NotPerRequest) {
  writePlugin("plugin.sh");
  RestClient client(kubeconfigWithExec("./plugin.sh"), options());
  EXPECT_EQ(runs(), 0) << "client-go runs a plugin on the first request, not when the client is made";
  handler_->accept({"token-1"});
  for (int i = 0; i < 5; ++i) client.get(kConfigMaps, "default", "c");
  EXPECT_EQ(runs(), 1) << "five requests, one credential";

  time_->advance(std::chrono::minutes(9));
  client.get(kConfigMaps, "default", "c");
  EXPECT_EQ(runs(), 1) << "still before its expirationTimestamp";

  time_->advance(std::chrono::minutes(2));
  expireIn(std::chrono::minutes(10));
  handler_->accept({"token-1", "token-2"});
  client.get(kConfigMaps, "default", "c");
  EXPECT_EQ(runs(), 2) << "past its expirationTimestamp, the plugin runs again";
  EXPECT_EQ(handler_->requests().back(), "Bearer token-2");

  // The member revokes the token before its expiry: one 401, one more run, the request sent again.
  handler_->accept({"token-3"});
  const auto before = handler_->requests().size();
  client.get(kConfigMaps, "default", "c");
  EXPECT_EQ(runs(), 3);
  ASSERT_EQ(handler_->requests().size(), before + 2) << ::testing::PrintToString(handler_->requests());
  EXPECT_EQ(handler_->requests()[before], "Bearer token-2");
  EXPECT_EQ(handler_->requests()[before + 1], "Bearer token-3");
  client.get(kConfigMaps, "default", "c");
  client.probe("/healthz");
  EXPECT_EQ(runs(), 3);

  // A member that refuses every credential: one more run, then the 401 is the answer.
  handler_->accept({});
  EXPECT_THAT(clientErrorOf([&] { client.get(kConfigMaps, "default", "c"); }), HasSubstr("Unauthorized"));
  EXPECT_EQ(runs(), 4) << "a 401 runs the plugin once more, not in a loop";
}

TEST_F(ExecCredentialsTest, AWatchRefusedWithA401IsOpenedAgainWithAFreshCredential) {
  writePlugin("plugin.sh");
  RestClient client(kubeconfigWithExec("./plugin.sh"), options());
  handler_->accept({"token-1"});
  client.get(kConfigMaps, "default", "c");
  handler_->accept({"token-2"});  // revoked between the list and the watch, as after a rotation
  auto watch = client.watch(kConfigMaps, "default", "1", {});
  ASSERT_TRUE(watch);
  EXPECT_EQ(runs(), 2);
  EXPECT_EQ(handler_->requests().back(), "Bearer token-2");
}

TEST_F(ExecCredentialsTest, ThePluginGetsItsArgsEnvAndClusterInfo) {
  writePlugin("plugin.sh");
  std::ofstream(dir_ / "args.sh") << "#!/bin/bash\nprintf '%s\\n' \"$@\" > \"$RUNS_DIR/args\"\nexec \"$RUNS_DIR/plugin.sh\"\n";
  std::filesystem::permissions(dir_ / "args.sh", std::filesystem::perms::owner_all);
  RestConfig config = kubeconfigWithExec("./args.sh");
  handler_->accept({"token-1"});
  RestClient(config, options()).get(kConfigMaps, "default", "c");
  std::ifstream args(dir_ / "args");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(args), {}), "--cluster\nmember\n");
  const nlohmann::json info = execInfoOfRun(1);
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["apiVersion"], kExecApiV1);
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "http://127.0.0.1:" + std::to_string(port_));
  EXPECT_EQ(info["spec"]["cluster"]["tls-server-name"], "member.example");
  EXPECT_EQ(info["spec"]["cluster"]["config"], nlohmann::json({{"audience", "fedhpa-test"}}));
}

TEST_F(ExecCredentialsTest, WithoutProvideClusterInfoThePluginIsToldOnlyThatItIsNotInteractive) {
  ExecConfig config;
  config.apiVersion = kExecApiV1beta1;
  config.command = "p";
  const nlohmann::json info = nlohmann::json::parse(execInfo(config, {"https://10.0.0.1", "", "CA", false, "", std::nullopt}));
  EXPECT_EQ(info["apiVersion"], kExecApiV1beta1);
  EXPECT_EQ(info["spec"], nlohmann::json({{"interactive", false}}));
  config.provideClusterInfo = true;
  const nlohmann::json withCluster = nlohmann::json::parse(execInfo(config, {"https://10.0.0.1", "", "CA", true, "http://proxy:3128", std::nullopt}));
  EXPECT_EQ(withCluster["spec"]["cluster"]["certificate-authority-data"], "Q0E=");
  EXPECT_EQ(withCluster["spec"]["cluster"]["insecure-skip-tls-verify"], true);
  EXPECT_EQ(withCluster["spec"]["cluster"]["proxy-url"], "http://proxy:3128");
}

TEST_F(ExecCredentialsTest, AMissingPluginNamesItselfAndItsInstallHint) {
  const std::string error = clientErrorOf([&] { RestClient(kubeconfigWithExec("fedhpa-no-such-plugin"), options()).get(kConfigMaps, "default", "c"); });
  EXPECT_THAT(error, HasSubstr("exec: executable fedhpa-no-such-plugin not found"));
  EXPECT_THAT(error, HasSubstr("install it with: make test-plugin"));
  EXPECT_TRUE(handler_->requests().empty()) << "no request goes out without a credential";
  const std::string byPath = clientErrorOf([&] { RestClient(kubeconfigWithExec("./bin/absent"), options()).get(kConfigMaps, "default", "c"); });
  EXPECT_THAT(byPath, HasSubstr("exec: executable " + (dir_ / "bin/absent").string() + " not found"))
      << "a command with a slash is relative to the kubeconfig's directory";
}

TEST_F(ExecCredentialsTest, APluginThatFailsOrPrintsNoExecCredentialIsAnErrorNamingIt) {
  auto errorFrom = [&](const std::string& output, int code = 0) {
    writeScript("bad.sh", output, code);
    return clientErrorOf([&] { RestClient(kubeconfigWithExec("./bad.sh"), options()).get(kConfigMaps, "default", "c"); });
  };
  const std::string plugin = (dir_ / "bad.sh").string();
  EXPECT_THAT(errorFrom("", 3), HasSubstr("exec: executable " + plugin + " failed with exit code 3"));
  EXPECT_THAT(errorFrom("not json"), HasSubstr("decoding stdout of " + plugin));
  EXPECT_THAT(errorFrom(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t"}})"),
              HasSubstr("is configured to use API version client.authentication.k8s.io/v1, plugin returned version "
                        "client.authentication.k8s.io/v1beta1"));
  EXPECT_THAT(errorFrom(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})"),
              HasSubstr("didn't return a status field"));
  EXPECT_THAT(errorFrom(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{}})"),
              HasSubstr("didn't return a token or cert/key pair"));
  EXPECT_THAT(errorFrom(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"PEM"}})"),
              HasSubstr("returned only certificate or key, not both"));
  EXPECT_THAT(errorFrom(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","expirationTimestamp":"soon"}})"),
              HasSubstr("expirationTimestamp \"soon\" is not an RFC 3339 time"));
  EXPECT_TRUE(handler_->requests().empty());
}

TEST_F(ExecCredentialsTest, APluginWithoutExpiryIsRunOnceForTheProcesssLife) {
  writeScript("forever.sh",
              "{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"forever\"}}");
  handler_->accept({"forever"});
  ExecConfig config = *kubeconfigWithExec("./forever.sh").exec;
  auto source = std::make_shared<ExecCredentials>(config, ExecClusterInfo{}, time_);
  EXPECT_EQ(source->current().bearerToken, "forever");
  // Replaced by a plugin that would fail: it is not run again however long the process lives.
  writeScript("forever.sh", "", 1);
  time_->advance(std::chrono::hours(24 * 30));
  EXPECT_EQ(source->current().bearerToken, "forever");
  EXPECT_TRUE(source->rejected(source->current()));
  EXPECT_THROW(source->current(), CredentialError) << "after a 401 it runs again";
}

TEST_F(ExecCredentialsTest, APluginThatHangsIsKilledAtItsTimeout) {
  std::ofstream(dir_ / "hang.sh") << "#!/bin/bash\nexec sleep 30\n";
  std::filesystem::permissions(dir_ / "hang.sh", std::filesystem::perms::owner_all);
  ExecConfig config = *kubeconfigWithExec("./hang.sh").exec;
  ExecOptions options;
  options.timeout = std::chrono::milliseconds(200);
  ExecCredentials source(config, ExecClusterInfo{}, time_, {}, options);
  try {
    source.current();
    ADD_FAILURE() << "a hanging plugin gave a credential";
  } catch (const CredentialError& error) {
    EXPECT_THAT(error.what(), HasSubstr("did not finish within 200ms and was killed"));
  }
}

// client-go's isInteractive, for each mode with and without a terminal on stdin.
TEST(ExecInteractiveMode, IsDecidedAsClientGoDecidesIt) {
  using Mode = ExecConfig::InteractiveMode;
  std::string why;
  EXPECT_EQ(interactive(Mode::Never, false, why), false);
  EXPECT_EQ(interactive(Mode::Never, true, why), false);
  EXPECT_EQ(interactive(Mode::IfAvailable, false, why), false);
  EXPECT_EQ(interactive(Mode::IfAvailable, true, why), true);
  EXPECT_EQ(interactive(Mode::Always, true, why), true);
  EXPECT_TRUE(why.empty());
  EXPECT_EQ(interactive(Mode::Always, false, why), std::nullopt);
  EXPECT_EQ(why, "standard input is not a terminal");
}

// Each mode run, with fedhpa's stdin a file that stands for the terminal (whether it "is" one is
// injected): the plugin reads its stdin and saves KUBERNETES_EXEC_INFO. It gets fedhpa's stdin
// and spec.interactive true only when it runs interactively; Always without a terminal is
// client-go's error, and the plugin does not run.
TEST_F(ExecCredentialsTest, APluginRunsInteractivelyOnlyWhereItsModeAndATerminalAllow) {
  const auto path = dir_ / "reader.sh";
  std::ofstream(path) << "#!/bin/bash\n"
                         "runs=$(( $(cat \"$RUNS_DIR/runs\" 2>/dev/null || echo 0) + 1 ))\n"
                         "echo $runs > \"$RUNS_DIR/runs\"\n"
                         "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$RUNS_DIR/exec-info-$runs\"\n"
                         "head -n 1 > \"$RUNS_DIR/stdin-$runs\"\n"
                         "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"t\"}}'\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  const ExecConfig base = *kubeconfigWithExec("./reader.sh").exec;
  std::ofstream(dir_ / "typed") << "a line the person typed\n";
  const int typed = ::open((dir_ / "typed").c_str(), O_RDONLY);
  ASSERT_GE(typed, 0);
  const int savedStdin = ::dup(STDIN_FILENO);
  ASSERT_GE(savedStdin, 0);
  ASSERT_EQ(::dup2(typed, STDIN_FILENO), STDIN_FILENO);

  struct Case {
    ExecConfig::InteractiveMode mode;
    bool terminal;
    bool interactive;
  };
  using Mode = ExecConfig::InteractiveMode;
  int run = 0;
  for (const Case& c : {Case{Mode::Never, true, false}, Case{Mode::IfAvailable, false, false}, Case{Mode::IfAvailable, true, true},
                        Case{Mode::Always, true, true}}) {
    SCOPED_TRACE(::testing::Message() << "mode " << static_cast<int>(c.mode) << ", terminal " << c.terminal);
    ::lseek(STDIN_FILENO, 0, SEEK_SET);
    ExecConfig config = base;
    config.interactiveMode = c.mode;
    ExecOptions options;
    options.stdinIsTerminal = [terminal = c.terminal] { return terminal; };
    ExecCredentials source(config, ExecClusterInfo{}, time_, {}, options);
    EXPECT_EQ(source.current().bearerToken, "t");
    ASSERT_EQ(runs(), ++run);
    EXPECT_EQ(execInfoOfRun(run)["spec"]["interactive"], c.interactive);
    std::ifstream stdinOfRun(dir_ / ("stdin-" + std::to_string(run)));
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(stdinOfRun), {}), c.interactive ? "a line the person typed\n" : "");
  }
  ExecConfig always = base;
  always.interactiveMode = Mode::Always;
  ExecOptions noTerminal;
  noTerminal.stdinIsTerminal = [] { return false; };
  ExecCredentials refused(always, ExecClusterInfo{}, time_, {}, noTerminal);
  try {
    refused.current();
    ADD_FAILURE() << "an Always plugin ran without a terminal";
  } catch (const CredentialError& error) {
    EXPECT_STREQ(error.what(), "getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal");
  }
  EXPECT_EQ(runs(), run) << "not run";

  ::dup2(savedStdin, STDIN_FILENO);
  ::close(savedStdin);
  ::close(typed);
}

// A v1beta1 plugin (how EKS's aws eks get-token and GKE's gke-gcloud-auth-plugin are configured),
// with no interactiveMode (v1beta1's default, IfAvailable) and no terminal: its credential is used,
// it runs once, and it is told the v1beta1 ExecCredential with interactive false.
TEST_F(ExecCredentialsTest, AV1beta1PluginWithoutInteractiveModeRunsToAWorkingCredential) {
  writePlugin("plugin.sh", kExecApiV1beta1);
  std::ofstream(dir_ / "config") << "current-context: member\n"
                                    "contexts: [{name: member, context: {cluster: member, user: eks}}]\n"
                                    "clusters: [{name: member, cluster: {server: 'http://127.0.0.1:"
                                 << port_
                                 << "'}}]\n"
                                    "users:\n"
                                    "- name: eks\n"
                                    "  user:\n"
                                    "    exec:\n"
                                    "      apiVersion: client.authentication.k8s.io/v1beta1\n"
                                    "      command: ./plugin.sh\n"
                                    "      env: [{name: RUNS_DIR, value: '"
                                 << dir_.string() << "'}]\n";
  expireIn(std::chrono::minutes(10));
  RestConfig config = loadKubeconfig({dir_ / "config"}).resolve();
  ASSERT_TRUE(config.exec);
  EXPECT_EQ(config.exec->interactiveMode, ExecConfig::InteractiveMode::IfAvailable);
  ExecOptions noTerminal;
  noTerminal.stdinIsTerminal = [] { return false; };
  config.credentials = std::make_shared<ExecCredentials>(*config.exec, config.execClusterInfo, time_, Credential{}, noTerminal);
  handler_->accept({"token-1"});
  RestClient client(config, options());
  EXPECT_EQ(client.get(kConfigMaps, "default", "c")["kind"], "ConfigMap");
  client.get(kConfigMaps, "default", "c");
  EXPECT_EQ(runs(), 1);
  EXPECT_EQ(execInfoOfRun(1), nlohmann::json::parse(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
                                                   R"("spec":{"interactive":false}})"));
}

TEST_F(ExecCredentialsTest, AClientCertificateFromThePluginIsUsed) {
  writeScript("cert.sh",
              R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"CERT PEM","clientKeyData":"KEY PEM"}})");
  ExecCredentials source(*kubeconfigWithExec("./cert.sh").exec, ExecClusterInfo{}, time_);
  const Credential credential = source.current();
  EXPECT_EQ(credential.clientCertPem, "CERT PEM");
  EXPECT_EQ(credential.clientKeyPem, "KEY PEM");
  EXPECT_EQ(credential.bearerToken, "");
}

TEST_F(ExecCredentialsTest, AnInlineTokenWinsOverThePluginAsInClientGo) {
  writePlugin("plugin.sh");
  RestConfig config = kubeconfigWithExec("./plugin.sh");
  config.bearerToken = "inline";
  handler_->accept({"inline"});
  RestClient(config, options()).get(kConfigMaps, "default", "c");
  EXPECT_EQ(runs(), 0);
}

}  // namespace
}  // namespace fedhpa::clusters
