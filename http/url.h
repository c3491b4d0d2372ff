// Pieces of URLs, pure: no libcurl, no I/O.
#pragma once

#include <string>
#include <string_view>

namespace http {

// Percent-encodes every byte but ASCII letters, digits and "-._~" (RFC 3986's unreserved
// characters), as form bodies and query parameters need: "a b&c" -> "a%20b%26c".
[[nodiscard]] std::string percent_encode(std::string_view text);

// The URL with any "user:password@" replaced by "***@", for messages and logs.
[[nodiscard]] std::string redacted(std::string_view url);

}  // namespace http
