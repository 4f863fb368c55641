#include "federation/controller/leader_election.h"

#include "federation/api/time.h"
#include "federation/common/logging.h"

namespace fedhpa::controller {

using clusters::ClientError;
using clusters::json;

namespace {

const clusters::Resource kLeases{"coordination.k8s.io", "v1", "leases", true};

std::string microTime(SystemTime time) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count() % 1'000'000;
  std::string seconds = api::formatRfc3339(time);  // "...:SSZ"
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06lld", static_cast<long long>(micros));
  return seconds.substr(0, seconds.size() - 1) + fraction + "Z";
}

}  // namespace

LeaderElector::LeaderElector(clusters::KubeClient& client, std::string namespaceName, std::string leaseName,
                             std::string identity, TimeSource& time, LeaseTimes times)
    : client_(client), namespace_(std::move(namespaceName)), name_(std::move(leaseName)), identity_(std::move(identity)),
      time_(time), times_(times) {}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start(std::function<void()> onStarted, std::function<void()> onStopped) {
  onStarted_ = std::move(onStarted);
  onStopped_ = std::move(onStopped);
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaderElector::run() {
  auto lastRenew = time_.monotonicTime();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    // A renewal counts from when it was sent, not from when its answer arrived: the others may
    // have observed it as soon as it was written, so the deadline runs from the earlier time.
    const auto attemptedAt = time_.monotonicTime();
    bool held = false;
    try {
      held = tryAcquireOrRenew();
    } catch (const ClientError& error) {
      FEDHPA_LOG(debug) << "leader election: " << error.what();
    }
    const auto now = time_.monotonicTime();
    if (held) {
      lastRenew = attemptedAt;
      if (!leading_.exchange(true)) {
        FEDHPA_LOG(info) << identity_ << " became the leader (lease " << namespace_ << "/" << name_ << ")";
        if (onStarted_) onStarted_();
      }
    } else if (leading_ && now - lastRenew >= times_.renewDeadline) {
      leading_ = false;
      FEDHPA_LOG(warning) << identity_ << " lost the lease " << namespace_ << "/" << name_;
      if (onStopped_) onStopped_();
      return;
    }
    lock.lock();
    wake_.wait_for(lock, times_.retryPeriod, [&] { return stopping_; });
  }
}

bool LeaderElector::tryAcquireOrRenew() {
  const auto wallNow = time_.systemTime();
  const auto now = time_.monotonicTime();
  const long long durationSeconds = std::max<long long>(1, std::chrono::duration_cast<std::chrono::seconds>(times_.leaseDuration).count());
  json lease;
  try {
    lease = client_.get(kLeases, namespace_, name_);
  } catch (const ClientError& error) {
    if (error.kind() != ClientError::Kind::NotFound) throw;
    client_.create(kLeases, namespace_,
                   {{"apiVersion", "coordination.k8s.io/v1"},
                    {"kind", "Lease"},
                    {"metadata", {{"name", name_}, {"namespace", namespace_}}},
                    {"spec",
                     {{"holderIdentity", identity_},
                      {"leaseDurationSeconds", durationSeconds},
                      {"acquireTime", microTime(wallNow)},
                      {"renewTime", microTime(wallNow)},
                      {"leaseTransitions", 0}}}});
    observedRecord_.clear();
    return true;
  }
  json& spec = lease["spec"];
  const std::string holder = spec.value("holderIdentity", "");
  const std::string record = spec.dump();
  if (record != observedRecord_) {
    observedRecord_ = record;
    observedAt_ = now;
  }
  if (holder != identity_) {
    const auto duration = std::chrono::seconds(spec.value("leaseDurationSeconds", durationSeconds));
    // Held until the record has stood unchanged, as seen here, for the whole lease duration.
    if (!holder.empty() && now < observedAt_ + duration) return false;
    spec["holderIdentity"] = identity_;
    spec["acquireTime"] = microTime(wallNow);
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  spec["renewTime"] = microTime(wallNow);
  spec["leaseDurationSeconds"] = durationSeconds;
  try {
    client_.update(kLeases, lease);  // carries the resourceVersion we read: a rival's write wins
  } catch (const ClientError& error) {
    if (error.kind() == ClientError::Kind::Conflict) return false;
    throw;
  }
  return true;
}

}  // namespace fedhpa::controller
