// A subject with any byte outside printable ASCII is sent as one RFC 2047 encoded word per
// chunk of 45 bytes (60 base64 characters, so each folded line stays under 78), cut only at
// UTF-8 character boundaries so no character is split between words.
#include "notify/email_payload.h"

#include <ctime>

namespace notify {
namespace {

constexpr std::size_t k_line_limit = 998;

std::string one_line(const std::string& value) {
    std::string out;
    for (const char c : value) {
        out += c == '\r' || c == '\n' ? ' ' : c;
    }
    return out;
}

bool plain_ascii(const std::string& text) {
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u > 0x7e) {
            return false;
        }
    }
    return true;
}

std::string base64(std::string_view bytes) {
    static constexpr char k_alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                           static_cast<unsigned char>(bytes[i + 2]);
        out += {k_alphabet[v >> 18], k_alphabet[(v >> 12) & 63], k_alphabet[(v >> 6) & 63],
                k_alphabet[v & 63]};
    }
    if (i + 1 == bytes.size()) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        out += {k_alphabet[v >> 18], k_alphabet[(v >> 12) & 63], '=', '='};
    } else if (i + 2 == bytes.size()) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                           (static_cast<unsigned char>(bytes[i + 1]) << 8);
        out += {k_alphabet[v >> 18], k_alphabet[(v >> 12) & 63], k_alphabet[(v >> 6) & 63], '='};
    }
    return out;
}

std::string encoded_subject(const std::string& subject) {
    if (plain_ascii(subject)) {
        return subject;
    }
    std::string out;
    std::size_t start = 0;
    while (start < subject.size()) {
        std::size_t end = std::min(subject.size(), start + 45);
        while (end < subject.size() && (static_cast<unsigned char>(subject[end]) & 0xC0) == 0x80) {
            --end;  // do not split a UTF-8 sequence
        }
        out += (out.empty() ? "" : "\r\n ") + std::string("=?UTF-8?B?") +
               base64(std::string_view(subject).substr(start, end - start)) + "?=";
        start = end;
    }
    return out;
}

}  // namespace

std::string rfc5322_date(long long unix_seconds) {
    const std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm utc{};
    gmtime_r(&t, &utc);
    static constexpr const char* k_days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* k_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%s, %02d %s %04d %02d:%02d:%02d +0000",
                  k_days[utc.tm_wday], utc.tm_mday, k_months[utc.tm_mon], utc.tm_year + 1900,
                  utc.tm_hour, utc.tm_min, utc.tm_sec);
    return buffer;
}

std::string email_payload(const EmailHeaders& headers, const std::string& body) {
    std::string text;
    text += "Date: " + one_line(headers.date) + "\r\n";
    text += "From: <" + one_line(headers.from) + ">\r\n";
    text += "To: <" + one_line(headers.to) + ">\r\n";
    text += "Subject: " + encoded_subject(one_line(headers.subject)) + "\r\n";
    text += "Message-ID: <" + one_line(headers.message_id) + ">\r\n";
    text += "MIME-Version: 1.0\r\n";
    text += "Content-Type: text/plain; charset=utf-8\r\n";
    text += "Content-Transfer-Encoding: 8bit\r\n";
    text += "Auto-Submitted: auto-generated\r\n";
    text += "\r\n";
    std::size_t start = 0;
    while (start <= body.size()) {
        auto end = body.find('\n', start);
        if (end == std::string::npos) {
            end = body.size();
        }
        std::string line = body.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.size() > k_line_limit) {
            line.resize(k_line_limit);
        }
        if (end < body.size() || !line.empty()) {
            text += line + "\r\n";
        }
        start = end + 1;
    }
    return text;
}

}  // namespace notify
