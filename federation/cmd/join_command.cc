#include "federation/cmd/join_command.h"

#include <functional>
#include <iostream>
#include <sstream>

#include "clusters/client/join.h"
#include "clusters/client/rest_client.h"
#include "federation/cmd/flags.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

namespace {

struct JoinFlags {
  std::string name;
  std::string clusterContext;
  std::string kubeconfig;
  std::string hostContext = "federation-cluster";
};

// The flags join and unjoin share, NAME as the first argument; an exit code when parsing ends the command.
std::optional<int> parseJoinFlags(int argc, char** argv, const char* usage, bool withClusterContext, JoinFlags& flags) {
  po::options_description options(usage);
  options.add_options()
      ("name", po::value<std::string>(&flags.name)->required(), "the member's name in the federation")
      ("kubeconfig", po::value<std::string>(&flags.kubeconfig), "kubeconfig file(s), ':'-separated (default $KUBECONFIG or ~/.kube/config)")
      ("host-context", po::value<std::string>(&flags.hostContext)->default_value("federation-cluster"), "the federation API's context");
  if (withClusterContext)
    options.add_options()("cluster-context", po::value<std::string>(&flags.clusterContext)->required(), "the member's context");
  po::positional_options_description positional;
  positional.add("name", 1);
  po::variables_map values;
  return parseFlags(argc, argv, options, values, &positional);
}

std::vector<std::filesystem::path> kubeconfigFiles(const std::string& flag) {
  if (flag.empty()) return clusters::defaultKubeconfigFiles();
  std::vector<std::filesystem::path> files;
  std::stringstream list(flag);
  std::string item;
  while (std::getline(list, item, ':'))
    if (!item.empty()) files.emplace_back(item);
  return files;
}

// Runs one join/unjoin: errors as kubectl prints them, exit 1.
int run(const JoinFlags& flags, const std::function<std::string(clusters::KubeClient&, const clusters::Kubeconfig&)>& action) {
  clusters::initializeHttpClientPool(2);
  try {
    const auto config = clusters::loadKubeconfig(kubeconfigFiles(flags.kubeconfig));
    clusters::RestClient federation(config.resolve(flags.hostContext));
    std::cout << action(federation, config) << "\n";
    return 0;
  } catch (const clusters::KubeconfigError& error) {
    std::cerr << "error: " << error.what() << "\n";
  } catch (const clusters::ClientError& error) {
    std::cerr << "Error from server" << (error.reason().empty() ? "" : " (" + error.reason() + ")") << ": " << error.what() << "\n";
  }
  return 1;
}

}  // namespace

int joinMain(int argc, char** argv) {
  JoinFlags flags;
  if (const auto exit = parseJoinFlags(argc, argv, "fedhpa join NAME --cluster-context CTX [--kubeconfig K] [--host-context federation-cluster]",
                                       true, flags))
    return *exit;
  return run(flags, [&](clusters::KubeClient& federation, const clusters::Kubeconfig& config) {
    clusters::joinCluster(federation, flags.name, config.resolve(flags.clusterContext));
    return "cluster.federation/" + flags.name + " joined";
  });
}

int unjoinMain(int argc, char** argv) {
  JoinFlags flags;
  if (const auto exit = parseJoinFlags(argc, argv, "fedhpa unjoin NAME [--kubeconfig K] [--host-context federation-cluster]", false, flags))
    return *exit;
  return run(flags, [&](clusters::KubeClient& federation, const clusters::Kubeconfig&) {
    clusters::unjoinCluster(federation, flags.name);
    return "cluster.federation/" + flags.name + " unjoined";
  });
}

}  // namespace fedhpa::cmd
