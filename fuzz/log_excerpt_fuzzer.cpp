// Feeds: a job log to the bounded log reader (recovery/log_excerpt.h). The first four bytes
// choose how it is read and with which (small) limits, the rest is the log:
//   byte 0 % 3: 0 LogExcerpt::from_text, 1 read() of a regular file, 2 read() of a pipe
//   byte 1, 2: head_bytes, tail_bytes (0..255, so the cuts fall inside small inputs)
//   byte 3:    stream_bytes for the pipe (byte * 97; 0: the default 1 GiB)
// Checks: no crash, leak or UB, and what log_excerpt.h promises: every line lies inside
// text() and holds no '\n'; a complete excerpt numbers its lines 1..n and equals from_text of
// the same bytes; an incomplete one numbers head lines 1..k then tail lines -m..-1, and keeps
// no more than head_bytes + tail_bytes (+1, the byte before the tail) of the log.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "recovery/log_excerpt.h"

namespace {

void check_lines(const recovery::LogExcerpt& excerpt) {
    const auto& lines = excerpt.lines();
    const auto text = excerpt.text();
    std::int64_t expected = 1;
    bool in_tail = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& line = lines[i];
        FUZZ_CHECK(line.offset <= text.size() && line.length <= text.size() - line.offset);
        FUZZ_CHECK(excerpt.line_text(line).find('\n') == std::string_view::npos);
        FUZZ_CHECK(line.number != 0);
        if (line.number < 0 && !in_tail) {
            FUZZ_CHECK(!excerpt.complete());
            in_tail = true;
            expected = -static_cast<std::int64_t>(lines.size() - i);
        }
        FUZZ_CHECK(line.number == expected);
        ++expected;
    }
    if (in_tail) {
        FUZZ_CHECK(lines.back().number == -1);
    }
}

void check_same(const recovery::LogExcerpt& a, const recovery::LogExcerpt& b) {
    FUZZ_CHECK(a.text() == b.text());
    FUZZ_CHECK(a.lines().size() == b.lines().size());
    for (std::size_t i = 0; i < a.lines().size(); ++i) {
        FUZZ_CHECK(a.lines()[i].number == b.lines()[i].number);
        FUZZ_CHECK(a.line_text(a.lines()[i]) == b.line_text(b.lines()[i]));
    }
}

// The log through a pipe the reader opens by name, like `diagnose --log <(zcat log.gz)`.
// Returns the bytes that went into the pipe (all of them unless it filled up).
std::string read_through_pipe(std::string_view log, const recovery::ExcerptLimits& limits,
                              common::Result<recovery::LogExcerpt>& result) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        fuzz::setup_failed("pipe2");
    }
    (void)::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    std::size_t written = 0;
    while (written < log.size()) {
        const auto n = ::write(fds[1], log.data() + written, log.size() - written);
        if (n <= 0) {
            break;  // full: the reader gets what fitted
        }
        written += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
    result = recovery::LogExcerpt::read("/proc/self/fd/" + std::to_string(fds[0]), limits);
    ::close(fds[0]);
    return std::string(log.substr(0, written));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const fuzz::ScratchFile file;
    fuzz::Reader input(fuzz::as_text(data, size));
    const auto mode = input.byte() % 3;
    recovery::ExcerptLimits limits;
    limits.head_bytes = input.byte();
    limits.tail_bytes = input.byte();
    if (const auto stream = input.byte(); stream != 0) {
        limits.stream_bytes = std::uint64_t{stream} * 97;
    }
    const auto log = input.rest();

    const auto whole = recovery::LogExcerpt::from_text("job.out", std::string(log));
    FUZZ_CHECK(whole.complete());
    FUZZ_CHECK(whole.file_size() == log.size());
    FUZZ_CHECK(whole.text().size() <= log.size());
    check_lines(whole);
    if (mode == 0) {
        return 0;
    }

    std::string fed(log);
    common::Result<recovery::LogExcerpt> read = tl::unexpected(common::Error{});
    if (mode == 1) {
        file.write(log);
        read = recovery::LogExcerpt::read(file.path(), limits);
        FUZZ_CHECK(read.has_value());
    } else {
        limits.streams_allowed = true;
        fed = read_through_pipe(log, limits, read);
        FUZZ_CHECK(read.has_value());
    }
    const auto& excerpt = *read;
    check_lines(excerpt);
    if (excerpt.complete()) {
        check_same(excerpt, recovery::LogExcerpt::from_text("job.out", fed));
    } else {
        FUZZ_CHECK(excerpt.text().size() <=
                   limits.head_bytes + limits.tail_bytes + 1 + excerpt.lines().size());
        if (mode == 1) {
            FUZZ_CHECK(fed.size() > limits.head_bytes + limits.tail_bytes);
        }
    }
    return 0;
}
