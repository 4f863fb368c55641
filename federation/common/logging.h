// Logging for the whole binary: klog-style verbosity (--v) and text or JSON lines on stderr,
// written through Boost.Log, set up once by init(). Everything else logs through FEDHPA_LOG:
//   FEDHPA_LOG(warning) << "member " << name << " did not answer";
// This header keeps Boost.Log's headers out of the files that log (about a third of the tree):
// a line is formatted into a string only when its severity is enabled, and handed to Boost.Log
// by logging.cc.
#pragma once

#include <atomic>
#include <optional>
#include <sstream>
#include <string>

namespace fedhpa::logging {

enum class Format { Text, Json };

// Boost.Log's trivial severities, in the same order.
enum class Severity { trace, debug, info, warning, error, fatal };

struct Options {
  int verbosity = 0;  // --v: 0 info and above, 2 debug, 4 trace
  Format format = Format::Text;
};

// Parses --log-format's value; nullopt for anything but "text" or "json".
std::optional<Format> parseFormat(const std::string& name);

void init(const Options& options);

// Turns every line off (true) or back on; the fuzz harnesses log nothing.
void setSilenced(bool silenced);

namespace detail {
// The lowest severity written: everything until init() sets --v's threshold, as Boost.Log's
// default sink writes every record before one is configured.
extern std::atomic<int> minimumSeverity;

// Collects one line and writes it when the statement ends.
class Line {
 public:
  explicit Line(Severity severity) : severity_(severity) {}
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  ~Line();
  std::ostream& stream() { return text_; }

 private:
  Severity severity_;
  std::ostringstream text_;
};
// Turns the stream expression into void, so that both arms of FEDHPA_LOG's ternary match; `&`
// binds looser than `<<`, so the whole line is streamed first.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace detail

inline bool enabled(Severity severity) {
  return static_cast<int>(severity) >= detail::minimumSeverity.load(std::memory_order_relaxed);
}

}  // namespace fedhpa::logging

// A disabled line formats nothing: the condition is tested before any operand of << is evaluated.
// The ternary (as glog's) keeps the macro one expression, so it nests in a caller's if/else.
#define FEDHPA_LOG(level)                                                        \
  !::fedhpa::logging::enabled(::fedhpa::logging::Severity::level)                \
      ? (void)0                                                                  \
      : ::fedhpa::logging::detail::Voidify() &                                   \
            ::fedhpa::logging::detail::Line(::fedhpa::logging::Severity::level).stream()
