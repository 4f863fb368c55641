#include "federation/common/body_lines.h"

#include <algorithm>
#include <cstdint>

namespace fedhpa {

// The body is read in whatever pieces have arrived (all that is available, or one byte when
// nothing is, which waits), not a character at a time: istream::read_line costs a task
// continuation and the buffer's lock per byte, most of a controller's CPU while it watches busy
// members. Lines are returned where they lie in the buffer; what was returned is dropped from its
// front only when no whole line is left, not after each line (a piece holds dozens of them).
std::optional<std::string_view> BodyLines::next() {
  for (;;) {
    const auto newline = pending_.find('\n', scanned_);
    if (newline == std::string::npos) {
      if (consumed_ > 0) {
        pending_.erase(0, consumed_);
        consumed_ = 0;
      }
      scanned_ = pending_.size();
      if (!readMore()) return std::nullopt;
      continue;
    }
    const std::string_view line(pending_.data() + consumed_, newline - consumed_);
    consumed_ = scanned_ = newline + 1;
    if (line.empty() || line == "\r") continue;
    return line;
  }
}

// Appends what the body has (at least one byte); false at its end.
bool BodyLines::readMore() {
  auto buffer = body_.streambuf();
  // in_avail() reads the buffer's count without its lock (test/sanitizers/tsan.supp says so): a
  // stale count is only ever smaller, since the I/O thread adds bytes and only this reader takes them.
  const std::size_t want = std::clamp<std::size_t>(buffer.in_avail(), 1, 64 * 1024);
  const std::size_t had = pending_.size();
  pending_.resize(had + want);
  std::size_t read = 0;
  try {
    read = buffer.getn(reinterpret_cast<std::uint8_t*>(pending_.data() + had), want).get();
  } catch (...) {
    pending_.resize(had);
    throw;
  }
  pending_.resize(had + read);
  return read > 0;
}

}  // namespace fedhpa
