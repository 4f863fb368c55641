// Standard base64 (RFC 4648, padded): how Secret data and protobuf bytes fields appear in JSON.
#pragma once

#include <string>
#include <string_view>

namespace fedhpa::api::machinery {

std::string encodeBase64(std::string_view raw);
bool isBase64(std::string_view text);

}  // namespace fedhpa::api::machinery
