// The proxy a client uses when its kubeconfig names none: HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as
// Go's http.ProxyFromEnvironment (golang.org/x/net/http/httpproxy) reads them for client-go. The
// kubeconfig's proxy-url, when set, wins and the environment is not read.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace fedhpa::clusters {

struct ProxyEnvironment {
  std::string httpsProxy;  // HTTPS_PROXY, else https_proxy
  std::string httpProxy;   // HTTP_PROXY, else http_proxy
  std::string noProxy;     // NO_PROXY, else no_proxy
  bool cgi = false;        // REQUEST_METHOD is set: HTTP_PROXY is not trusted (httpoxy)

  // Read through `lookup` (a variable's value, nullopt when unset): the process's environment by default.
  static ProxyEnvironment read(const std::function<std::optional<std::string>(const std::string&)>& lookup = {});
};

// The proxy URL for requests to `server` (an http:// or https:// URL), or "" to connect directly:
// HTTPS_PROXY for an https server, HTTP_PROXY for an http one; a value without a scheme is taken as
// http://. Never for localhost or a loopback address, nor for a host NO_PROXY matches: "*" (every
// host), an IP address, a CIDR range (10.0.0.0/8), or a domain ("example.com" is the domain and its
// subdomains, ".example.com" and "*.example.com" only its subdomains), each optionally with
// ":port" (then only that port: the server's, or 443 / 80 when its URL has none).
std::string proxyFor(const std::string& server, const ProxyEnvironment& environment);

}  // namespace fedhpa::clusters
