// The files the shipped epilog (contrib/slurm/epilog.sh, its README has the format) leaves in the
// spool: their names and their lines. Pure functions, no I/O.
//
// A file is `<spool>/<job>.<node>`: Slurm's own id of the run's record (an array task's, not the
// array's) and the node's Slurm name. It holds `#` header lines and lines that start with an
// ISO 8601 time: "2026-11-26T01:02:03+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, ...".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace node_evidence {

// "4711.gpu-a17"; nullopt for a job id of 0 or a node name that could not have been written
// (anything but [A-Za-z0-9][A-Za-z0-9._-]*, at most 64 bytes): such a name never reaches a path.
[[nodiscard]] std::optional<std::string> epilog_file_name(std::uint32_t job, std::string_view node);

// The time a line starts with: "YYYY-MM-DDTHH:MM:SS", an optional fraction ('.' or ','), then
// "Z", "+hh:mm", "+hhmm" or nothing (UTC), then a blank. nullopt for a line without one or with
// an impossible date or time.
[[nodiscard]] std::optional<common::TimePoint> epilog_line_time(std::string_view line);

struct WindowedText {
    // The file's text with every line outside the window made empty: the line numbers of what
    // is kept are still the file's. Header lines and lines without a time are emptied too.
    std::string text;
    std::size_t kept = 0;     // lines in the window
    std::size_t outside = 0;  // timed lines outside it
    std::size_t untimed = 0;  // lines with no time (headers excluded)
};

// Keeps the lines whose time is in [from, to].
[[nodiscard]] WindowedText keep_window(std::string_view text, common::TimePoint from,
                                       common::TimePoint to);

}  // namespace node_evidence
