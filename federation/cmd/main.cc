// fedhpa: one binary, one subcommand per role (DESIGN.md section 1).
#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "federation/cmd/partition_command.h"
#include "federation/common/logging.h"

namespace po = boost::program_options;

namespace {

constexpr int kUsageError = 2;

// Flags every subcommand takes.
po::options_description commonOptions(int& verbosity, std::string& logFormat) {
  po::options_description options("Common flags");
  options.add_options()
      ("help,h", "print this help")
      ("v", po::value<int>(&verbosity)->default_value(0), "log verbosity: 0 info, 2 debug, 4 trace")
      ("log-format", po::value<std::string>(&logFormat)->default_value("text"), "text or json");
  return options;
}

int partitionMain(int argc, char** argv) {
  int verbosity = 0;
  std::string logFormat;
  fedhpa::cmd::PartitionArgs args;
  std::optional<std::string> now;
  po::options_description options("fedhpa partition -f case.json [--policy legacy|demand] [--now RFC3339]");
  options.add_options()
      ("filename,f", po::value<std::string>(&args.file)->required(), "case file (- for stdin)")
      ("policy", po::value<std::string>(&args.policy)->default_value("demand"), "legacy or demand")
      ("now", po::value<std::string>(), "evaluate the scale-forbidden window at this time");
  options.add(commonOptions(verbosity, logFormat));
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
    if (vm.count("help")) {
      std::cout << options << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n" << options << "\n";
    return kUsageError;
  }
  const auto format = fedhpa::logging::parseFormat(logFormat);
  if (!format) {
    std::cerr << "error: --log-format: must be text or json, not " << logFormat << "\n";
    return kUsageError;
  }
  fedhpa::logging::init({verbosity, *format});
  if (vm.count("now")) args.now = vm["now"].as<std::string>();
  return fedhpa::cmd::runPartition(args, std::cout, std::cerr);
}

void usage(std::ostream& out) {
  out << "usage: fedhpa <command> [flags]\n\n"
         "commands:\n"
         "  partition   print the plan the partitioner makes for a case file\n\n"
         "Run 'fedhpa <command> --help' for a command's flags.\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::function<int(int, char**)>> commands = {
      {"partition", partitionMain},
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
