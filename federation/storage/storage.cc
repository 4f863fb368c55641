#include "federation/storage/storage.h"

#include "federation/common/logging.h"

namespace fedhpa::storage {

bool deliverToWatch(const WatchCallback& onEvent, const WatchEvent& event, const std::string& watch) {
  try {
    onEvent(event);
    return true;
  } catch (const std::exception& error) {
    FEDHPA_LOG(error) << watch << ": ending it, its callback failed at revision " << event.kv.modRevision << ": "
                      << error.what();
  } catch (...) {
    FEDHPA_LOG(error) << watch << ": ending it, its callback failed at revision " << event.kv.modRevision;
  }
  return false;
}

std::string prefixEnd(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

}  // namespace fedhpa::storage
