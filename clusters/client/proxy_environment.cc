#include "clusters/client/proxy_environment.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace fedhpa::clusters {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") + 1 - begin);
}

// An IPv4 or IPv6 address as 16 bytes (IPv4 mapped, as Go's net.IP holds it); nullopt when not one.
std::optional<std::array<unsigned char, 16>> parseIp(std::string text) {
  if (text.size() > 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  std::array<unsigned char, 16> out{};
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4, 4);
    return out;
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    std::memcpy(out.data(), &v6, 16);
    return out;
  }
  return std::nullopt;
}

bool isV4(const std::array<unsigned char, 16>& ip) {
  static const std::array<unsigned char, 12> prefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::equal(prefix.begin(), prefix.end(), ip.begin());
}

bool isLoopback(const std::array<unsigned char, 16>& ip) {
  if (isV4(ip)) return ip[12] == 127;
  static const std::array<unsigned char, 16> v6 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return ip == v6;
}

// addr/bits, the bits counted in the address's own family.
bool inCidr(const std::array<unsigned char, 16>& ip, const std::string& cidr) {
  const auto slash = cidr.find('/');
  const auto network = parseIp(cidr.substr(0, slash));
  if (!network || isV4(*network) != isV4(ip)) return false;
  char* end = nullptr;
  const long bits = std::strtol(cidr.c_str() + slash + 1, &end, 10);
  const long maxBits = isV4(*network) ? 32 : 128;
  if (*end != '\0' || bits < 0 || bits > maxBits) return false;
  long prefix = bits + (isV4(*network) ? 96 : 0);
  for (std::size_t i = 0; i < 16 && prefix > 0; ++i, prefix -= 8) {
    const unsigned char mask = prefix >= 8 ? 0xff : static_cast<unsigned char>(0xff << (8 - prefix));
    if ((ip[i] & mask) != ((*network)[i] & mask)) return false;
  }
  return true;
}

struct Target {
  std::string scheme, host, port;  // host lower-case, without brackets
};

std::optional<Target> parseServer(const std::string& server) {
  const auto colon = server.find("://");
  if (colon == std::string::npos) return std::nullopt;
  Target out;
  out.scheme = lower(server.substr(0, colon));
  std::string authority = server.substr(colon + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = authority.substr(close + 2);
  } else {
    const auto portColon = authority.rfind(':');
    out.host = authority.substr(0, portColon);
    if (portColon != std::string::npos) out.port = authority.substr(portColon + 1);
  }
  out.host = lower(out.host);
  if (out.port.empty()) out.port = out.scheme == "https" ? "443" : "80";
  return out;
}

// httpproxy's useProxy: false when NO_PROXY says the target is reached directly.
bool noProxyMatches(const std::string& noProxy, const Target& target) {
  const auto ip = parseIp(target.host);
  std::string::size_type start = 0;
  while (start <= noProxy.size()) {
    const auto comma = noProxy.find(',', start);
    std::string entry = lower(trim(noProxy.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    start = comma == std::string::npos ? noProxy.size() + 1 : comma + 1;
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (entry.find('/') != std::string::npos) {
      if (ip && inCidr(*ip, entry)) return true;
      continue;
    }
    if (const auto entryIp = parseIp(entry)) {
      if (ip && *ip == *entryIp) return true;
      continue;
    }
    // host:port (an IPv6 address with a port is [addr]:port).
    std::string host = entry, port;
    if (!entry.empty() && entry.front() == '[') {
      const auto close = entry.find(']');
      if (close == std::string::npos) continue;
      host = entry.substr(1, close - 1);
      if (close + 1 < entry.size() && entry[close + 1] == ':') port = entry.substr(close + 2);
    } else if (const auto colon = entry.rfind(':'); colon != std::string::npos) {
      host = entry.substr(0, colon);
      port = entry.substr(colon + 1);
    }
    if (host.empty()) continue;
    if (const auto hostIp = parseIp(host)) {
      if (ip && *ip == *hostIp && (port.empty() || port == target.port)) return true;
      continue;
    }
    if (host.rfind("*.", 0) == 0) host = host.substr(1);
    const bool matchHost = host.front() != '.';
    if (matchHost) host = "." + host;
    const bool suffix = target.host.size() >= host.size() && target.host.compare(target.host.size() - host.size(), host.size(), host) == 0;
    if ((suffix || (matchHost && target.host == host.substr(1))) && (port.empty() || port == target.port)) return true;
  }
  return false;
}

}  // namespace

ProxyEnvironment ProxyEnvironment::read(const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  const auto get = [&lookup](const std::string& name) -> std::optional<std::string> {
    if (lookup) return lookup(name);
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  // Go's getEnvAny: the first of the names that is set and not empty.
  const auto any = [&get](const std::string& upper, const std::string& lowerName) {
    for (const auto& name : {upper, lowerName})
      if (const auto value = get(name); value && !value->empty()) return *value;
    return std::string();
  };
  ProxyEnvironment out;
  out.httpsProxy = any("HTTPS_PROXY", "https_proxy");
  out.httpProxy = any("HTTP_PROXY", "http_proxy");
  out.noProxy = any("NO_PROXY", "no_proxy");
  out.cgi = get("REQUEST_METHOD").has_value();
  return out;
}

std::string proxyFor(const std::string& server, const ProxyEnvironment& environment) {
  const auto target = parseServer(server);
  if (!target) return "";
  std::string proxy;
  if (target->scheme == "https") proxy = environment.httpsProxy;
  else if (target->scheme == "http" && !environment.cgi) proxy = environment.httpProxy;
  if (proxy.empty()) return "";
  if (target->host == "localhost") return "";
  if (const auto ip = parseIp(target->host); ip && isLoopback(*ip)) return "";
  if (noProxyMatches(environment.noProxy, *target)) return "";
  if (proxy.find("://") == std::string::npos) proxy = "http://" + proxy;
  return proxy;
}

}  // namespace fedhpa::clusters
