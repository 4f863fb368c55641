#include "federation/cmd/controller_command.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <variant>

#include "clusters/client/credential_source.h"
#include "clusters/client/rest_client.h"
#include "federation/cmd/controller_run.h"
#include "federation/cmd/flags.h"
#include "federation/cmd/serve.h"
#include "federation/common/duration.h"
#include "federation/common/logging.h"
#include "federation/common/time_source.h"
#include "federation/controller/controller_manager.h"
#include "federation/controller/leader_election.h"
#include "federation/apiserver/http/server.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

void addControllerFlags(po::options_description& options, ControllerFlags& flags) {
  options.add_options()
      ("leader-elect", po::value<bool>(&flags.leaderElect)->default_value(true), "act only while holding the Lease kube-system/fedhpa-controller-manager")
      ("workers", po::value<int>(&flags.workers)->default_value(16), "reconcile workers (however many, at most 8 writes are in flight to one member)")
      ("resync-period", po::value<std::string>(&flags.resyncPeriod)->default_value("30s"), "look at every federated HPA this often")
      ("cluster-probe-period", po::value<std::string>(&flags.probePeriod)->default_value("10s"), "probe members' /readyz this often")
      ("cluster-unhealthy-grace", po::value<std::string>(&flags.unhealthyGrace)->default_value("40s"), "NotReady this long: no longer eligible")
      ("hpa-scale-forbidden-window", po::value<std::string>(&flags.forbiddenWindow)->default_value("2m"), "kubefed v1's window after a member scaled")
      ("partition-policy", po::value<std::string>(&flags.policy)->default_value("demand"), "demand, legacy or static (max split by the hpa-preferences weights alone)")
      ("cron-catch-up-window", po::value<std::string>(&flags.cronCatchUpWindow)->default_value("2m"),
       "a CronFederatedHPA rule missed (controller down, no leader) fires late only if its schedule time is this recent");
}

// The flags as ControllerOptions, or an error message.
std::variant<controller::ControllerOptions, std::string> controllerOptions(const ControllerFlags& flags) {
  controller::ControllerOptions options;
  options.workers = flags.workers;
  const auto resync = parseDurationFlag(flags.resyncPeriod);
  const auto probe = parseDurationFlag(flags.probePeriod);
  const auto grace = parseDurationFlag(flags.unhealthyGrace);
  const auto window = parseDurationFlag(flags.forbiddenWindow);
  const auto policy = partitioner::parsePolicyName(flags.policy);
  if (!resync || !probe || !grace || !window) return std::string(kDurationSyntax);
  if (resync->count() == 0 || probe->count() == 0) return std::string("--resync-period and --cluster-probe-period must be positive");
  if (!policy) return "--partition-policy: want demand, legacy or static, got " + flags.policy;
  if (flags.workers < 1) return std::string("--workers must be at least 1");
  options.resyncPeriod = *resync;
  options.clusterProbePeriod = *probe;
  options.clusterUnhealthyGrace = *grace;
  options.policy.kind = *policy;
  options.policy.scaleForbiddenWindow = std::chrono::duration_cast<std::chrono::seconds>(*window);
  const auto catchUp = parseDurationFlag(flags.cronCatchUpWindow);
  if (!catchUp) return std::string(kDurationSyntax);
  options.karmada.cronCatchUpWindow = std::chrono::duration_cast<std::chrono::seconds>(*catchUp);
  return options;
}

clusters::RestConfig controllerFederationConfig(const std::vector<std::filesystem::path>& files, const std::string& context) {
  clusters::RestConfig config = clusters::loadKubeconfig(files).resolve(context);
  config.credentials = clusters::credentialSourceFor(config, std::make_shared<RealTimeSource>());
  return config;
}

// What every client of the controllers' (federation and members) shares: writes managed by
// "fedhpa-controller", and objects read without the managedFields nothing in it reads.
clusters::RestClientOptions controllerClientOptions() {
  clusters::RestClientOptions options;
  options.userAgent = clusters::kControllerUserAgent;
  options.dropManagedFields = true;
  return options;
}

clusters::ClientFactory memberClients() {
  return [](const clusters::RestConfig& config) {
    clusters::RestClientOptions options = controllerClientOptions();
    // A member is tens or hundreds of milliseconds away; one that has not answered in 5 s is not
    // answering. Failed writes are retried by the work queue, not here, so that a dead member
    // costs a worker one timeout at most, and MemberCalls cuts it off after a few.
    options.requestTimeout = std::chrono::seconds(5);
    options.retry.attempts = 1;
    return std::make_shared<clusters::RestClient>(config, options);
  };
}

namespace {

int waitForSignal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int received = 0;
  sigwait(&signals, &received);
  FEDHPA_LOG(info) << "signal " << received << ": shutting down";
  return 0;
}

