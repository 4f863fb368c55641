// fedhpa: one binary, one subcommand per role.
#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "federation/cmd/apiserver_command.h"
#include "federation/cmd/controller_command.h"
#include "federation/cmd/up_command.h"
#include "federation/cmd/flags.h"
#include "federation/cmd/join_command.h"
#include "federation/cmd/member_sim_command.h"
#include "federation/cmd/partition_command.h"
#include "federation/cmd/simulate_command.h"

namespace po = boost::program_options;

namespace {

using fedhpa::cmd::kUsageError;

int partitionMain(int argc, char** argv) {
  fedhpa::cmd::PartitionArgs args;
  po::options_description options("fedhpa partition -f case.json [--policy legacy|demand|static] [--now RFC3339]");
  options.add_options()
      ("filename,f", po::value<std::string>(&args.file)->required(), "case file (- for stdin)")
      ("policy", po::value<std::string>(&args.policy)->default_value("demand"), "legacy or demand")
      ("now", po::value<std::string>(), "evaluate the scale-forbidden window at this time");
  po::variables_map vm;
  if (const auto exit = fedhpa::cmd::parseFlags(argc, argv, options, vm)) return *exit;
  if (vm.count("now")) args.now = vm["now"].as<std::string>();
  return fedhpa::cmd::runPartition(args, std::cout, std::cerr);
}

int simulateMain(int argc, char** argv) {
  fedhpa::cmd::SimulateArgs args;
  po::options_description options(
      "fedhpa simulate -f scenario.json [-f ...] [--policy legacy|demand|static|both] [--plot out.svg] [--json|--markdown]\n"
      "fedhpa simulate -f federation.json --from-prometheus answer.json --per-replica N [--cluster-label L]\n"
      "                [--metric-label L --per-replica METRIC=N ...] [--policy ...] [--plot out.svg] [--json]");
  options.add_options()
      ("filename,f", po::value<std::vector<std::string>>(&args.files)->required(), "scenario file (- for stdin); repeat for several")
      ("policy", po::value<std::string>(&args.policy)->default_value("both"), "legacy, demand or both")
      ("markdown", po::bool_switch(&args.markdown), "print one Markdown table, a row per scenario and policy")
      ("plot", po::value<std::string>(), "write an SVG picture of every cluster's demand, local max and replicas")
      ("json", po::bool_switch(&args.json), "print the figures as JSON")
      ("from-prometheus", po::value<std::string>(),
       "replay recorded load: a Prometheus /api/v1/query_range answer (- for stdin); -f is then the federation")
      ("per-replica", po::value<std::vector<std::string>>(&args.perReplica),
       "how much of a series' value one replica serves (N), or of one metric's (METRIC=N); repeat per metric")
      ("cluster-label", po::value<std::string>(&args.clusterLabel)->default_value("cluster"),
       "the series label naming the member cluster")
      ("metric-label", po::value<std::string>(), "the series label naming a federated.metrics entry (one series per metric)");
  po::variables_map vm;
  if (const auto exit = fedhpa::cmd::parseFlags(argc, argv, options, vm)) return *exit;
  if (vm.count("plot")) args.plot = vm["plot"].as<std::string>();
  if (vm.count("from-prometheus")) args.fromPrometheus = vm["from-prometheus"].as<std::string>();
  if (vm.count("metric-label")) args.metricLabel = vm["metric-label"].as<std::string>();
  return fedhpa::cmd::runSimulate(args, std::cout, std::cerr);
}

void usage(std::ostream& out) {
  out << "usage: fedhpa <command> [flags]\n\n"
         "commands:\n"
         "  apiserver   the federation API server (Kubernetes API, SQLite storage)\n"
         "  member-sim  a simulated member cluster (Kubernetes API, HPA and Deployment controllers)\n"
         "  join        register a member cluster with the federation (a Secret and a Cluster)\n"
         "  unjoin      remove a member cluster from the federation\n"
         "  controller-manager  the HPA federation controller\n"
         "  up          the whole federation on loopback: apiserver, 3 member-sims, controller, kubeconfig\n"
         "  partition   print the plan the partitioner makes for a case file\n"
         "  simulate    replay a load scenario in virtual time and report how each policy tracked it\n\n"
         "Run 'fedhpa <command> --help' for a command's flags.\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::function<int(int, char**)>> commands = {
      {"partition", partitionMain},
      {"simulate", simulateMain},
      {"apiserver", fedhpa::cmd::apiserverMain},
      {"member-sim", fedhpa::cmd::memberSimMain},
      {"join", fedhpa::cmd::joinMain},
      {"unjoin", fedhpa::cmd::unjoinMain},
      {"controller-manager", fedhpa::cmd::controllerManagerMain},
      {"up", fedhpa::cmd::upMain},
  };
  if (argc < 2) {
    usage(std::cerr);
    return kUsageError;
  }
  const std::string command = argv[1];
  if (command == "help" || command == "--help" || command == "-h") {
    usage(std::cout);
    return 0;
  }
  const auto it = commands.find(command);
  if (it == commands.end()) {
    std::cerr << "error: unknown command \"" << command << "\"\n";
    usage(std::cerr);
    return kUsageError;
  }
  return it->second(argc - 1, argv + 1);
}
