// The proxy from the environment as Go's http.ProxyFromEnvironment picks it for client-go: which
// variable for which scheme, a value without a scheme, loopback never proxied, and NO_PROXY's
// forms (the cases of golang.org/x/net/http/httpproxy's tests that a kube API server URL can meet).
#include "clusters/client/proxy_environment.h"

#include <gtest/gtest.h>

#include <map>

namespace fedhpa::clusters {
namespace {

ProxyEnvironment behind(const std::string& noProxy) {
  ProxyEnvironment environment;
  environment.httpsProxy = "http://proxy.corp:3128";
  environment.httpProxy = "http://plain-proxy.corp:8080";
  environment.noProxy = noProxy;
  return environment;
}

TEST(ProxyEnvironment, ReadsUpperCaseFirstThenLowerCaseAndSkipsEmptyValues) {
  const std::map<std::string, std::string> variables = {
      {"HTTPS_PROXY", ""}, {"https_proxy", "http://lower:1"}, {"HTTP_PROXY", "http://upper:2"}, {"http_proxy", "http://lower:2"},
      {"no_proxy", ".internal"}};
  const auto environment = ProxyEnvironment::read([&](const std::string& name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    return it == variables.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  EXPECT_EQ(environment.httpsProxy, "http://lower:1");
  EXPECT_EQ(environment.httpProxy, "http://upper:2");
  EXPECT_EQ(environment.noProxy, ".internal");
  EXPECT_FALSE(environment.cgi);
}

TEST(ProxyEnvironment, TheServersSchemeChoosesTheVariable) {
  const auto environment = behind("");
  EXPECT_EQ(proxyFor("https://api.member1.example:6443", environment), "http://proxy.corp:3128");
  EXPECT_EQ(proxyFor("http://api.member1.example:8080", environment), "http://plain-proxy.corp:8080");
  ProxyEnvironment httpsOnly;
  httpsOnly.httpsProxy = "http://proxy.corp:3128";
  EXPECT_EQ(proxyFor("http://api.member1.example", httpsOnly), "") << "HTTPS_PROXY is not used for http servers";
  ProxyEnvironment cgi = behind("");
  cgi.cgi = true;
  EXPECT_EQ(proxyFor("http://api.member1.example", cgi), "") << "HTTP_PROXY is not trusted under CGI";
  EXPECT_EQ(proxyFor("https://api.member1.example", cgi), "http://proxy.corp:3128");
}

TEST(ProxyEnvironment, AValueWithoutASchemeIsHttp) {
  ProxyEnvironment environment;
  environment.httpsProxy = "proxy.corp:3128";
  EXPECT_EQ(proxyFor("https://10.0.0.1:6443", environment), "http://proxy.corp:3128");
  environment.httpsProxy = "socks5://proxy.corp:1080";
  EXPECT_EQ(proxyFor("https://10.0.0.1:6443", environment), "socks5://proxy.corp:1080") << "kept as it is: RestClient refuses it";
}

TEST(ProxyEnvironment, LocalhostAndLoopbackAreNeverProxied) {
  const auto environment = behind("");
  EXPECT_EQ(proxyFor("https://localhost:6443", environment), "");
  EXPECT_EQ(proxyFor("https://127.0.0.1:6443", environment), "");
  EXPECT_EQ(proxyFor("https://127.8.9.10", environment), "");
  EXPECT_EQ(proxyFor("https://[::1]:6443", environment), "");
  EXPECT_EQ(proxyFor("https://10.0.0.1:6443", environment), "http://proxy.corp:3128");
}

TEST(ProxyEnvironment, NoProxyMatchesAsGoMatchesIt) {
  struct Case {
    std::string noProxy, server;
    bool direct;
  };
  for (const Case& c : {
           Case{"*", "https://anything.example", true},
           Case{"", "https://anything.example", false},
           // A domain: itself and its subdomains; a leading dot or "*.": its subdomains only.
           Case{"example.com", "https://example.com", true},
           Case{"example.com", "https://api.example.com:6443", true},
           Case{"example.com", "https://notexample.com", false},
           Case{".example.com", "https://api.example.com", true},
           Case{".example.com", "https://example.com", false},
           Case{"*.example.com", "https://api.example.com", true},
           Case{"*.example.com", "https://example.com", false},
           Case{"EXAMPLE.com", "https://Api.Example.COM", true},
           // With a port: that port only, 443 or 80 when the URL has none.
           Case{"example.com:6443", "https://api.example.com:6443", true},
           Case{"example.com:6443", "https://api.example.com:443", false},
           Case{"example.com:443", "https://api.example.com", true},
           Case{"example.com:80", "http://api.example.com", true},
           // IP addresses and CIDR ranges, for servers given by address.
           Case{"10.0.0.1", "https://10.0.0.1:6443", true},
           Case{"10.0.0.1", "https://10.0.0.2:6443", false},
           Case{"10.0.0.1:6443", "https://10.0.0.1:6443", true},
           Case{"10.0.0.1:6443", "https://10.0.0.1:443", false},
           Case{"10.0.0.0/8", "https://10.200.3.4:6443", true},
           Case{"10.0.0.0/8", "https://11.0.0.1:6443", false},
           Case{"192.168.1.0/24", "https://192.168.1.77", true},
           Case{"fd00::/8", "https://[fd00::10]:6443", true},
           Case{"fd00::/8", "https://[fe80::1]:6443", false},
           Case{"10.0.0.0/8", "https://ten.example", false},
           // A list: spaces and empty entries are ignored.
           Case{" internal.corp , ,10.0.0.0/8", "https://api.internal.corp", true},
           Case{" internal.corp , ,10.0.0.0/8", "https://10.1.1.1", true},
           Case{" internal.corp , ,10.0.0.0/8", "https://eks.amazonaws.com", false},
       }) {
    EXPECT_EQ(proxyFor(c.server, behind(c.noProxy)), c.direct ? "" : "http://proxy.corp:3128")
        << "NO_PROXY=" << c.noProxy << " server " << c.server;
  }
}

}  // namespace
}  // namespace fedhpa::clusters