// /healthz and /metrics of the controller-manager, as kube-controller-manager serves them.
class EndpointsHandler : public apiserver::http::Handler {
 public:
  explicit EndpointsHandler(controller::ControllerManager& manager) : manager_(manager) {}
  void handle(apiserver::http::Request request, std::shared_ptr<apiserver::http::Responder> responder) override {
    if (request.path == "/healthz" || request.path == "/readyz" || request.path == "/livez")
      responder->respond({200, {{"Content-Type", "text/plain"}}, "ok"});
    else if (request.path == "/metrics")
      responder->respond({200, {{"Content-Type", "text/plain; version=0.0.4"}}, manager_.renderMetrics()});
    else
      responder->respond({404, {{"Content-Type", "text/plain"}}, "404 page not found"});
  }

 private:
  controller::ControllerManager& manager_;
};

std::unique_ptr<apiserver::http::Server> serveEndpoints(controller::ControllerManager& manager, const std::string& address) {
  const auto colon = address.rfind(':');
  apiserver::http::ServerOptions options;
  options.address = address.substr(0, colon);
  options.port = static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1)));
  options.threads = 1;
  auto server = std::make_unique<apiserver::http::Server>(options, std::make_shared<EndpointsHandler>(manager));
  const auto port = server->start();
  FEDHPA_LOG(info) << "controller-manager /healthz and /metrics on http://" << options.address << ":" << port;
  return server;
}

std::string leaseIdentity() {
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + "_" + std::to_string(::getpid());
}

// Runs the manager while this process leads (or at once without leader election) until SIGINT
// or SIGTERM. A lost Lease ends the process at once with status 1, as kube-controller-manager
// does: a worker still inside a call must not get to write after another leader has started.
}  // namespace

int runManager(const clusters::RestConfig& federationConfig, controller::ControllerManager& manager, bool leaderElect,
               TimeSource& time) {
  if (!leaderElect) {
    manager.start();
    const int code = waitForSignal();
    manager.stop();
    return code;
  }
  const controller::LeaseTimes times;
  // The election's own client: every call bounded well inside the renew deadline, no retries.
  clusters::RestClientOptions electionOptions = controllerClientOptions();
  electionOptions.requestTimeout = std::chrono::duration_cast<std::chrono::seconds>(times.callTimeout());
  electionOptions.retry.attempts = 1;
  clusters::RestClient electionClient(federationConfig, electionOptions);
  controller::LeaderElector elector(electionClient, "kube-system", "fedhpa-controller-manager", leaseIdentity(), time, times);
  elector.start([&] { manager.start(); },
                [] {
                  FEDHPA_LOG(error) << "leader election lost: exiting";
                  std::_Exit(1);
                });
  waitForSignal();
  elector.stop();
  manager.stop();
  return 0;
}

void blockSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

int controllerManagerMain(int argc, char** argv) {
  std::string kubeconfig;
  std::string context;
  std::string address;
  ControllerFlags flags;
  po::options_description options("fedhpa controller-manager --kubeconfig K [--context federation-cluster]");
  options.add_options()
      ("kubeconfig", po::value<std::string>(&kubeconfig), "kubeconfig file (default $KUBECONFIG or ~/.kube/config)")
      ("context", po::value<std::string>(&context)->default_value("federation-cluster"), "the federation API's context")
      ("address", po::value<std::string>(&address)->default_value("127.0.0.1:10257"), "serve /healthz and /metrics here (port 0: any free port)");
  addControllerFlags(options, flags);
  po::variables_map vm;
  if (const auto exit = parseFlags(argc, argv, options, vm)) return *exit;
  const auto parsed = controllerOptions(flags);
  const auto colon = address.rfind(':');
  const bool addressOk = colon != std::string::npos && colon + 1 < address.size() &&
                         address.find_first_not_of("0123456789", colon + 1) == std::string::npos;
  if (const auto* error = std::get_if<std::string>(&parsed); error || !addressOk) {
    std::cerr << "error: " << (error ? *error : "--address: want HOST:PORT, got " + address) << "\n";
    return kUsageError;
  }
  blockSignals();
  clusters::initializeHttpClientPool(4);
  try {
    const auto files = kubeconfig.empty() ? clusters::defaultKubeconfigFiles() : std::vector<std::filesystem::path>{kubeconfig};
    const clusters::RestConfig federationConfig = controllerFederationConfig(files, context);
    clusters::RestClient federation(federationConfig, controllerClientOptions());
    RealTimeSource time;
    controller::ControllerManager manager(federation, memberClients(), std::get<controller::ControllerOptions>(parsed), time);
    FEDHPA_LOG(info) << "controller-manager running against context " << context;
    const auto endpoints = serveEndpoints(manager, address);
    return runManager(federationConfig, manager, flags.leaderElect, time);
  } catch (const clusters::KubeconfigError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace fedhpa::cmd
