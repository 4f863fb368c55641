// What `fedhpa controller-manager` and `fedhpa up` share: the controller's flags, the clients it
// uses, and running a ControllerManager (with or without leader election) until SIGINT or SIGTERM.
#pragma once

#include <boost/program_options/options_description.hpp>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "clusters/client/cluster_registry.h"
#include "clusters/client/rest_client.h"
#include "federation/common/time_source.h"
#include "federation/controller/controller_manager.h"

namespace fedhpa::cmd {

struct ControllerFlags {
  bool leaderElect = true;
  int workers = 16;
  std::string resyncPeriod = "30s";
  std::string probePeriod = "10s";
  std::string unhealthyGrace = "40s";
  std::string forbiddenWindow = "2m";
  std::string policy = "demand";
  std::string cronCatchUpWindow = "2m";
};

void addControllerFlags(boost::program_options::options_description& options, ControllerFlags& flags);
// The options, or the message naming the flag that does not parse.
std::variant<controller::ControllerOptions, std::string> controllerOptions(const ControllerFlags& flags);

// The controller's config for the federation API: `context` ("" for the current one) of the
// kubeconfig `files`, read as client-go reads them, with one credential for every client built
// from it (the controllers' and the election's), as client-go shares one exec authenticator
// between the clients of one config: a plugin runs once per expiry. Throws KubeconfigError.
clusters::RestConfig controllerFederationConfig(const std::vector<std::filesystem::path>& files, const std::string& context);
// The controller's client to the federation API, and the factory of its member clients.
clusters::RestClientOptions controllerClientOptions();
clusters::ClientFactory memberClients();

// SIGINT and SIGTERM blocked in every thread started after this, so that runManager's wait
// receives them.
void blockSignals();
// Runs the manager (leading only while it holds the Lease, when leaderElect) until a signal;
// the process's exit code.
int runManager(const clusters::RestConfig& federationConfig, controller::ControllerManager& manager, bool leaderElect,
               TimeSource& time);

}  // namespace fedhpa::cmd
