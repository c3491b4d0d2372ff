// apply_trackers (trackers.h). A tracker is a few bytes of text; anything larger than a line is
// not a tracker and is reported rather than trusted.
#include "recovery/checkpoints/trackers.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

#include "common/trimmed.h"
#include "recovery/checkpoints/naming.h"
#include "recovery/checkpoints/read_only_file.h"

namespace recovery::checkpoints {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t k_max_tracker = 4096;

struct TrackerSpec {
    Layout layout;
    const char* file;
    const char* what;  // for notes
};

constexpr TrackerSpec k_trackers[] = {
    {Layout::deepspeed, "latest", "DeepSpeed tracker 'latest'"},
    {Layout::megatron, "latest_checkpointed_iteration.txt",
     "Megatron tracker 'latest_checkpointed_iteration.txt'"},
};

// The tracker's text, or nullopt (with a note) when absent or unreadable.
std::optional<std::string> read_tracker(const fs::path& path, const TrackerSpec& spec,
                                        std::vector<std::string>& notes, std::uint64_t& bytes_read,
                                        ReadBudget& budget) {
    auto file = ReadOnlyFile::open(path, budget);
    if (!file) {
        return std::nullopt;
    }
    std::string text;
    const bool ok = file->size() <= k_max_tracker && file->read_at(0, file->size(), text);
    bytes_read += file->bytes_read();
    text = common::trimmed(text);
    if (!ok || text.empty() || text.find('\n') != std::string::npos) {
        notes.push_back(std::string(spec.what) + " is empty or not a single tag: " +
                        "the directories are validated on their own");
        return std::nullopt;
    }
    return text;
}

// The directory a Megatron tracker names: iter_%07d, or release.
std::string megatron_directory(const std::string& text) {
    if (text == "release") {
        return text;
    }
    char name[32];
    std::snprintf(name, sizeof name, "iter_%07lld", std::stoll(text));
    return name;
}

void apply_one(const fs::path& directory, const TrackerSpec& spec,
               std::vector<Candidate>& candidates, std::vector<std::string>& notes,
               std::uint64_t& bytes_read, ReadBudget& budget) {
    const bool any = std::any_of(candidates.begin(), candidates.end(),
                                 [&](const Candidate& c) { return c.layout == spec.layout; });
    std::error_code ec;
    const auto path = directory / spec.file;
    if (!fs::exists(path, ec)) {
        if (any) {
            notes.push_back("no " + std::string(spec.what) + ": each " +
                            std::string(to_string(spec.layout)) +
                            " directory is validated on its own");
        }
        return;
    }
    const auto text = read_tracker(path, spec, notes, bytes_read, budget);
    if (!text) {
        return;
    }
    std::string named = *text;
    std::optional<std::int64_t> step;
    if (spec.layout == Layout::megatron) {
        const bool numeric = std::all_of(text->begin(), text->end(),
                                         [](unsigned char c) { return std::isdigit(c) != 0; });
        if (!numeric && *text != "release") {
            notes.push_back(std::string(spec.what) + " holds '" + *text +
                            "', neither an iteration nor 'release': ignored");
            return;
        }
        named = numeric && text->size() <= 18 ? megatron_directory(*text) : *text;
        step = numeric && text->size() <= 18 ? std::optional(std::stoll(*text)) : std::nullopt;
    } else {
        step = step_in_name(*text);
    }
    if (!fs::is_directory(directory / named, ec)) {
        notes.push_back(std::string(spec.what) + " names " + named +
                        (ec && ec != std::errc::no_such_file_or_directory
                             ? ", which cannot be looked at (" + ec.message() + ")"
                             : ", which does not exist"));
    } else {
        notes.push_back(std::string(spec.what) + " names " + named);
    }
    if (!step) {
        return;
    }
    for (auto& candidate : candidates) {
        if (candidate.layout == spec.layout && candidate.verdict == Verdict::not_checked &&
            candidate.step && *candidate.step > *step) {
            candidate.verdict = Verdict::rejected;
            candidate.reason = "newer than " + named + ", which the tracker " + spec.file +
                               " names: a save that did not finish (the tracker is written last)";
        }
    }
}

}  // namespace

void apply_trackers(const fs::path& directory, std::vector<Candidate>& candidates,
                    std::vector<std::string>& notes, std::uint64_t& bytes_read,
                    ReadBudget& budget) {
    for (const auto& spec : k_trackers) {
        apply_one(directory, spec, candidates, notes, bytes_read, budget);
    }
}

}  // namespace recovery::checkpoints
