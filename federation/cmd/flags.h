// Flag parsing every subcommand shares: --help, --v and --log-format, and the one way a
// subcommand reports a usage error (exit 2).
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

namespace fedhpa::cmd {

constexpr int kUsageError = 2;

struct CommonFlags {
  int verbosity = 0;
  std::string logFormat = "text";
};

// Parses argv against `options` plus the common flags and sets up logging. Returns the exit code
// when the command must stop here (0 after --help, 2 on a usage error), nullopt to go on.
std::optional<int> parseFlags(int argc, char** argv, boost::program_options::options_description& options,
                              boost::program_options::variables_map& values,
                              const boost::program_options::positional_options_description* positional = nullptr);

// The whole of an input file named by -f ("-": standard input); nullopt when it cannot be read.
std::optional<std::string> readInputFile(const std::string& file);

}  // namespace fedhpa::cmd
