// The epilog writes UTC with "+00:00", but a kernel log file it copied lines from may not have
// (the file: source keeps any zone a line had until the epilog rewrites it), so the parser takes
// every form the epilog itself reads. Out-of-window lines are emptied rather than removed so
// that an evidence line's number still points at the file's line a person can look up.
#include "node_evidence/epilog_file.h"

#include <algorithm>
#include <cctype>
#include <chrono>

namespace node_evidence {
namespace {

// The latest year a line's time may name: that of the latest time the product holds.
constexpr std::chrono::year k_latest_year =
    std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(common::latest_time())}
        .year();

bool digit(char c) {
    return c >= '0' && c <= '9';
}

// The number in text[at, at + count) when all of it is digits.
std::optional<int> number(std::string_view text, std::size_t at, std::size_t count) {
    if (at + count > text.size()) {
        return std::nullopt;
    }
    int value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (!digit(text[i])) {
            return std::nullopt;
        }
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

bool node_char(char c, bool first) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) != 0 || (!first && (c == '.' || c == '_' || c == '-'));
}

}  // namespace

std::optional<std::string> epilog_file_name(std::uint32_t job, std::string_view node) {
    if (job == 0 || node.empty() || node.size() > 64) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
        if (!node_char(node[i], i == 0)) {
            return std::nullopt;
        }
    }
    return std::to_string(job) + "." + std::string(node);
}

std::optional<common::TimePoint> epilog_line_time(std::string_view line) {
    using namespace std::chrono;
    const auto year = number(line, 0, 4), month = number(line, 5, 2), day = number(line, 8, 2);
    const auto hour = number(line, 11, 2), minute = number(line, 14, 2),
               second = number(line, 17, 2);
    if (!year || !month || !day || !hour || !minute || !second || line[4] != '-' ||
        line[7] != '-' || line[10] != 'T' || line[13] != ':' || line[16] != ':') {
        return std::nullopt;
    }
    const year_month_day date{std::chrono::year{*year},
                              std::chrono::month{static_cast<unsigned>(*month)},
                              std::chrono::day{static_cast<unsigned>(*day)}};
    // A TimePoint ends in 2262: a later year would wrap into the past, maybe into the run's
    // window. No kernel line is dated past common::latest_time()'s year.
    if (!date.ok() || date.year() > k_latest_year || *hour > 23 || *minute > 59 || *second > 60) {
        return std::nullopt;
    }
    std::size_t at = 19;
    if (at < line.size() && (line[at] == '.' || line[at] == ',')) {
        ++at;
        const std::size_t digits = at;
        while (at < line.size() && digit(line[at])) {
            ++at;
        }
        if (at == digits) {
            return std::nullopt;
        }
    }
    seconds offset{0};
    if (at < line.size() && line[at] == 'Z') {
        ++at;
    } else if (at < line.size() && (line[at] == '+' || line[at] == '-')) {
        const bool west = line[at] == '-';
        const auto zone_hours = number(line, at + 1, 2);
        std::size_t minutes_at = at + 3;
        if (minutes_at < line.size() && line[minutes_at] == ':') {
            ++minutes_at;
        }
        const auto zone_minutes = number(line, minutes_at, 2);
        if (!zone_hours || !zone_minutes || *zone_hours > 23 || *zone_minutes > 59) {
            return std::nullopt;
        }
        offset = hours{*zone_hours} + minutes{*zone_minutes};
        if (west) {
            offset = -offset;
        }
        at = minutes_at + 2;
    }
    if (at >= line.size() || line[at] != ' ') {
        return std::nullopt;
    }
    const auto local = sys_days{date} + hours{*hour} + minutes{*minute} + seconds{*second};
    return time_point_cast<common::TimePoint::duration>(local - offset);
}

namespace {

// TASK_COMM_LEN - 1: the longest name a process can give itself.
constexpr std::size_t k_comm_bytes = 15;

// The name that starts at `begin` made '?': it ends at the last `separator` the kernel may have
// put after it (a name may hold the separator itself), or after k_comm_bytes without one.
void mask_name(std::string& message, std::size_t begin, std::string_view separator) {
    auto end = std::min(message.size(), begin + k_comm_bytes);
    for (auto at = message.find(separator, begin); at != std::string::npos && at <= end;
         at = message.find(separator, at + 1)) {
        end = at;
    }
    message.replace(begin, end - begin, "?");
}

// NVRM's "pid=N, name=COMM, ": COMM made '?'.
void mask_names_after_name_key(std::string& message) {
    constexpr std::string_view k_key = "name=";
    for (auto at = message.find(k_key); at != std::string::npos; at = message.find(k_key, at + 1)) {
        mask_name(message, at + k_key.size(), ", ");
    }
}

// "process 1234 (COMM)" (the OOM killer's lines): COMM made '?'.
void mask_process_names(std::string& message) {
    constexpr std::string_view k_key = "process ";
    for (auto at = message.find(k_key); at != std::string::npos; at = message.find(k_key, at + 1)) {
        auto open = at + k_key.size();
        while (open < message.size() && message[open] >= '0' && message[open] <= '9') {
            ++open;
        }
        if (open > at + k_key.size() && message.compare(open, 2, " (") == 0) {
            mask_name(message, open + 2, ")");
        }
    }
}

// "comm[1234]: " at the start: a line the kernel begins with a process's name.
bool starts_with_process(std::string_view message) {
    const auto open = message.find('[');
    if (open == 0 || open == std::string_view::npos || open > k_comm_bytes) {
        return false;
    }
    auto at = open + 1;
    while (at < message.size() && message[at] >= '0' && message[at] <= '9') {
        ++at;
    }
    return at > open + 1 && message.substr(at).starts_with("]: ");
}

}  // namespace

std::string kernel_words(std::string_view line) {
    constexpr std::string_view k_tag = " kernel: ";
    const auto tag = line.find(k_tag);
    if (tag == std::string_view::npos) {
        return std::string(line);  // the epilog's own lines ("NODE nvidia-smi: ...") quote nobody
    }
    const auto head = line.substr(0, tag + k_tag.size());
    std::string message(line.substr(tag + k_tag.size()));
    if (message.starts_with("audit") || message.starts_with("traps: ") ||
        starts_with_process(message)) {
        return {};
    }
    if (const auto invoked = message.find(" invoked oom-killer"); invoked != std::string::npos) {
        message.replace(0, invoked, "?");
    }
    mask_names_after_name_key(message);
    mask_process_names(message);
    return std::string(head) + message;
}

WindowedText keep_window(std::string_view text, common::TimePoint from, common::TimePoint to) {
    WindowedText kept;
    kept.text.reserve(text.size());
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        const bool last = end == std::string_view::npos;
        if (last) {
            end = text.size();
        }
        const auto line = text.substr(start, end - start);
        if (!line.empty() && line.front() != '#') {
            const auto when = epilog_line_time(line);
            if (!when) {
                ++kept.untimed;
            } else if (*when < from || *when > to) {
                ++kept.outside;
            } else {
                ++kept.kept;
                kept.text += kernel_words(line);
            }
        }
        if (!last) {
            kept.text += '\n';
        }
        start = end + 1;
    }
    return kept;
}

}  // namespace node_evidence
