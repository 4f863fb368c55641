// Kubeconfig files as kubectl users write them: every credential form, KUBECONFIG merging, and
// errors that name the file and the field.
#include "clusters/client/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fedhpa::clusters {
namespace {

using ::testing::HasSubstr;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fedhpa-kubeconfig-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  std::string errorOf(const std::function<void()>& action) {
    try {
      action();
    } catch (const KubeconfigError& error) {
      return error.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(KubeconfigTest, EveryCredentialForm) {
  write("ca.crt", "CA PEM");
  write("token", "file-token\n");
  const auto file = write("config", R"(
apiVersion: v1
kind: Config
current-context: member1
clusters:
- name: c1
  cluster: {server: "https://10.0.0.1:6443", certificate-authority: ca.crt}
- name: c2
  cluster: {server: "https://10.0.0.2:6443", certificate-authority-data: Q0EgREFUQQ==, insecure-skip-tls-verify: true}
users:
- name: certs
  user: {client-certificate-data: Q0VSVA==, client-key-data: S0VZ}
- name: token
  user: {token: inline-token}
- name: tokenfile
  user: {tokenFile: token}
contexts:
- name: member1
  context: {cluster: c1, user: certs, namespace: apps}
- name: member2
  context: {cluster: c2, user: token}
- name: member3
  context: {cluster: c1, user: tokenfile}
)");
  const Kubeconfig config = loadKubeconfig({file});
  const RestConfig one = config.resolve();
  EXPECT_EQ(one.server, "https://10.0.0.1:6443");
  EXPECT_EQ(one.caPem, "CA PEM") << "a relative path is read next to the kubeconfig";
  EXPECT_EQ(one.clientCertPem, "CERT");
  EXPECT_EQ(one.clientKeyPem, "KEY");
  EXPECT_EQ(one.namespaceName, "apps");
  const RestConfig two = config.resolve("member2");
  EXPECT_EQ(two.caPem, "CA DATA");
  EXPECT_TRUE(two.insecureSkipTlsVerify);
  EXPECT_EQ(two.bearerToken, "inline-token");
  EXPECT_EQ(two.namespaceName, "default");
  EXPECT_EQ(config.resolve("member3").bearerToken, "file-token");
}

TEST_F(KubeconfigTest, FilesMergeLikeKubeconfigAColonB) {
  const auto first = write("a", R"(
current-context: from-a
clusters: [{name: shared, cluster: {server: "https://a"}}]
contexts: [{name: from-a, context: {cluster: shared}}]
)");
  const auto second = write("b", R"(
current-context: from-b
clusters: [{name: shared, cluster: {server: "https://b"}}, {name: only-b, cluster: {server: "https://only-b"}}]
contexts: [{name: from-b, context: {cluster: only-b}}]
)");
  const Kubeconfig config = loadKubeconfig({first, second});
  EXPECT_EQ(config.currentContext, "from-a");
  EXPECT_EQ(config.resolve().server, "https://a") << "the first file to name an entry wins";
  EXPECT_EQ(config.resolve("from-b").server, "https://only-b");
}

TEST_F(KubeconfigTest, ErrorsNameTheFileAndTheField) {
  const auto noServer = write("no-server", "clusters: [{name: c, cluster: {}}]\n");
  EXPECT_THAT(errorOf([&] { loadKubeconfig({noServer}); }), HasSubstr("no-server: clusters[0] (c): cluster.server is missing"));
  const auto halfCert = write("half", "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n");
  EXPECT_THAT(errorOf([&] { loadKubeconfig({halfCert}); }), HasSubstr("client-certificate and client-key go together"));
  const auto missingCa = write("missing-ca", "clusters: [{name: c, cluster: {server: s, certificate-authority: nope.crt}}]\n");
  EXPECT_THAT(errorOf([&] { loadKubeconfig({missingCa}); }), HasSubstr("certificate-authority: cannot read"));
  const auto badYaml = write("bad", "clusters: [unclosed\n");
  EXPECT_THAT(errorOf([&] { loadKubeconfig({badYaml}); }), HasSubstr("bad:"));
  EXPECT_THAT(errorOf([&] { loadKubeconfig({dir_ / "absent"}); }), HasSubstr("cannot read"));
  const auto dangling = write("dangling", "contexts: [{name: x, context: {cluster: nowhere}}]\ncurrent-context: x\n");
  EXPECT_THAT(errorOf([&] { loadKubeconfig({dangling}).resolve(); }), HasSubstr("cluster \"nowhere\" not found"));
  EXPECT_THAT(errorOf([&] { loadKubeconfig({dangling}).resolve("other"); }), HasSubstr("context \"other\" not found"));
  EXPECT_THAT(errorOf([&] { parseKubeconfig("clusters: [{name: c, cluster: {server: s, certificate-authority: rel.crt}}]", "secret"); }),
              HasSubstr("a relative path needs a kubeconfig file"));
  EXPECT_THAT(errorOf([&] { parseKubeconfig("clusters: [{name: c, cluster: {server: [s]}}]", "secret"); }),
              HasSubstr("clusters[0].cluster.server: want a string"));
}

// A member's kubeconfig comes from a Secret: whoever may write it must not be able to hang or
// exhaust the controller that reads it.
TEST_F(KubeconfigTest, HostileYamlFromASecretIsAnErrorNotAHang) {
  // A malformed flow mapping on which yaml-cpp 0.7 (the parser before libyaml) looped for ever.
  EXPECT_THAT(errorOf([&] { parseKubeconfig(R"({"clusters":[{"name":"c","cluster":{"server":"s"}}],"{ind":"'x","users":[{"na)", "secret"); }),
              HasSubstr("secret:"));
  std::string laughs = "a0: &a0 [lol]\n";
  for (int level = 1; level < 12; ++level) {
    laughs += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) laughs += (i ? ",*a" : "*a") + std::to_string(level - 1);
    laughs += "]\n";
  }
  EXPECT_THAT(errorOf([&] { parseKubeconfig(laughs, "secret"); }), HasSubstr("expands"));
  // Found by kubeconfig_fuzz: a number beyond a double's range ended the process.
  EXPECT_THAT(errorOf([&] { parseKubeconfig("666666666E66666666666 ", "secret"); }), HasSubstr("not a kubeconfig"));
  EXPECT_EQ(parseKubeconfig("current-context: 1e999\n", "secret").currentContext, "1e999");
}

TEST_F(KubeconfigTest, ExecUsersAsClientGoReadsThem) {
  const auto file = write("config", R"(
current-context: eks
clusters:
- name: eks
  cluster:
    server: https://eks.example:443
    certificate-authority-data: Q0E=
    tls-server-name: api.eks.internal
    proxy-url: http://user:pass@proxy.corp:3128
    extensions:
    - {name: other, extension: {x: 1}}
    - {name: client.authentication.k8s.io/exec, extension: {audience: sts}}
users:
- name: aws
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token, --cluster-name, prod]
      env: [{name: AWS_PROFILE, value: prod}]
      installHint: install the AWS CLI
      provideClusterInfo: true
- name: local
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: bin/plugin, interactiveMode: Never}
contexts:
- {name: eks, context: {cluster: eks, user: aws}}
- {name: local, context: {cluster: eks, user: local}}
)");
  const Kubeconfig config = loadKubeconfig({file});
  const RestConfig eks = config.resolve();
  EXPECT_EQ(eks.tlsServerName, "api.eks.internal");
  EXPECT_EQ(eks.proxyUrl, "http://user:pass@proxy.corp:3128");
  ASSERT_TRUE(eks.exec);
  EXPECT_EQ(eks.exec->command, "aws") << "a bare name is looked up on PATH when run";
  EXPECT_EQ(eks.exec->args, (std::vector<std::string>{"eks", "get-token", "--cluster-name", "prod"}));
  EXPECT_EQ(eks.exec->env, (std::vector<std::pair<std::string, std::string>>{{"AWS_PROFILE", "prod"}}));
  EXPECT_EQ(eks.exec->installHint, "install the AWS CLI");
  EXPECT_EQ(eks.exec->interactiveMode, ExecConfig::InteractiveMode::IfAvailable) << "v1beta1's default";
  EXPECT_TRUE(eks.exec->provideClusterInfo);
  EXPECT_EQ(eks.execClusterInfo.server, "https://eks.example:443");
  EXPECT_EQ(eks.execClusterInfo.caPem, "CA");
  EXPECT_EQ(eks.execClusterInfo.configJson, std::optional<std::string>(R"({"audience":"sts"})"));
  EXPECT_EQ(eks.bearerToken, "") << "no credential until the plugin runs";
  const RestConfig local = config.resolve("local");
  EXPECT_EQ(local.exec->command, (dir_ / "bin/plugin").string()) << "a path is relative to the kubeconfig's directory";
  EXPECT_EQ(local.exec->interactiveMode, ExecConfig::InteractiveMode::Never);
}

TEST_F(KubeconfigTest, ExecFieldsAreCheckedAsClientGoChecksThem) {
  auto errorFor = [&](const std::string& exec) {
    return errorOf([&] { loadKubeconfig({write("config", "users: [{name: u, user: {exec: " + exec + "}}]\n")}); });
  };
  EXPECT_THAT(errorFor("{apiVersion: client.authentication.k8s.io/v1alpha1, command: p}"),
              HasSubstr("exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\""));
  EXPECT_THAT(errorFor("{command: p}"), HasSubstr("invalid apiVersion \"\""));
  EXPECT_THAT(errorFor("{apiVersion: client.authentication.k8s.io/v1, command: p}"),
              HasSubstr("interactiveMode must be specified for u to use exec authentication plugin"));
  EXPECT_THAT(errorFor("{apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}"),
              HasSubstr("command must be specified for u to use exec authentication plugin"));
  EXPECT_THAT(errorFor("{apiVersion: client.authentication.k8s.io/v1, command: p, interactiveMode: Sometimes}"),
              HasSubstr("invalid interactiveMode \"Sometimes\""));
  EXPECT_THAT(errorFor("{apiVersion: client.authentication.k8s.io/v1, command: p, interactiveMode: Never, env: [{value: x}]}"),
              HasSubstr("env[0]: env variable name must be specified"));
  EXPECT_THAT(errorFor("{apiVersion: client.authentication.k8s.io/v1, command: p, interactiveMode: Never, args: x}"),
              HasSubstr("exec.args: want a list"));
}

TEST_F(KubeconfigTest, OnlyHttpProxiesAreSupported) {
  auto errorFor = [&](const std::string& proxy) {
    return errorOf([&] { loadKubeconfig({write("config", "clusters: [{name: c, cluster: {server: s, proxy-url: '" + proxy + "'}}]\n")}); });
  };
  EXPECT_EQ(errorFor("http://proxy:3128"), "");
  EXPECT_THAT(errorFor("socks5://proxy:1080"), HasSubstr("clusters[0].cluster.proxy-url: socks5 proxies are not supported"));
  EXPECT_THAT(errorFor("https://proxy:3128"), HasSubstr("https proxies are not supported"));
  EXPECT_THAT(errorFor("proxy:3128"), HasSubstr("is not an http:// URL"));
}

// Whoever may write a member's Secret must not make the controller run a command or send a file
// of its own (its service account's token, say) to a server of their choosing.
TEST_F(KubeconfigTest, ASecretsKubeconfigMayNotRunPluginsOrReadTokenFiles) {
  EXPECT_THAT(errorOf([&] {
                parseKubeconfig("users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}}}]", "secret");
              }),
              HasSubstr("users[0].user.exec: not allowed in a kubeconfig that is not a file"));
  EXPECT_THAT(errorOf([&] { parseKubeconfig("users: [{name: u, user: {tokenFile: /var/run/secrets/token}}]", "secret"); }),
              HasSubstr("users[0].user.tokenFile: not allowed"));
}

TEST_F(KubeconfigTest, ATokenFileIsKeptToBeReadAgain) {
  write("token", "  first\n");
  const RestConfig config = loadKubeconfig({write("config", R"(
current-context: c
clusters: [{name: c, cluster: {server: s}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
)")}).resolve();
  EXPECT_EQ(config.bearerToken, "first") << "read at load, as clientcmd does, so a missing file is an error at once";
  EXPECT_EQ(config.tokenFile, (dir_ / "token").string());
}

}  // namespace
}  // namespace fedhpa::clusters
