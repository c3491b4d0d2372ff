// The checkpoint directories of the watched jobs, for `supervisor doctor` and `register`: what
// each holds and which layout the scanner detects, so a directory of an unknown layout (used by
// name) or with nothing usable is seen before a failure needs it. A scan reads only structure,
// within the scanner's read budget; doctor looks at a bounded number of directories so a daemon
// watching thousands of jobs does not make it slow.
#include <algorithm>
#include <string>

#include "common/printable.h"
#include "common/try.h"
#include "ops/doctor.h"
#include "recovery/checkpoints/scan.h"

namespace ops {

common::Result<std::string> checkpoint_layout_line(const std::string& directory,
                                                   const std::string& pattern,
                                                   const std::string& marker,
                                                   common::TimePoint settled_before) {
    recovery::checkpoints::ScanOptions options;
    options.pattern = pattern;
    options.marker = marker;
    options.settled_before = settled_before;
    auto scan = TRY(recovery::checkpoints::scan(directory, options));
    std::string line = recovery::checkpoints::describe_layout(scan);
    if (scan.chosen) {
        line += "; would resume from " +
                common::printable(scan.candidates[*scan.chosen].path.filename().string());
    } else if (!scan.candidates.empty()) {
        line += "; none usable now";
    }
    return line;
}

std::vector<Check> check_checkpoint_directories(std::span<const state::Registration> watched,
                                                common::TimePoint settled_before) {
    std::vector<Check> checks;
    std::size_t looked = 0;
    std::size_t skipped = 0;
    for (const auto& registration : watched) {
        if (registration.checkpoint_dir.empty()) {
            continue;
        }
        if (looked == k_checkpoint_directories_checked) {
            ++skipped;
            continue;
        }
        ++looked;
        const std::string name = "checkpoints " + registration.job.to_string();
        const auto line =
            checkpoint_layout_line(registration.checkpoint_dir, registration.checkpoint_pattern,
                                   registration.checkpoint_marker, settled_before);
        const std::string where = common::printable(registration.checkpoint_dir) + ": ";
        if (!line) {
            checks.push_back(
                {name, CheckStatus::warn, where + line.error().message, line.error().hint});
        } else if (line->find("used by name") != std::string::npos) {
            checks.push_back({name, CheckStatus::warn, where + *line,
                              "a checkpoint of no known format is used by its step number and "
                              "not validated; declare --checkpoint-pattern and "
                              "--checkpoint-marker when the job writes a completion marker"});
        } else {
            checks.push_back({name, CheckStatus::ok, where + *line, ""});
        }
    }
    if (skipped > 0) {
        checks.push_back({"checkpoints", CheckStatus::ok,
                          std::to_string(skipped) + " more checkpoint directories not looked at " +
                              "(doctor looks at the first " +
                              std::to_string(k_checkpoint_directories_checked) + ")",
                          ""});
    }
    return checks;
}

}  // namespace ops
