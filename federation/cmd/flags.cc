#include "federation/cmd/flags.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "federation/common/logging.h"

namespace fedhpa::cmd {

namespace po = boost::program_options;

std::optional<int> parseFlags(int argc, char** argv, po::options_description& options, po::variables_map& values,
                              const po::positional_options_description* positional) {
  CommonFlags common;
  po::options_description commonOptions("Common flags");
  commonOptions.add_options()
      ("help,h", "print this help")
      ("v", po::value<int>(&common.verbosity)->default_value(0), "log verbosity: 0 info, 2 debug, 4 trace")
      ("log-format", po::value<std::string>(&common.logFormat)->default_value("text"), "text or json");
  options.add(commonOptions);
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), values);
    if (values.count("help")) {
      std::cout << options << "\n";
      return 0;
    }
    po::notify(values);
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n" << options << "\n";
    return kUsageError;
  }
  const auto format = logging::parseFormat(common.logFormat);
  if (!format) {
    std::cerr << "error: --log-format: must be text or json, not " << common.logFormat << "\n";
    return kUsageError;
  }
  logging::init({common.verbosity, *format});
  return std::nullopt;
}

std::optional<std::string> readInputFile(const std::string& file) {
  std::ostringstream text;
  if (file == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  text << in.rdbuf();
  return text.str();
}

}  // namespace fedhpa::cmd
