// printable (printable.h). Decoding is done here rather than with a library because only the
// code points to escape matter: a UTF-8 sequence is either copied whole or escaped byte by
// byte, and nothing is normalised or reinterpreted.
#include "common/printable.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace common {
namespace {

void escape_byte(std::string& out, unsigned char byte) {
    char text[8];
    std::snprintf(text, sizeof text, "\\x%02x", byte);
    out += text;
}

void escape_code_point(std::string& out, std::uint32_t code_point) {
    char text[16];
    std::snprintf(text, sizeof text, "\\u{%04x}", code_point);
    out += text;
}

// The length of the UTF-8 sequence starting at text[at] and its code point; 0 when the bytes
// there are not a well-formed sequence (overlong forms and surrogates included).
std::size_t utf8_sequence(std::string_view text, std::size_t at, std::uint32_t& code_point) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 0;
    std::uint32_t minimum = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, code_point = lead & 0x1Fu, minimum = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, code_point = lead & 0x0Fu, minimum = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, code_point = lead & 0x07u, minimum = 0x10000;
    } else {
        return 0;
    }
    if (text.size() - at < length) {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        const auto next = static_cast<unsigned char>(text[at + i]);
        if ((next & 0xC0) != 0x80) {
            return 0;
        }
        code_point = (code_point << 6) | (next & 0x3Fu);
    }
    const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
    return code_point < minimum || code_point > 0x10FFFF || surrogate ? 0 : length;
}

bool hidden_code_point(std::uint32_t c) {
    return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

// Where to cut `text` to keep at most `max_bytes`: back to the start of a UTF-8 sequence (a
// continuation byte is 10xxxxxx), never inside one.
std::size_t cut_before(std::string_view text, std::size_t max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0u) == 0x80u) {
        --cut;
    }
    return cut;
}

std::string bytes_in_all(std::string_view text) {
    return "... (" + std::to_string(text.size()) + " bytes in all)";
}

}  // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x80) {
            if (byte == '\n') {
                out += "\\n";
            } else if (byte == '\r') {
                out += "\\r";
            } else if (byte == 0x1B) {
                out += "\\e";
            } else if ((byte < 0x20 && byte != '\t') || byte == 0x7F) {
                escape_byte(out, byte);
            } else {
                out += static_cast<char>(byte);
            }
            ++at;
            continue;
        }
        std::uint32_t code_point = 0;
        const auto length = utf8_sequence(text, at, code_point);
        if (length == 0) {
            escape_byte(out, byte);
            ++at;
        } else if (hidden_code_point(code_point)) {
            escape_code_point(out, code_point);
            at += length;
        } else {
            out.append(text.substr(at, length));
            at += length;
        }
    }
    return out;
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return printable(text);
    }
    return printable(text.substr(0, cut_before(text, max_bytes))) + bytes_in_all(text);
}

std::string shortened(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return std::string(text);
    }
    return std::string(text.substr(0, cut_before(text, max_bytes))) + bytes_in_all(text);
}

}  // namespace common
