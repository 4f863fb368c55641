#include "federation/cmd/member_sim_command.h"

#include <iostream>
#include <tuple>

#include "clusters/sim/member_simulator.h"
#include "federation/cmd/flags.h"
#include "federation/cmd/member_model_flags.h"
#include "federation/common/duration.h"
#include "federation/cmd/serve.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

int memberSimMain(int argc, char** argv) {
  std::string listen;
  MemberModelFlags model;
  std::string latency;
  std::string latencyJitter;
  std::string authorizationMode = "AlwaysAllow";
  std::string maxTokenExpiration;
  std::string minTokenExpiration;
  ServeFlags serve;
  sim::MemberSimulatorOptions options;
  std::optional<std::chrono::seconds> testingMinimum;
  po::options_description description(
      "fedhpa member-sim --listen 127.0.0.1:PORT [--name member1] [--horizontal-pod-autoscaler-sync-period 15s] "
      "[--pod-startup-delay 20s] [--latency 0s] [--latency-jitter 0s]\n"
      "    [--authorization-mode AlwaysAllow|RBAC] [--service-account-max-token-expiration D] [TLS and authentication flags]");
  description.add_options()
      ("listen", po::value<std::string>(&listen)->default_value("127.0.0.1:0"), "address:port to serve on (port 0: any free port)")
      ("port", po::value<int>(), "shorthand for --listen 127.0.0.1:PORT")
      ("name", po::value<std::string>(&options.name)->default_value("member1"), "the simulated cluster's name (events, logs)")
      ("latency", po::value<std::string>(&latency), "delay every request by this long before serving it")
      ("latency-jitter", po::value<std::string>(&latencyJitter), "add a uniformly random extra delay of up to this long")
      ("authorization-mode", po::value<std::string>(&authorizationMode)->default_value("AlwaysAllow"),
       "AlwaysAllow, or RBAC (kube's bootstrap roles; system:masters is never denied)")
      ("service-account-max-token-expiration", po::value<std::string>(&maxTokenExpiration),
       "the longest lifetime of a token from serviceaccounts/<name>/token; longer requests are cut to it (default: no cap)")
      ("testing-min-token-expiration", po::value<std::string>(&minTokenExpiration),
       "FOR TESTS ONLY: the shortest token lifetime a TokenRequest may ask for (kube, and the default: 10m)");
  // kube's defaults, and pods that take as long to start as a small image's do.
  addMemberModelFlags(description, model, {"15s", "20s"});
  addServeFlags(description, serve);
  po::variables_map vm;
  if (const auto exit = parseFlags(argc, argv, description, vm)) return *exit;
  if (vm.count("port")) listen = "127.0.0.1:" + std::to_string(vm["port"].as<int>());
  if (const auto error = applyMemberModelFlags(vm, model, options)) {
    std::cerr << "error: " << *error << "\n";
    return kUsageError;
  }
  for (auto [flag, text, out] : {std::tuple{"--latency", &latency, &options.latency},
                                 std::tuple{"--latency-jitter", &latencyJitter, &options.latencyJitter}}) {
    if (text->empty()) continue;
    const auto duration = parseDurationFlag(*text);
    if (!duration) {
      std::cerr << "error: " << flag << ": " << kDurationSyntax << ", got " << *text << "\n";
      return kUsageError;
    }
    *out = *duration;
  }
  if (authorizationMode == "RBAC") {
    options.authorization = apiserver::authz::AuthorizationMode::Rbac;
  } else if (authorizationMode != "AlwaysAllow") {
    std::cerr << "error: --authorization-mode: want AlwaysAllow or RBAC, got " << authorizationMode << "\n";
    return kUsageError;
  }
  for (auto [flag, text, out] : {std::tuple{"--service-account-max-token-expiration", &maxTokenExpiration, &options.tokenLifetimes.maximum},
                                 std::tuple{"--testing-min-token-expiration", &minTokenExpiration, &testingMinimum}}) {
    if (text->empty()) continue;
    const auto duration = parseDurationFlag(*text);
    if (!duration || duration->count() < 1000) {
      std::cerr << "error: " << flag << ": want a duration of at least 1s (" << kDurationSyntax << "), got " << *text << "\n";
      return kUsageError;
    }
    *out = std::chrono::duration_cast<std::chrono::seconds>(*duration);
  }
  if (testingMinimum) options.tokenLifetimes.minimum = *testingMinimum;
  if (const auto error = httpOptionsFrom(listen, serve, options.http)) {
    std::cerr << "error: " << *error << "\n";
    return kUsageError;
  }
  sim::MemberSimulator simulator(options);
  return serveUntilSignal([&] { return simulator.start(); }, [&] { simulator.stop(); }, options.http);
}

}  // namespace fedhpa::cmd
