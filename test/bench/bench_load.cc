#include "test/bench/bench_load.h"

#include <cpprest/http_client.h>

#include "clusters/client/rest_client.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace fedhpa::bench {

using clusters::ListOptions;
using clusters::RestClient;

namespace {

web::http::http_response getWithAccept(web::http::client::http_client& client, const std::string& path,
                                       const std::string& accept) {
  web::http::http_request request(web::http::methods::GET);
  request.set_request_uri(path);
  if (!accept.empty()) request.headers().add("Accept", accept);
  return client.request(request).get();
}

}  // namespace

std::size_t responseBytes(const std::string& server, const std::string& path, const std::string& accept) {
  web::http::client::http_client client(server);
  web::http::http_response response = getWithAccept(client, path, accept);
  const auto body = response.extract_vector().get();
  if (response.status_code() != 200) throw BenchError("GET " + path + ": HTTP " + std::to_string(response.status_code()));
  return body.size();
}

double requestRate(const std::string& server, const std::string& path, int threads, std::chrono::milliseconds duration,
                   const std::string& accept) {
  std::atomic<long long> done{0};
  std::atomic<int> warm{0};
  std::mutex errorMutex;
  std::string error;
  Clock::time_point start, deadline;
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  const auto get = [&](web::http::client::http_client& client) {
    web::http::http_response response = getWithAccept(client, path, accept);
    const auto body = response.extract_vector().get();
    if (response.status_code() != 200)
      throw BenchError("GET " + path + ": HTTP " + std::to_string(response.status_code()) + ": " +
                       std::string(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(body.size(), 200))));
  };
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      long long count = 0;
      try {
        web::http::client::http_client client(server);
        get(client);  // the connection is open before the clock starts
        ++warm;
        while (!go) std::this_thread::yield();
        while (Clock::now() < deadline) {
          get(client);
          ++count;
        }
      } catch (const std::exception& failure) {
        std::lock_guard lock(errorMutex);
        error = failure.what();
        ++warm;
      }
      done += count;
    });
  const auto warmDeadline = Clock::now() + std::chrono::seconds(30);
  while (warm < threads && Clock::now() < warmDeadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  start = Clock::now();
  deadline = start + duration;
  go = true;
  for (auto& worker : workers) worker.join();
  const double elapsed = secondsSince(start);
  if (!error.empty()) throw BenchError(server + path + ": " + error);
  if (warm < threads) throw BenchError(server + path + ": clients not connected within 30 s");
  return static_cast<double>(done) / elapsed;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void progress(const std::string& line) { std::cerr << "[bench] " << line << std::endl; }

std::string hpaName(const std::string& prefix, int i) {
  char text[32];
  std::snprintf(text, sizeof text, "%s-%05d", prefix.c_str(), i);
  return text;
}

json hpaObject(const std::string& name, int minReplicas, int maxReplicas) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"minReplicas", minReplicas},
            {"maxReplicas", maxReplicas},
            {"metrics", json::array({{{"type", "Resource"},
                                      {"resource", {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}}})}}}};
}

double createHpas(const RestConfig& config, const std::vector<std::string>& names, int minReplicas, int maxReplicas,
                  int threads) {
  std::atomic<std::size_t> next{0};
  std::mutex errorMutex;
  std::string error;
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      try {
        RestClient client(config);
        for (std::size_t i = next++; i < names.size(); i = next++) client.create(kHpas, "default", hpaObject(names[i], minReplicas, maxReplicas));
      } catch (const std::exception& failure) {
        std::lock_guard lock(errorMutex);
        error = failure.what();
        next = names.size();
      }
    });
  for (auto& worker : workers) worker.join();
  if (!error.empty()) throw BenchError("creating HPAs on " + config.server + ": " + error);
  return secondsSince(start);
}

// The store's revision, which every write bumps: a LIST reports it as its resourceVersion.
static long long storeRevision(const RestConfig& config) {
  ListOptions options;
  options.limit = 1;
  return std::stoll(RestClient(config).list(kHpas, "default", options).at("metadata").value("resourceVersion", "0"));
}

Revisions revisions(const RestConfig& federation, const std::vector<RestConfig>& members) {
  Revisions r;
  r.federation = storeRevision(federation);
  for (const auto& member : members) r.members.push_back(storeRevision(member));
  return r;
}

std::string writesPerHpa(const Revisions& before, const Revisions& after, int n) {
  std::string text = "writes per federated HPA: federation " + fixed(static_cast<double>(after.federation - before.federation) / n, 2) +
                     ", members";
  for (std::size_t m = 0; m < after.members.size(); ++m)
    text += " " + fixed(static_cast<double>(after.members[m] - before.members.at(m)) / n, 2);
  return text;
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::max(0.0, std::ceil(p / 100.0 * static_cast<double>(values.size())) - 1));
  return values[std::min(rank, values.size() - 1)];
}

MemberMirror::MemberMirror(const std::vector<RestConfig>& members, int wantedSum)
    : members_(static_cast<int>(members.size())), wantedSum_(wantedSum), streams_(members.size(), nullptr) {
  for (int m = 0; m < members_; ++m) threads_.emplace_back([this, m, config = members.at(m)] { run(m, config); });
  std::string failure;
  {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, seconds(30), [&] { return listed_ == members_ || !error_.empty(); }))
      failure = "member watches not established within 30 s";
    else
      failure = error_;
  }
  if (!failure.empty()) {
    stop();
    throw BenchError(failure);
  }
}

MemberMirror::~MemberMirror() { stop(); }

void MemberMirror::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto* stream : streams_)
      if (stream) stream->cancel();
  }
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

