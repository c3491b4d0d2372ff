// The vocabulary of the checkpoint finder: layouts, verdicts, candidates, scan options and the
// scan's result. Plain values; see scan.h for how a scan fills them and validators.h for the
// single-file checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "recovery/checkpoints/read_budget.h"

namespace recovery::checkpoints {

// How a candidate was recognised (scan.h lists the rules per layout).
enum class Layout {
    lightning,    // *.ckpt, last.ckpt (possibly a symlink)
    huggingface,  // checkpoint-N/ with trainer_state.json
    deepspeed,    // global_stepN/ + the 'latest' tracker
    megatron,     // iter_NNNNNNN/ (or release/) + latest_checkpointed_iteration.txt
    torch_dcp,    // torch.distributed.checkpoint: a directory with .metadata + *.distcp
    torch_save,   // *.pt, *.pth, *.bin
    safetensors,  // *.safetensors
    declared,     // matched the pattern declared at registration (ScanOptions::pattern)
    by_name,      // no known layout in the directory: a step-numbered entry (detect.h), not
                  // validated structurally, usable only once settled (ScanOptions::settled_before)
};
[[nodiscard]] std::string_view to_string(Layout layout);

enum class Verdict { usable, rejected, not_checked };
[[nodiscard]] std::string_view to_string(Verdict verdict);

struct Candidate {
    std::filesystem::path path;  // file or directory
    Layout layout = Layout::torch_save;
    std::optional<std::int64_t> step;  // from the name / tracker, when known
    common::TimePoint modified{};      // newest mtime in the candidate
    Verdict verdict = Verdict::not_checked;
    std::string reason;            // why rejected, or what was verified
    std::uint64_t bytes_read = 0;  // bytes this validation read
    // Rejected for its settle time alone (ScanOptions::settled_before): it may be usable once
    // it has settled.
    bool unsettled = false;
};

struct ScanOptions {
    // Declared glob (fnmatch, no path separators) of candidate names, e.g. "ckpt_*". Empty:
    // detect the known layouts. When set, only matching entries are candidates (Layout::declared).
    std::string pattern;
    // Declared completion marker, applied to every candidate when non-empty: a directory
    // candidate D is complete only when D/<marker> exists; a file candidate F only when the
    // sibling file F<marker> exists (F = "ckpt_10.pt", marker ".done" -> "ckpt_10.pt.done").
    // Entries whose name ends with the marker are never candidates themselves.
    std::string marker;
    // Anything modified strictly after this instant is still being written (rejected).
    std::optional<common::TimePoint> unfinished_after;
    // Layout::by_name candidates modified strictly after this instant are rejected ("modified
    // within the settle time (at T); it may still be being written"): nothing in them can say
    // whether they are complete, so only quiet ones are used. Unset: no settle check.
    std::optional<common::TimePoint> settled_before;
    // Only candidates strictly older, in scan order, than this path; it and the newer ones are
    // rejected with "newer than <path>, which the failed run could not load" (a symlink and
    // the file it points to are the same checkpoint).
    std::optional<std::filesystem::path> older_than;
    // Validate every candidate. Default: newest first, stop at the first usable one (the older
    // ones stay not_checked unless their name or time already rejects them).
    bool check_all = false;
    // What the whole scan may read, in bytes and time (read_budget.h). When it runs out, the
    // candidate being validated and every later one stay not_checked and a note says why.
    ReadLimits limits;
    // The clock the time limit is measured on; steady_clock when empty (tests move their own).
    ReadBudget::Now budget_clock;
};

struct Scan {
    std::vector<Candidate> candidates;  // newest first
    std::optional<std::size_t> chosen;  // index of the one to resume from
    std::vector<std::string> notes;     // facts about the directory as a whole
    std::uint64_t bytes_read = 0;       // total over all validations
    // What the directory holds (scan.h: describe_layout): its top-level entries, and those that
    // are not candidates with their kinds ("trackers", "logs", "json", ...; detect.h), each kind
    // once, in detect.h's fixed order.
    std::size_t entries = 0;
    std::size_t other_entries = 0;
    std::vector<std::string> other_kinds;
};

// The outcome of validating one file or one directory.
struct Validation {
    bool ok = false;
    std::string reason;  // what was verified, or why it failed
    std::uint64_t bytes_read = 0;
};

}  // namespace recovery::checkpoints
