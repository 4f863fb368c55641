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

}  // namespace
}  // namespace fedhpa::clusters