void MemberMirror::waitUntil(const std::function<bool(const MemberMirror&)>& done, Clock::time_point deadline, const std::string& what) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!error_.empty()) throw BenchError(what + ": " + error_);
    if (done(*this)) return;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && !done(*this))
      throw BenchError("timed out waiting for " + what + " (" + describeLocked() + ")");
  }
}

void MemberMirror::waitQuiet(milliseconds quiet, Clock::time_point deadline, const std::string& what) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!error_.empty()) throw BenchError(what + ": " + error_);
    const auto quietAt = lastEventAt_ + quiet;
    const auto now = Clock::now();
    if (now >= quietAt) return;
    if (now >= deadline) throw BenchError("member HPAs still changing: " + what);
    changed_.wait_until(lock, std::min(quietAt, deadline));
  }
}

std::optional<MemberMirror::Entry> MemberMirror::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<MemberMirror::Entry> MemberMirror::snapshot(const std::string& name) {
  std::lock_guard lock(mutex_);
  return entry(name);
}

std::string MemberMirror::describeLocked() const {
  std::size_t count = 0;
  for (const auto& [name, e] : entries_)
    for (int max : e.max) count += max > 0;
  return std::to_string(count) + " local HPAs seen, " + std::to_string(correct_) + " names with all members and Σ max " +
         std::to_string(wantedSum_) + ", " + std::to_string(events_) + " watch events";
}

bool MemberMirror::isCorrect(const Entry& e) const {
  if (static_cast<int>(e.max.size()) != members_) return false;
  int sum = 0;
  for (int max : e.max) {
    if (max <= 0) return false;
    sum += max;
  }
  return sum == wantedSum_;
}

void MemberMirror::apply(int member, const std::string& type, const json& object, Clock::time_point at) {
  const std::string name = object.at("metadata").value("name", "");
  const int max = type == "DELETED" ? 0 : object.value("spec", json::object()).value("maxReplicas", 0);
  std::lock_guard lock(mutex_);
  Entry& e = entries_[name];
  if (e.max.empty()) {
    e.max.assign(members_, 0);
    e.changedAt.assign(members_, Clock::time_point{});
  }
  const bool was = isCorrect(e);
  if (e.max[member] != max) {
    e.max[member] = max;
    e.changedAt[member] = at;
  }
  const bool now = isCorrect(e);
  if (now && !was) {
    ++correct_;
    completedAt_ = at;  // once all are right: when the last one became right
  }
  if (was && !now) --correct_;
  ++events_;
  lastEventAt_ = at;
  changed_.notify_all();
}

void MemberMirror::run(int member, const RestConfig& config) {
  try {
    // An observer reads limits, not who wrote them: it should cost the machine it measures little.
    clusters::RestClientOptions observer;
    observer.dropManagedFields = true;
    RestClient client(config, observer);
    ListOptions options;
    options.labelSelector = kManagedSelector;
    const json list = client.list(kHpas, "default", options);
    for (const auto& item : list.value("items", json::array())) apply(member, "ADDED", item, Clock::now());
    std::string resourceVersion = list.at("metadata").value("resourceVersion", "");
    {
      std::lock_guard lock(mutex_);
      ++listed_;
      changed_.notify_all();
    }
    for (int watches = 0; watches < 1000; ++watches) {
      auto stream = client.watch(kHpas, "default", resourceVersion, options);
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        streams_[member] = stream.get();
      }
      while (const auto event = stream->next()) {
        const auto at = Clock::now();
        const std::string type = event->value("type", "");
        const json& object = event->at("object");
        if (type == "ERROR") throw BenchError("watch error: " + object.dump());
        resourceVersion = object.at("metadata").value("resourceVersion", resourceVersion);
        if (type != "BOOKMARK") apply(member, type, object, at);
      }
      std::lock_guard lock(mutex_);
      streams_[member] = nullptr;
      if (stopping_) return;
    }
    throw BenchError("the watch ended 1000 times");
  } catch (const std::exception& failure) {
    std::lock_guard lock(mutex_);
    streams_[member] = nullptr;
    if (stopping_) return;
    error_ = "member" + std::to_string(member + 1) + " watch: " + failure.what();
    changed_.notify_all();
  }
}

std::map<std::string, double> scrapeMetrics(const std::string& server) {
  web::http::client::http_client client(server);
  web::http::http_response response = client.request(web::http::methods::GET, "/metrics").get();
  const std::string body = response.extract_utf8string(true).get();
  if (response.status_code() != 200) throw BenchError("GET " + server + "/metrics: HTTP " + std::to_string(response.status_code()));
  std::map<std::string, double> samples;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    try {
      samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
    } catch (const std::exception&) {
    }
  }
  return samples;
}

std::map<std::pair<std::string, std::string>, long long> requestCounts(const std::string& server) {
  web::http::client::http_client client(server);
  web::http::http_response response = client.request(web::http::methods::GET, "/metrics").get();
  const std::string body = response.extract_utf8string(true).get();
  if (response.status_code() != 200) throw BenchError("GET " + server + "/metrics: HTTP " + std::to_string(response.status_code()));
  std::map<std::pair<std::string, std::string>, long long> counts;
  std::istringstream lines(body);
  const std::string prefix = "apiserver_request_total{";
  const auto label = [](const std::string& labels, const std::string& key) {
    const auto at = labels.find(key + "=\"");
    if (at == std::string::npos) return std::string();
    const auto begin = at + key.size() + 2;
    return labels.substr(begin, labels.find('"', begin) - begin);
  };
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto close = line.find("} ");
    if (close == std::string::npos) continue;
    const std::string labels = line.substr(prefix.size(), close - prefix.size());
    counts[{label(labels, "verb"), label(labels, "resource")}] += std::stoll(line.substr(close + 2));
  }
  return counts;
}

}  // namespace fedhpa::bench
