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

// A line as the diagnosis rules may read it: the kernel's own words, without what a user chose.
// The kernel quotes user text in some lines: a process's name (at most 15 bytes, which a user
// sets with prctl), the paths of a program and its libraries. A process named "EDAC MC0: 1 UE "
// or a library at "/home/u/NVRM: Xid (PCI:0): 79.so" would otherwise read as a node's hardware
// fault. So a line that starts with user text ("comm[pid]: segfault ... in LIB", "traps: ...",
// "audit..." with comm= and exe=) is emptied, and the quoted names of the lines kept
// ("name=COMM" of NVRM's Xid lines, "process N (COMM)", "COMM invoked oom-killer") become '?'.
// Kernel lines are "TIME NODE kernel: MESSAGE" (the epilog's format); the lines the epilog
// writes itself ("TIME NODE nvidia-smi: GPU ...", numbers it asked for) are left as they are.
[[nodiscard]] std::string kernel_words(std::string_view line);

struct WindowedText {
    // The file's text with every line outside the window made empty: the line numbers of what
    // is kept are still the file's. Header lines and lines without a time are emptied too; the
    // lines kept are their kernel_words().
    std::string text;
    std::size_t kept = 0;     // lines in the window
    std::size_t outside = 0;  // timed lines outside it
    std::size_t untimed = 0;  // lines with no time (headers excluded)
};

// Keeps the lines whose time is in [from, to].
[[nodiscard]] WindowedText keep_window(std::string_view text, common::TimePoint from,
                                       common::TimePoint to);

}  // namespace node_evidence
