// A seeded, time-bounded mutation campaign against the real API server over its socket, for both
// resource sets (`fedhpa apiserver`'s and `fedhpa member-sim`'s). It starts from valid requests
// for every served resource and mutates them as an attacker would: path bytes, bytes that are not
// UTF-8 anywhere, deep nesting, JSON values of the wrong type or shape, patch types, protobuf
// bytes, query parameters. Every answer must come (the process is alive), be below 500, and every
// error must be a Status in valid JSON.
//
// FEDHPA_FUZZ_SECONDS (default 12 per resource set) and FEDHPA_FUZZ_SEED (default 11) change the
// campaign; a failure prints the request that caused it, escaped, and the seed.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <chrono>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <mutex>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "test/federation/apiserver/http_test_client.h"
#include "test/federation/apiserver/test_api_server.h"

namespace fedhpa::apiserver {
namespace {

using nlohmann::json;

struct FuzzRequest {
  std::string method;
  std::string target;  // path and query, sent as they are (raw bytes included)
  std::string contentType;
  std::string body;
};

std::string escaped(const std::string& text, std::size_t max = 400) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && out.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (text.size() > max) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string describe(const FuzzRequest& request) {
  return request.method + " " + escaped(request.target) + " [" + request.contentType + "] " + escaped(request.body);
}

// The request in flight, for the terminate handler: a crash prints what caused it.
std::mutex lastMutex;
std::string lastRequest;

std::terminate_handler previousTerminate = nullptr;

[[noreturn]] void reportLastRequest() {
  {
    std::lock_guard lock(lastMutex);
    std::cerr << "terminated while serving: " << lastRequest << std::endl;
  }
  if (previousTerminate) previousTerminate();
  std::abort();
}

struct Reply {
  int status = 0;
  bool chunked = false;
  std::string body;
};

// One request per connection. A chunked 200 is a watch: its headers are enough.
Reply send(std::uint16_t port, const FuzzRequest& request) {
  boost::asio::ip::tcp::iostream stream("127.0.0.1", std::to_string(port));
  stream.expires_after(std::chrono::seconds(10));
  stream << request.method << " " << request.target << " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!request.contentType.empty()) stream << "Content-Type: " << request.contentType << "\r\n";
  stream << "Content-Length: " << request.body.size() << "\r\n\r\n" << request.body << std::flush;
  Reply reply;
  std::string line;
  if (!std::getline(stream, line) || line.size() < 12) return reply;
  reply.status = std::atoi(line.substr(9, 3).c_str());
  std::size_t length = 0;
  while (std::getline(stream, line) && line != "\r" && !line.empty()) {
    std::string lower;
    for (char c : line) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.rfind("content-length:", 0) == 0) length = std::strtoul(lower.c_str() + 15, nullptr, 10);
    if (lower.rfind("transfer-encoding:", 0) == 0 && lower.find("chunked") != std::string::npos) reply.chunked = true;
  }
  if (reply.chunked) return reply;
  reply.body.resize(length);
  stream.read(reply.body.data(), static_cast<std::streamsize>(length));
  reply.body.resize(static_cast<std::size_t>(stream.gcount()));
  return reply;
}

class Campaign {
 public:
  Campaign(std::uint64_t seed, bool withClusters) : random_(seed) {
    const json hpaSpec = {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
                          {"minReplicas", 1},
                          {"maxReplicas", 10},
                          {"metrics",
                           {{{"type", "Resource"},
                             {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}}}},
                          {"behavior", {{"scaleUp", {{"policies", {{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}}}}}}}}};
    const json meta = {{"name", "web"}, {"labels", {{"app", "web"}}}, {"annotations", {{"note", "x"}}}, {"finalizers", {"a.io/b"}}};
    addResource("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
                {{"apiVersion", "autoscaling/v2"}, {"kind", "HorizontalPodAutoscaler"}, {"metadata", meta}, {"spec", hpaSpec}},
                true);
    json v1Meta = meta;
    v1Meta["annotations"]["autoscaling.alpha.kubernetes.io/behavior"] = R"({"scaleDown":{"stabilizationWindowSeconds":60}})";
    v1Meta["annotations"]["autoscaling.alpha.kubernetes.io/metrics"] =
        R"([{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"1k"}}}])";
    addResource("/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers",
                {{"apiVersion", "autoscaling/v1"},
                 {"kind", "HorizontalPodAutoscaler"},
                 {"metadata", v1Meta},
                 {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}}, {"maxReplicas", 5},
                           {"targetCPUUtilizationPercentage", 50}}}},
                true);
    addResource("/apis/apps/v1/namespaces/default/deployments",
                {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", meta},
                 {"spec",
                  {{"replicas", 2},
                   {"selector", {{"matchLabels", {{"app", "web"}}}}},
                   {"strategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "25%"}}}}},
                   {"template",
                    {{"metadata", {{"labels", {{"app", "web"}}}}},
                     {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}, {"args", {"a", "b"}}}}}}}}}}}},
                true);
    addResource("/api/v1/namespaces/default/secrets",
                {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", meta}, {"data", {{"k", "dmFsdWU="}}},
                 {"stringData", {{"s", "t"}}}, {"type", "Opaque"}},
                true);
    addResource("/api/v1/namespaces/default/events",
                {{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", meta},
                 {"involvedObject", {{"kind", "HorizontalPodAutoscaler"}, {"name", "web"}, {"namespace", "default"}}},
                 {"reason", "Rebalanced"}, {"message", "m"}, {"type", "Normal"}, {"count", 1}},
                true);
    addResource("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
                {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}, {"metadata", meta},
                 {"spec", {{"holderIdentity", "h"}, {"leaseDurationSeconds", 15}, {"renewTime", "2025-01-01T00:00:00.000000Z"}}}},
                true);
    addResource("/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "web"}}}}, false);
    if (withClusters)
      addResource("/apis/federation/v1beta1/clusters",
                  {{"apiVersion", "federation/v1beta1"}, {"kind", "Cluster"}, {"metadata", meta},
                   {"spec", {{"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "http://a:1"}}}},
                             {"secretRef", {{"name", "web"}}}}}},
                  false);
    for (const char* path : {"/version", "/healthz", "/metrics", "/api", "/apis", "/api/v1", "/apis/autoscaling/v2",
                             "/openapi/v3", "/openapi/v3/apis/autoscaling/v2"})
      seeds_.push_back({"GET", path, "", ""});
  }

  FuzzRequest next() {
    FuzzRequest request = seeds_[pick(seeds_.size())];
    // A quarter go unmutated, so that objects exist for the mutated requests to reach.
    const int mutations = static_cast<int>(pick(4));
    for (int i = 0; i < mutations; ++i) mutate(request);
    return request;
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }
  bool chance(int percent) { return static_cast<int>(pick(100)) < percent; }

  void addResource(const std::string& collection, const json& object, bool protobufToo) {
    const std::string item = collection + "/web";
    const std::string body = object.dump();
    const std::string putBody = [&] {
      json put = object;
      put["metadata"]["resourceVersion"] = "1";
      return put.dump();
    }();
    seeds_.push_back({"POST", collection, "application/json", body});
    seeds_.push_back({"POST", collection + "?fieldValidation=Strict&dryRun=All", "application/json", body});
    seeds_.push_back({"PUT", item, "application/json", body});
    seeds_.push_back({"PUT", item, "application/json", putBody});
    seeds_.push_back({"GET", item, "", ""});
    seeds_.push_back({"GET", collection + "?labelSelector=app%3Dweb&limit=1", "", ""});
    seeds_.push_back({"GET", collection + "?fieldSelector=metadata.name%3Dweb&continue=", "", ""});
    seeds_.push_back({"GET", collection, "", ""});
    seeds_.push_back({"PATCH", item, "application/merge-patch+json", R"({"metadata":{"labels":{"x":"y"}}})"});
    seeds_.push_back({"PATCH", item, "application/strategic-merge-patch+json",
                      R"({"metadata":{"finalizers":["c.io/d"]},"spec":{"metrics":[{"type":"Pods","$patch":"delete"}]}})"});
    seeds_.push_back({"PATCH", item, "application/json-patch+json",
                      R"([{"op":"add","path":"/metadata/labels/z","value":"w"},{"op":"test","path":"/kind","value":"x"}])"});
    seeds_.push_back({"PATCH", item + "?fieldManager=fuzz", "application/apply-patch+yaml", body});
    seeds_.push_back({"PATCH", item + "?fieldManager=other&force=true", "application/apply-patch+yaml",
                      "metadata:\n  name: web\n  labels: {a: b}\n  finalizers: [c.io/d]\n"});
    seeds_.push_back({"PUT", item, "application/json",
                      R"({"metadata":{"name":"web","managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"k:{\"a\":1}":{".":{}}}}}]}})"});
    seeds_.push_back({"DELETE", item, "application/json", R"({"propagationPolicy":"Orphan","preconditions":{"uid":"u"}})"});
    seeds_.push_back({"DELETE", collection + "?labelSelector=app%3Dnone", "", ""});
    if (collection.find("deployments") != std::string::npos) {
      seeds_.push_back({"GET", item + "/scale", "", ""});
      seeds_.push_back({"PUT", item + "/scale", "application/json",
                        R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":3}})"});
      seeds_.push_back({"PATCH", item + "/scale", "application/merge-patch+json", R"({"spec":{"replicas":4}})"});
      seeds_.push_back({"PATCH", item + "/scale", "application/json-patch+json",
                        R"([{"op":"replace","path":"/spec/replicas","value":5}])"});
    }
    if (collection.find("horizontalpodautoscalers") != std::string::npos) {
      seeds_.push_back({"PUT", item + "/status", "application/json", body});
      seeds_.push_back({"PATCH", item + "/status", "application/merge-patch+json", R"({"status":{"currentReplicas":2}})"});
    }
    if (protobufToo && collection.find("autoscaling/v1") != std::string::npos) {
      // kubectl autoscale's body, as kubectl 1.32 sends it
      const std::string hex =
          "6b3873000a290a0e6175746f7363616c696e672f76311217486f72697a6f6e74616c506f644175746f7363616c6572124d"
          "0a1a0a0a7068702d61706163686512001a0022002a0032003800420012290a210a0a4465706c6f796d656e74120a7068702d"
          "6170616368651a07617070732f76311001180a20321a04180020001a002200";
      std::string bytes;
      for (std::size_t i = 0; i < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
      seeds_.push_back({"POST", collection, "application/vnd.kubernetes.protobuf", bytes});
    }
  }

  // Bytes that are not UTF-8, raw or percent-encoded.
  std::string badUtf8(bool percentEncoded) {
    static const std::vector<std::string> raw = {"\xff", "\xfe\xff", "\xc3\x28", "\xc0\xaf", "\xed\xa0\x80",
                                                 "\xf4\x90\x80\x80", "\xe2\x82", "\x80"};
    const std::string& bytes = raw[pick(raw.size())];
    if (!percentEncoded) return bytes;
    std::string out;
    for (const char c : bytes) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      out += hex;
    }
    return out;
  }

  std::string deepText() {
    static const std::size_t depths[] = {100000, 47000, 5000, 1000, 300};
    const std::size_t depth = depths[pick(std::size(depths))];
    if (chance(50)) return std::string(depth, '[') + std::string(depth, ']');
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) text += "{\"a\":";
    text += "1";
    text.append(depth, '}');
    return text;
  }

  std::string queryValue() {
    static const std::vector<std::string> values = {
        "",    "All",  "Strict", "Warn", "Ignore", "Orphan", "Foreground", "true", "1", "-1", "0", "abc", "99999999999999999999",
        "9223372036854775808", "1e3", "5.0", "app%3Dweb", "app+in+(a,b)", "!app", "metadata.name!%3Dx", "x%3D%3D%3D",
        "%00", "eyJydiI6MSwic3RhcnQiOiJ4In0", "Object", "None", "%0Ainjected_metric%201%0A"};
    if (chance(30)) return badUtf8(chance(70));
    std::string value = values[pick(values.size())];
    if (chance(10)) value += badUtf8(true);
    return value;
  }

  void mutate(FuzzRequest& request) {
    switch (pick(11)) {
      case 0: mutatePathBytes(request); break;
      case 1:
      case 2: addQuery(request); break;
      case 3:
      case 4:
      case 5: mutateJson(request); break;
      case 6: mutateBodyBytes(request); break;
      case 7: {  // the same body as another kind of patch, or another content type
        static const std::vector<std::string> types = {
            "application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json",
            "application/apply-patch+yaml", "application/json", "application/vnd.kubernetes.protobuf", "application/yaml", "text/plain; charset=\xff"};
        request.contentType = types[pick(types.size())];
        if (chance(50)) request.method = "PATCH";
        break;
      }
      case 8: {  // a whole deep body
        request.body = deepText();
        if (request.method == "GET") request.method = chance(50) ? "POST" : "PATCH";
        break;
      }
      case 9: {
        static const std::vector<std::string> methods = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "FOO"};
        request.method = methods[pick(methods.size())];
        break;
      }
      default: {  // a name or namespace that is not UTF-8 or not valid
        static const std::vector<std::string> names = {"/web", "/default", "/kube-system"};
        const std::string& from = names[pick(names.size())];
        const auto at = request.target.find(from);
        if (at == std::string::npos) break;
        std::string to = "/" + (chance(70) ? "w" + badUtf8(chance(50)) : std::string(chance(50) ? "UPPER" : "a..b"));
        request.target.replace(at, from.size(), to);
        if (chance(50)) {
          const auto name = request.body.find("\"web\"");
          if (name != std::string::npos) request.body.replace(name, 5, "\"w" + badUtf8(false) + "\"");
        }
        break;
      }
    }
  }

  void mutatePathBytes(FuzzRequest& request) {
    std::string path = request.target.substr(0, request.target.find('?'));
    const std::string query = request.target.substr(path.size());
    const std::size_t at = path.empty() ? 0 : pick(path.size() + 1);
    switch (pick(4)) {
      case 0: path.insert(at, badUtf8(chance(50))); break;
      case 1: path.insert(at, std::string(1, static_cast<char>(0x21 + pick(0x5e)))); break;
      case 2: path.insert(at, "/" + std::string(chance(50) ? "x%0Ainjected_metric_total%201%0A" : "watch")); break;
      default: path.insert(at, "%" + std::string(1, "0123456789ABCDEFG"[pick(17)]) + std::string(1, "0123456789ABCDEF"[pick(16)])); break;
    }
    request.target = path + query;
  }

  void addQuery(FuzzRequest& request) {
    static const std::vector<std::string> names = {
        "labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "resourceVersionMatch",
        "timeoutSeconds", "dryRun", "fieldValidation", "propagationPolicy", "includeObject", "fieldManager",
        "allowWatchBookmarks", "sendInitialEvents", "watch"};
    std::string name = names[pick(names.size())];
    if (chance(5)) name += badUtf8(chance(50));
    std::string value = queryValue();
    if (name == "watch") value = "true&timeoutSeconds=1";  // a watch that ends
    request.target += (request.target.find('?') == std::string::npos ? "?" : "&") + name + "=" + value;
  }

  // Replaces one value somewhere in the body's JSON with something hostile.
  void mutateJson(FuzzRequest& request) {
    // A body an earlier mutation made deep is only mutated as bytes: walking it would overflow our own stack.
    if (std::count(request.body.begin(), request.body.end(), '{') + std::count(request.body.begin(), request.body.end(), '[') > 200)
      return mutateBodyBytes(request);
    json body = json::parse(request.body, nullptr, false);
    if (body.is_discarded() || !body.is_structured()) {
      if (request.body.empty()) request.body = "{}";
      return mutateBodyBytes(request);
    }
    std::vector<json::json_pointer> pointers{json::json_pointer()};
    collect(body, json::json_pointer(), pointers);
    const json::json_pointer target = pointers[pick(pointers.size())];
    static const std::string kBadMarker = "@@BAD-UTF8@@", kDeepMarker = "@@DEEP@@";
    json replacement;
    switch (pick(14)) {
      case 0: replacement = nullptr; break;
      case 1: replacement = 2147483648LL; break;
      case 2: replacement = 5.0; break;
      case 3: replacement = -1; break;
      case 4: replacement = kBadMarker; break;
      case 5: replacement = kDeepMarker; break;
      case 6: replacement = json::array({1, 2, 3}); break;
      case 7: replacement = json::object({{"$patch", chance(50) ? "replace" : "delete"}}); break;
      case 8: replacement = std::string(1000, 'a') + "/" + std::string(300, 'b'); break;
      case 9: replacement = true; break;
      case 10: replacement = "a b c"; break;
      case 11: replacement = json::object({{"a b", "c"}, {"x/y/z", nullptr}, {"", 1}}); break;
      case 12: replacement = "9223372036854775807"; break;
      default: replacement = 1e300; break;
    }
    if (target.empty()) {
      body = replacement;
    } else {
      try {
        body[target] = replacement;
      } catch (const json::exception&) {
        return;
      }
    }
    std::string text = body.dump();
    for (std::size_t at; (at = text.find(kBadMarker)) != std::string::npos;)
      text.replace(at, kBadMarker.size(), "x" + badUtf8(false));
    for (std::size_t at; (at = text.find("\"" + kDeepMarker + "\"")) != std::string::npos;)
      text.replace(at, kDeepMarker.size() + 2, deepText());
    request.body = std::move(text);
  }

  void collect(const json& node, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
    if (node.is_object()) {
      for (const auto& [key, child] : node.items()) {
        out.push_back(at / key);
        collect(child, at / key, out);
      }
      if (chance(30)) out.push_back(at / "injected");
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) {
        out.push_back(at / i);
        collect(node[i], at / i, out);
      }
    }
  }

  void mutateBodyBytes(FuzzRequest& request) {
    std::string& body = request.body;
    const int edits = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < edits; ++i) {
      const std::size_t at = body.empty() ? 0 : pick(body.size() + 1);
      switch (pick(4)) {
        case 0:
          if (at < body.size()) body[at] = static_cast<char>(pick(256));
          break;
        case 1: body.insert(at, 1, static_cast<char>(pick(256))); break;
        case 2:
          if (at < body.size()) body.erase(at, 1 + pick(std::min<std::size_t>(8, body.size() - at)));
          break;
        default: body.insert(at, badUtf8(false)); break;
      }
    }
  }

  std::mt19937_64 random_;
  std::vector<FuzzRequest> seeds_;
};

int envInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}

using testing::ResourceSet;

class HostileInputFuzz : public ::testing::TestWithParam<ResourceSet> {};

TEST_P(HostileInputFuzz, NoRequestCrashesTheServerOrGetsA5xx) {
  const bool federation = GetParam() == ResourceSet::Federation;
  const testing::TestApiServer server(GetParam());
  const std::uint16_t port = server.port();

  static const std::terminate_handler previous = std::set_terminate(reportLastRequest);
  previousTerminate = previous;

  const auto seed = static_cast<std::uint64_t>(envInt("FEDHPA_FUZZ_SEED", 11)) + (federation ? 0 : 1);
  const auto budget = std::chrono::seconds(envInt("FEDHPA_FUZZ_SECONDS", 12));
  Campaign campaign(seed, federation);
  const auto started = std::chrono::steady_clock::now();
  int requests = 0, failures = 0, answered4xx = 0;
  while (std::chrono::steady_clock::now() - started < budget && failures < 10) {
    const FuzzRequest request = campaign.next();
    {
      std::lock_guard lock(lastMutex);
      lastRequest = describe(request);
    }
    const Reply reply = send(port, request);
    ++requests;
    std::string problem;
    if (reply.status == 0) problem = "no answer";
    else if (reply.status >= 500) problem = "answered " + std::to_string(reply.status);
    else if (reply.status >= 400 && request.method != "HEAD") {
      ++answered4xx;
      const json status = json::parse(reply.body, nullptr, false);
      if (status.is_discarded() || !status.is_object() || status.value("kind", json()) != "Status" ||
          status.value("code", json()) != reply.status)
        problem = "error body is not a Status";
    }
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << problem << " (seed " << seed << "): " << describe(request) << "\n  -> " << escaped(reply.body, 300);
    }
    if (requests % 200 == 0 || !problem.empty()) {
      const Reply health = send(port, {"GET", "/healthz", "", ""});
      ASSERT_EQ(health.status, 200) << "the server stopped answering after " << describe(request);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << "fuzz campaign (seed " << seed << "): " << requests << " requests in " << seconds << " s, " << answered4xx
            << " answered 4xx" << std::endl;
  EXPECT_GT(requests, 50);

  // What the campaign sent leaves /metrics with labels from a closed set (docs/apiserver.md): a
  // served resource (or its status or scale), a path the server serves, or "" for the rest; never
  // a series per name, path or verb a client made up.
  std::set<std::string> served = {""};
  for (const auto& type : testing::resourcesOf(GetParam()))
    for (const char* suffix : {"", "/status", "/scale"}) served.insert(type->names().resource + suffix);
  const Reply scrape = send(port, {"GET", "/metrics", "", ""});
  ASSERT_EQ(scrape.status, 200);
  static const std::regex kSeries(R"re(apiserver_request_total\{verb="([^"]*)",resource="([^"]*)",code="[0-9]{3}"\} )re");
  static const std::set<std::string> kVerbs = {"get",  "list", "watch", "create", "update", "patch", "delete", "deletecollection",
                                               "GET",  "HEAD", "POST",  "PUT",    "PATCH",  "DELETE", "OPTIONS", "other"};
  std::set<std::string> paths;
  int series = 0;
  std::istringstream lines(scrape.body);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (!std::regex_search(line, match, kSeries)) continue;
    ++series;
    EXPECT_TRUE(kVerbs.count(match[1])) << line;
    if (!served.count(match[2])) paths.insert(match[2]);
  }
  EXPECT_GT(series, 10) << scrape.body;
  for (const auto& path : paths) {
    ASSERT_EQ(path.front(), '/') << "a resource label that is not a served resource: " << path;
    EXPECT_EQ(send(port, {"GET", path, "", ""}).status, 200) << "a path label the server does not serve: " << path;
  }
}

INSTANTIATE_TEST_SUITE_P(BothServers, HostileInputFuzz, ::testing::Values(ResourceSet::Federation, ResourceSet::MemberSim),
                         [](const auto& info) { return info.param == ResourceSet::Federation ? "Federation" : "MemberSim"; });

}  // namespace
}  // namespace fedhpa::apiserver
