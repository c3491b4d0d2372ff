// Logging for the `supervisor` binary: stderr, formatted for journald when stderr is the
// journal, plus an optional log file that SIGHUP reopens (for logrotate).
//
// Under journald (JOURNAL_STREAM names stderr's device and inode, as systemd sets it for
// StandardError=journal) each line is "<N>message": N is the syslog priority journald reads
// (sd-daemon.h SD_ERR...), and there is no timestamp or level word, since the journal records
// both. Anywhere else: "[2025-01-31 12:00:00.123] [supervisor] [info] message", as before.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <spdlog/common.h>
#include <spdlog/formatter.h>

#include "common/error.h"

namespace ops {

// "trace", "debug", "info", "warn", "error". Fails naming the word and the accepted ones.
[[nodiscard]] common::Result<spdlog::level::level_enum> parse_log_level(const std::string& text);

// Whether `fd` is the stream journald gave us: `journal_stream` (the JOURNAL_STREAM value,
// "<device>:<inode>" in decimal) equals fd's st_dev:st_ino. nullptr, malformed: false.
[[nodiscard]] bool is_journal_stream(const char* journal_stream, int fd);

// The formatter of stderr lines: journal (priority prefix, no timestamp) or plain.
[[nodiscard]] std::unique_ptr<spdlog::formatter> make_formatter(bool journal);

struct LogSettings {
    std::string level = "info";
    std::filesystem::path file;  // empty: stderr only
};

// Installs the default logger "supervisor". Fails for a bad level, or a log file that cannot
// be opened for appending (naming it and the system's reason).
[[nodiscard]] common::Result<void> setup_logging(const LogSettings& settings);

// Closes and reopens the log file at its path (after logrotate moved it away); nothing when
// there is no log file. When the path cannot be opened the error goes to stderr and the file
// gets nothing until a later reopen succeeds.
void reopen_log_file();

}  // namespace ops
