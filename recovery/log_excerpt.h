// LogExcerpt: a bounded head and tail of one log, split into numbered lines.
//
// The only way recovery/ reads files. A training log can be many gigabytes; read() never loads
// more than limits.head_bytes from the start plus limits.tail_bytes from the end, whatever the
// file size, so the cost of a diagnosis does not grow with the log.
//
// Line numbers are honest about what was read:
//   * when the whole file fitted in head + tail (complete()), every line carries its real
//     1-based line number;
//   * otherwise head lines carry their real 1-based numbers (counted from the start, which was
//     read), and tail lines carry NEGATIVE numbers counted from the end: -1 is the last line,
//     -2 the one before. Counting the skipped middle would mean reading it, which is exactly
//     what the bound forbids. Display them as "line N from the end".
// The partial line at each cut (end of head, start of tail) is dropped rather than shown
// truncated. A trailing "\r" is stripped from every line.
//
// read() fails (Result error naming the path) when the file cannot be opened or read, or is not
// a regular file (a stream only where limits.streams_allowed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace recovery {

struct ExcerptLimits {
    static constexpr std::uint64_t k_default_head_bytes = 64 * 1024;
    static constexpr std::uint64_t k_default_tail_bytes = 4 * 1024 * 1024;
    static constexpr std::uint64_t k_default_stream_bytes = 1024ULL * 1024 * 1024;
    // The most head_bytes or tail_bytes may be (diagnose's options, the daemon's config): the
    // excerpt is held in memory, and a sum of two such bounds cannot overflow.
    static constexpr std::uint64_t k_max_bytes = 1024ULL * 1024 * 1024;

    std::uint64_t head_bytes = k_default_head_bytes;
    std::uint64_t tail_bytes = k_default_tail_bytes;
    // A FIFO or socket (`diagnose --log <(zcat log.gz)`) is read only when allowed, and then
    // at most this many bytes (a stream may never end). The daemon allows none: a job's FIFO
    // could block it forever. Devices (/dev/zero) are never read.
    bool streams_allowed = false;
    std::uint64_t stream_bytes = k_default_stream_bytes;
};

class LogExcerpt {
  public:
    struct Line {
        std::int64_t number = 0;  // > 0: from the start; < 0: from the end (see above)
        std::size_t offset = 0;   // into text()
        std::size_t length = 0;
    };

    LogExcerpt() = default;

    // Reads at most limits.head_bytes + limits.tail_bytes of the file at `path`. Works on pipes
    // and other non-seekable files too, keeping no more than the same bound in memory.
    [[nodiscard]] static common::Result<LogExcerpt> read(const std::filesystem::path& path,
                                                         ExcerptLimits limits = {});

    // The whole of `text`, already in memory (tests, pasted logs); always complete().
    [[nodiscard]] static LogExcerpt from_text(std::string name, std::string text);

    [[nodiscard]] const std::string& name() const { return m_name; }
    // The node every line of this log comes from, when the log is one node's (a kernel log an
    // epilog extracted): lines that name no host of their own are attributed to it.
    [[nodiscard]] const std::optional<std::string>& node() const { return m_node; }
    void set_node(std::string node) { m_node = std::move(node); }
    [[nodiscard]] const std::vector<Line>& lines() const { return m_lines; }
    [[nodiscard]] std::string_view line_text(const Line& line) const {
        return std::string_view(m_text).substr(line.offset, line.length);
    }
    // Kept lines separated by "\n"; lines() index into it.
    [[nodiscard]] std::string_view text() const { return m_text; }
    [[nodiscard]] bool complete() const { return m_complete; }
    [[nodiscard]] std::uint64_t file_size() const { return m_file_size; }
    [[nodiscard]] std::uint64_t skipped_bytes() const { return m_skipped_bytes; }

  private:
    static LogExcerpt assemble(std::string name, std::string head, std::string tail,
                               std::uint64_t file_size, bool complete);

    std::string m_name;
    std::optional<std::string> m_node;
    std::string m_text;
    std::vector<Line> m_lines;
    std::uint64_t m_file_size = 0;
    std::uint64_t m_skipped_bytes = 0;
    bool m_complete = true;
};

// How a line number reads to a person: "412" or "12 from the end".
[[nodiscard]] std::string describe_line_number(std::int64_t number);

}  // namespace recovery
