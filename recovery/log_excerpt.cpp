// Bounded log reading. Regular files are read with two pread() calls (head and tail) after one
// fstat(), so a 2 GB log costs the same as a 5 MB one. Pipes cannot seek, so they are streamed
// through a rolling tail buffer that never holds more than twice the tail bound, and stop at
// limits.stream_bytes. Opening never blocks and refuses devices (common/input_file.h).
#include "recovery/log_excerpt.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/input_file.h"
#include "common/try.h"

namespace recovery {
namespace {

common::Error io_error(const std::filesystem::path& path, std::string_view what, int err) {
    return common::Error{
        "cannot " + std::string(what) + " log '" + path.string() + "': " + std::strerror(err),
        "check that the path exists and that the supervisor's user can read it"};
}

// Fills `out` with up to `size` bytes at `offset`; a short read at end of file is not an
// error (the file may have been truncated since fstat).
common::Result<std::string> pread_exact(int fd, const std::filesystem::path& path,
                                        std::uint64_t offset, std::uint64_t size) {
    std::string out(size, '\0');
    std::size_t done = 0;
    while (done < size) {
        const auto got =
            ::pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return tl::unexpected(io_error(path, "read", errno));
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    out.resize(done);
    return out;
}

// Pipes and other non-seekable files: keep the first head_bytes, and a rolling window of the
// last tail_bytes (compacted whenever it reaches twice that, so memory stays bounded).
common::Result<void> read_stream(int fd, const std::filesystem::path& path,
                                 const ExcerptLimits& limits, std::string& head, std::string& tail,
                                 std::uint64_t& total, bool& capped) {
    std::string buffer(64 * 1024, '\0');
    for (;;) {
        const auto got = ::read(fd, buffer.data(), buffer.size());
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return tl::unexpected(io_error(path, "read", errno));
        }
        if (got == 0) {
            break;
        }
        std::string_view chunk(buffer.data(), static_cast<std::size_t>(got));
        if (total + chunk.size() > limits.stream_bytes) {
            chunk = chunk.substr(0, limits.stream_bytes - total);
        }
        total += chunk.size();
        if (head.size() < limits.head_bytes) {
            const auto take =
                std::min<std::uint64_t>(limits.head_bytes - head.size(), chunk.size());
            head.append(chunk.substr(0, take));
            chunk.remove_prefix(take);
        }
        tail.append(chunk);
        if (tail.size() >= 2 * limits.tail_bytes + buffer.size()) {
            tail.erase(0, tail.size() - limits.tail_bytes - 1);
        }
        if (total >= limits.stream_bytes) {
            capped = true;  // a stream that does not end (or is too long): what we have
            break;
        }
    }
    return {};
}

}  // namespace

common::Result<LogExcerpt> LogExcerpt::read(const std::filesystem::path& path,
                                            ExcerptLimits limits) {
    auto file =
        common::InputFile::open(path, limits.streams_allowed ? common::FileKinds::regular_or_stream
                                                             : common::FileKinds::regular_only);
    if (!file) {
        return tl::unexpected(common::Error{"log: " + file.error().message,
                                            file.error().hint.empty()
                                                ? "check that the path exists and that the "
                                                  "supervisor's user can read it"
                                                : file.error().hint});
    }
    const int fd = file->fd();
    if (!file->is_regular()) {
        std::string head;
        std::string tail;
        std::uint64_t total = 0;
        bool capped = false;
        TRY(read_stream(fd, path, limits, head, tail, total, capped));
        if (!capped && head.size() + tail.size() == total && tail.size() <= limits.tail_bytes) {
            head += tail;
            return assemble(path.string(), std::move(head), {}, total, true);
        }
        // Keep one byte before the tail so a tail that starts on a line boundary keeps its
        // first line (see assemble()).
        if (tail.size() > limits.tail_bytes + 1) {
            tail.erase(0, tail.size() - limits.tail_bytes - 1);
        }
        return assemble(path.string(), std::move(head), std::move(tail), total, false);
    }

    const auto size = file->size();
    // Written so that no sum can wrap around (the limits come from the command line).
    if (size <= limits.head_bytes || size - limits.head_bytes <= limits.tail_bytes) {
        auto all = TRY(pread_exact(fd, path, 0, size));
        const auto actual = all.size();
        return assemble(path.string(), std::move(all), {}, actual, true);
    }
    auto head = TRY(pread_exact(fd, path, 0, limits.head_bytes));
    // One byte more than the bound, from before the tail: if it is a newline, the tail starts on
    // a line boundary and its first line is whole (size > head + tail, so this stays clear of
    // the head).
    auto tail = TRY(pread_exact(fd, path, size - limits.tail_bytes - 1, limits.tail_bytes + 1));
    return assemble(path.string(), std::move(head), std::move(tail), size, false);
}

LogExcerpt LogExcerpt::from_text(std::string name, std::string text) {
    const auto size = text.size();
    return assemble(std::move(name), std::move(text), {}, size, true);
}

LogExcerpt LogExcerpt::assemble(std::string name, std::string head, std::string tail,
                                std::uint64_t file_size, bool complete) {
    LogExcerpt excerpt;
    excerpt.m_name = std::move(name);
    excerpt.m_file_size = file_size;

    // Split one region into lines. `drop_first`/`drop_last` remove the partial line at a cut.
    auto split = [](std::string_view region, bool drop_first, bool drop_last) {
        std::vector<std::pair<std::size_t, std::size_t>> spans;  // offset, length in region
        std::size_t start = 0;
        if (drop_first) {
            const auto newline = region.find('\n');
            start = newline == std::string_view::npos ? region.size() : newline + 1;
        }
        while (start < region.size()) {
            const auto newline = region.find('\n', start);
            if (newline == std::string_view::npos) {
                if (!drop_last) {
                    spans.emplace_back(start, region.size() - start);
                }
                break;
            }
            spans.emplace_back(start, newline - start);
            start = newline + 1;
        }
        return spans;
    };

    auto append = [&excerpt](std::string_view region,
                             const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                             auto number_of) {
        for (std::size_t i = 0; i < spans.size(); ++i) {
            auto text = region.substr(spans[i].first, spans[i].second);
            if (!text.empty() && text.back() == '\r') {
                text.remove_suffix(1);
            }
            if (!excerpt.m_text.empty() || !excerpt.m_lines.empty()) {
                excerpt.m_text += '\n';
            }
            excerpt.m_lines.push_back(Line{number_of(i), excerpt.m_text.size(), text.size()});
            excerpt.m_text += text;
        }
    };

    if (complete) {
        const auto spans = split(head, false, false);
        append(head, spans, [](std::size_t i) { return static_cast<std::int64_t>(i) + 1; });
        return excerpt;
    }
    excerpt.m_complete = false;
    const auto kept = static_cast<std::uint64_t>(head.size() + tail.size());
    excerpt.m_skipped_bytes = file_size > kept ? file_size - kept : 0;
    const auto head_spans = split(head, false, true);
    append(head, head_spans, [](std::size_t i) { return static_cast<std::int64_t>(i) + 1; });
    const auto tail_spans = split(tail, true, false);
    const auto tail_count = static_cast<std::int64_t>(tail_spans.size());
    append(tail, tail_spans,
           [tail_count](std::size_t i) { return static_cast<std::int64_t>(i) - tail_count; });
    return excerpt;
}

std::string describe_line_number(std::int64_t number) {
    if (number < 0) {
        return std::to_string(-number) + " from the end";
    }
    return std::to_string(number);
}

}  // namespace recovery
