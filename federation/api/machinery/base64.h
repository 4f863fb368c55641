// Standard base64 (RFC 4648, padded): how Secret data and protobuf bytes fields appear in JSON;
// and base64url, how a JWT's parts are written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fedhpa::api::machinery {

std::string encodeBase64(std::string_view raw);
bool isBase64(std::string_view text);
// nullopt when text holds anything but base64 (line breaks and spaces are skipped, as PEM-in-YAML has them).
std::optional<std::string> decodeBase64(std::string_view text);

// base64url without padding (RFC 4648 section 5, RFC 7515's encoding of a JWT's parts).
std::string encodeBase64Url(std::string_view raw);
// nullopt when text holds anything but unpadded, canonical base64url (unused bits zero).
std::optional<std::string> decodeBase64Url(std::string_view text);

}  // namespace fedhpa::api::machinery
