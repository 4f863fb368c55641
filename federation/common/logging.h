// Boost.Log, set up once for the whole binary: klog-style verbosity (--v) and text or JSON lines
// on stderr. Everything else logs through the FEDHPA_LOG macro.
#pragma once

#include <boost/log/trivial.hpp>
#include <optional>
#include <string>

namespace fedhpa::logging {

enum class Format { Text, Json };

struct Options {
  int verbosity = 0;  // --v: 0 info and above, 2 debug, 4 trace
  Format format = Format::Text;
};

// Parses --log-format's value; nullopt for anything but "text" or "json".
std::optional<Format> parseFormat(const std::string& name);

void init(const Options& options);

}  // namespace fedhpa::logging

#define FEDHPA_LOG(level) BOOST_LOG_TRIVIAL(level)
