// `supervisor checkpoints DIR`: what the checkpoint finder sees in a directory — every
// candidate newest first with its layout, step, verdict and the reason, and the one a requeued
// job would resume from, after one line saying what the directory holds and which layout was
// detected (recovery/checkpoints/scan.h: describe_layout). Read-only, like the finder itself;
// needs neither a cluster nor the database. The only command that reads the wall clock for the
// finder: files modified in the last --settle seconds count as still being written, and entries
// used by name (no known layout) as not settled.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common/clock.h"
#include "common/json_text.h"
#include "common/printable.h"
#include "common/try.h"
#include "json_output.h"
#include "recovery/checkpoints/scan.h"

namespace cli {
namespace {

namespace ckpt = recovery::checkpoints;

struct CheckpointsOptions {
    std::string directory;
    std::string pattern;
    std::string marker;
    double settle_seconds = 30;
    bool all = false;
    bool json = false;
};

nlohmann::json to_json(const ckpt::Scan& scan, const std::filesystem::path& directory) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& c : scan.candidates) {
        candidates.push_back({{"path", c.path.string()},
                              {"layout", ckpt::to_string(c.layout)},
                              {"step", c.step ? nlohmann::json(*c.step) : nlohmann::json(nullptr)},
                              {"modified", format_time(c.modified)},
                              {"verdict", ckpt::to_string(c.verdict)},
                              {"reason", c.reason},
                              {"bytes_read", c.bytes_read}});
    }
    return {{"directory", directory.string()},
            {"layout_summary", ckpt::describe_layout(scan)},
            {"chosen", scan.chosen ? nlohmann::json(scan.candidates[*scan.chosen].path.string())
                                   : nlohmann::json(nullptr)},
            {"candidates", candidates},
            {"notes", scan.notes},
            {"bytes_read", scan.bytes_read}};
}

void print_text(const ckpt::Scan& scan, const std::filesystem::path& directory) {
    std::printf(
        "Checkpoints in %s, newest first (by step number; by modification time where a "
        "name has none):\n",
        common::printable(directory.string()).c_str());
    std::printf("  %s\n", common::printable(ckpt::describe_layout(scan)).c_str());
    if (!scan.candidates.empty()) {
        std::printf("  %-11s  %-11s  %9s  %-24s  %s\n", "verdict", "layout", "step", "modified",
                    "name");
    }
    for (const auto& c : scan.candidates) {
        const auto step = c.step ? std::to_string(*c.step) : std::string("-");
        std::printf("  %-11s  %-11s  %9s  %-24s  %s\n",
                    std::string(ckpt::to_string(c.verdict)).c_str(),
                    std::string(ckpt::to_string(c.layout)).c_str(), step.c_str(),
                    format_time(c.modified).c_str(),
                    common::printable((c.path.has_filename() ? c.path.filename() : c.path).string())
                        .c_str());
        if (!c.reason.empty()) {
            std::printf("      %s\n", common::printable(c.reason).c_str());
        }
    }
    for (const auto& note : scan.notes) {
        std::printf("note: %s\n", common::printable(note).c_str());
    }
    std::printf("read %llu bytes\n", static_cast<unsigned long long>(scan.bytes_read));
    if (scan.chosen) {
        std::printf("would resume from: %s\n",
                    common::printable(scan.candidates[*scan.chosen].path.string()).c_str());
    } else {
        std::printf("no usable checkpoint\n");
    }
}

common::Result<int> run_checkpoints(const CheckpointsOptions& options) {
    if (options.pattern.find('/') != std::string::npos) {
        return common::fail("--pattern '" + options.pattern + "' contains a '/'",
                            "the pattern is matched against the names directly inside the "
                            "directory; give the deeper directory instead");
    }
    ckpt::ScanOptions scan_options;
    scan_options.pattern = options.pattern;
    scan_options.marker = options.marker;
    scan_options.check_all = options.all;
    // One instant for both rules: a file of a known layout modified since is still being
    // written, and an entry used by name has not settled.
    const auto settled =
        common::SystemClock().now() - std::chrono::duration_cast<common::TimePoint::duration>(
                                          std::chrono::duration<double>(options.settle_seconds));
    scan_options.unfinished_after = settled;
    scan_options.settled_before = settled;
    const std::filesystem::path directory(options.directory);
    const auto scan = TRY(ckpt::scan(directory, scan_options));
    if (options.json) {
        std::cout << common::json_text(to_json(scan, directory), 2) << '\n';
    } else {
        print_text(scan, directory);
    }
    std::cout.flush();
    std::fflush(stdout);
    if (!scan.chosen) {
        return common::fail(
            "no usable checkpoint in " + directory.string() + " (" +
                std::to_string(scan.candidates.size()) + " candidates)",
            scan.candidates.empty()
                ? "nothing there looks like a checkpoint: for a custom layout pass --pattern "
                  "(and --marker)"
                : "every candidate was rejected or is still being written: see the reasons "
                  "above (--settle 0 accepts files modified just now)");
    }
    return 0;
}

}  // namespace

void add_checkpoints(CLI::App& app, const GlobalOptions& /*global*/, Action& action) {
    auto options = std::make_shared<CheckpointsOptions>();
    auto* command = app.add_subcommand(
        "checkpoints",
        "List the checkpoints in a directory, newest first, with the one a requeued job would "
        "resume from and why each newer one was rejected (reads structure only; changes nothing)."
        " Exit 0 when a usable checkpoint exists, 1 when none does.");
    command->add_option("DIR", options->directory, "the job's checkpoint directory")->required();
    command->add_flag("--json", options->json,
                      "print JSON: directory, layout_summary, chosen, candidates[] (path, layout, "
                      "step, modified, verdict, reason, bytes_read), notes, bytes_read");
    command
        ->add_option("--pattern", options->pattern,
                     "a glob of checkpoint names (e.g. 'ckpt_*') for a custom layout; replaces "
                     "the automatic detection of Lightning, Hugging Face, DeepSpeed, Megatron, "
                     "torch.distributed.checkpoint, torch.save and safetensors (and, where none "
                     "of those is found, of step-numbered names)")
        ->type_name("GLOB");
    command
        ->add_option("--marker", options->marker,
                     "completion marker: a directory D counts only when D/NAME exists, a file F "
                     "only when the file F+NAME exists next to it (e.g. --marker .done)")
        ->type_name("NAME");
    command
        ->add_option("--settle", options->settle_seconds,
                     "files modified in the last SECONDS count as still being written (and "
                     "step-numbered entries of no known layout as not settled)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                double seconds = -1;
                const auto* end = text.data() + text.size();
                const auto parsed = std::from_chars(text.data(), end, seconds);
                if (parsed.ec == std::errc() && parsed.ptr == end && seconds >= 0 &&
                    seconds <= 31'536'000) {
                    return {};
                }
                return "'" + text + "' is not a number of seconds from 0 to 31536000 (a year)";
            },
            "SECONDS"))
        ->type_name("SECONDS")
        ->capture_default_str();
    command->add_flag("--all", options->all,
                      "validate every candidate (default: stop at the newest usable one)");
    command->callback(
        [&action, options] { action = [options] { return run_checkpoints(*options); }; });
}

}  // namespace cli
