#include "http/url.h"

namespace http {

std::string percent_encode(std::string_view text) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                                (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                                byte == '_' || byte == '~';
        if (unreserved) {
            out += c;
        } else {
            out += '%';
            out += k_hex[byte >> 4];
            out += k_hex[byte & 0x0F];
        }
    }
    return out;
}

// Only the authority is looked at: an '@' in the path or the query is not a login.
std::string redacted(std::string_view url) {
    const auto scheme = url.find("://");
    const auto start = scheme == std::string_view::npos ? 0 : scheme + 3;
    const auto end = url.find_first_of("/?#", start);
    const auto authority =
        url.substr(start, end == std::string_view::npos ? url.npos : end - start);
    const auto at = authority.rfind('@');
    if (at == std::string_view::npos) {
        return std::string(url);
    }
    return std::string(url.substr(0, start)) + "***" + std::string(url.substr(start + at));
}

}  // namespace http
