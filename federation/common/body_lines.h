// Lines of a streamed HTTP body read through cpprestsdk: a Kubernetes watch and etcd's gateway
// watch both send one JSON message per line, for as long as the connection lasts.
#pragma once

#include <cpprest/streams.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fedhpa {

class BodyLines {
 public:
  explicit BodyLines(concurrency::streams::istream body) : body_(std::move(body)) {}

  // The next line that is not blank, without its "\n" (a "\r" before it stays: JSON parsers take
  // it as whitespace); valid until the next call. nullopt at the end of the body. Throws what
  // cpprestsdk throws when the body cannot be read (a reset connection, a cancelled request).
  std::optional<std::string_view> next();

 private:
  bool readMore();

  concurrency::streams::istream body_;
  std::string pending_;       // received; what is past consumed_ not yet returned
  std::size_t consumed_ = 0;  // returned (or skipped) up to here
  std::size_t scanned_ = 0;   // no newline in pending_ before this
};

}  // namespace fedhpa
