#include "federation/common/logging.h"

#include <boost/core/null_deleter.hpp>
#include <boost/date_time/posix_time/posix_time.hpp>
#include <boost/log/attributes/clock.hpp>
#include <boost/log/core.hpp>
#include <boost/log/expressions.hpp>
#include <boost/log/sinks/sync_frontend.hpp>
#include <boost/log/sinks/text_ostream_backend.hpp>
#include <boost/log/support/date_time.hpp>
#include <boost/log/trivial.hpp>
#include <iostream>
#include <optional>

namespace fedhpa::logging {
namespace {

namespace blog = boost::log;
using BoostSeverity = blog::trivial::severity_level;

Severity threshold(int verbosity) {
  if (verbosity >= 4) return Severity::trace;
  if (verbosity >= 2) return Severity::debug;
  return Severity::info;
}

BoostSeverity boostSeverity(Severity severity) {
  switch (severity) {
    case Severity::trace: return blog::trivial::trace;
    case Severity::debug: return blog::trivial::debug;
    case Severity::info: return blog::trivial::info;
    case Severity::warning: return blog::trivial::warning;
    case Severity::error: return blog::trivial::error;
    case Severity::fatal: return blog::trivial::fatal;
  }
  return blog::trivial::fatal;
}

std::string jsonEscaped(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string timestamp(const blog::record_view& record) {
  const auto time = blog::extract<boost::posix_time::ptime>("TimeStamp", record);
  return time ? boost::posix_time::to_iso_extended_string(*time) + "Z" : std::string();
}

void formatText(const blog::record_view& record, blog::formatting_ostream& out) {
  const auto severity = blog::extract<BoostSeverity>("Severity", record);
  out << timestamp(record) << ' ' << (severity ? blog::trivial::to_string(*severity) : "?")
      << ' ' << record[blog::expressions::smessage];
}

void formatJson(const blog::record_view& record, blog::formatting_ostream& out) {
  const auto severity = blog::extract<BoostSeverity>("Severity", record);
  const auto message = blog::extract<std::string>("Message", record);
  out << R"({"ts":")" << timestamp(record) << R"(","level":")"
      << (severity ? blog::trivial::to_string(*severity) : "?") << R"(","msg":")"
      << jsonEscaped(message ? *message : std::string()) << "\"}";
}

}  // namespace

namespace detail {

std::atomic<int> minimumSeverity{static_cast<int>(Severity::trace)};

Line::~Line() {
  // BOOST_LOG_TRIVIAL's own record, so the sink's formatter and filter apply as before.
  BOOST_LOG_STREAM_WITH_PARAMS(blog::trivial::logger::get(),
                               (blog::keywords::severity = boostSeverity(severity_)))
      << text_.str();
}

}  // namespace detail

std::optional<Format> parseFormat(const std::string& name) {
  if (name == "text") return Format::Text;
  if (name == "json") return Format::Json;
  return std::nullopt;
}

void init(const Options& options) {
  using Sink = blog::sinks::synchronous_sink<blog::sinks::text_ostream_backend>;
  auto core = blog::core::get();
  core->remove_all_sinks();
  core->add_global_attribute("TimeStamp", blog::attributes::utc_clock());
  auto backend = boost::make_shared<blog::sinks::text_ostream_backend>();
  backend->add_stream(boost::shared_ptr<std::ostream>(&std::clog, boost::null_deleter()));
  backend->auto_flush(true);
  auto sink = boost::make_shared<Sink>(backend);
  if (options.format == Format::Json) {
    sink->set_formatter(&formatJson);
  } else {
    sink->set_formatter(&formatText);
  }
  core->add_sink(sink);
  const Severity minimum = threshold(options.verbosity);
  core->set_filter(blog::trivial::severity >= boostSeverity(minimum));
  detail::minimumSeverity.store(static_cast<int>(minimum), std::memory_order_relaxed);
}

void setSilenced(bool silenced) { blog::core::get()->set_logging_enabled(!silenced); }

}  // namespace fedhpa::logging
