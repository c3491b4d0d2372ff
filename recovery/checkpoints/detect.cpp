// list_candidates (detect.h). Layout rules are tried in a fixed order so a directory that fits
// two (a Megatron iter_N saved in torch_dist format also holds .metadata) gets the more
// specific one; its validator then knows both forms. Step-numbered names are the last resort:
// a trainer of no known format still has to be resumable, but a name proves nothing, so they
// are used only where nothing better is there and only names that are plainly no log or
// metadata.
#include "recovery/checkpoints/detect.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "recovery/checkpoints/naming.h"

namespace recovery::checkpoints {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_deepspeed_tracker = "latest";
constexpr const char* k_megatron_tracker = "latest_checkpointed_iteration.txt";

// prefix followed by one or more digits and nothing else.
bool numbered(const std::string& name, std::string_view prefix) {
    return name.size() > prefix.size() && name.starts_with(prefix) &&
           std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool contains(const fs::path& directory, const char* name) {
    std::error_code ec;
    return fs::exists(directory / name, ec);
}

bool holds_distcp_or_metadata(const fs::path& directory, ReadBudget& budget) {
    std::error_code ec;
    if (fs::exists(directory / ".metadata", ec)) {
        return true;
    }
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end && budget.charge_entry();
         it.increment(ec)) {
        if (ends_with(it->path().filename().string(), ".distcp")) {
            return true;
        }
    }
    return false;
}

std::optional<Layout> directory_layout(const fs::path& path, const std::string& name,
                                       ReadBudget& budget) {
    if (numbered(name, "global_step")) {
        return Layout::deepspeed;
    }
    if (numbered(name, "iter_") || name == "release") {
        return Layout::megatron;
    }
    if (numbered(name, "checkpoint-") || contains(path, "trainer_state.json")) {
        return Layout::huggingface;
    }
    if (holds_distcp_or_metadata(path, budget)) {
        return Layout::torch_dcp;
    }
    return std::nullopt;
}

std::optional<Layout> file_layout(const std::string& name) {
    if (ends_with(name, ".ckpt")) {
        return Layout::lightning;
    }
    if (ends_with(name, ".pt") || ends_with(name, ".pth") || ends_with(name, ".bin")) {
        return Layout::torch_save;
    }
    if (ends_with(name, ".safetensors")) {
        return Layout::safetensors;
    }
    return std::nullopt;
}

// Kinds of the entries that are not candidates, in detect.h's order.
enum class Other : std::size_t {
    trackers,
    markers,
    logs,
    events,
    json,
    yaml,
    text,
    locks,
    scripts,
    core_dumps,
    temporary,
    files,
    directories,
    count
};
constexpr std::array<std::string_view, static_cast<std::size_t>(Other::count)> k_other_names{
    "trackers",
    "markers",
    "logs",
    "tensorboard events",
    "json",
    "yaml",
    "text",
    "lock files",
    "scripts",
    "core dumps",
    "hidden or temporary",
    "other files",
    "other directories"};

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (auto& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

// What a name says it is when it is plainly no checkpoint (detect.h), whatever digits it has:
// a log, a metadata or text file, a lock, a script, a core dump, Lightning's version_N.
std::optional<Other> non_checkpoint_kind(std::string_view raw, bool directory) {
    const auto name = lowercase(raw);
    if (name.starts_with("events.out.tfevents") || name.find(".tfevents") != std::string::npos) {
        return Other::events;
    }
    if (name == "core" || numbered(name, "core.")) {
        return Other::core_dumps;
    }
    if (numbered(name, "version_")) {
        return directory ? Other::directories : Other::files;
    }
    // Every part after the first dot: train.log.1 is a rotated log, not step 1.
    for (auto dot = name.find('.'); dot != std::string::npos;) {
        const auto next = name.find('.', dot + 1);
        const auto part = std::string_view(name).substr(
            dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1);
        if (part == "log" || part == "out" || part == "err") {
            return Other::logs;
        }
        if (part == "json") {
            return Other::json;
        }
        if (part == "yaml" || part == "yml") {
            return Other::yaml;
        }
        if (part == "txt" || part == "md" || part == "csv") {
            return Other::text;
        }
        if (part == "lock" || part == "pid") {
            return Other::locks;
        }
        if (part == "py" || part == "sh") {
            return Other::scripts;
        }
        dot = next;
    }
    return std::nullopt;
}

bool step_numbered(const std::string& name, bool directory) {
    return !non_checkpoint_kind(name, directory) && step_in_name(name).has_value();
}

common::TimePoint newest_inside(const fs::path& directory, ReadBudget& budget) {
    auto newest = modified_time(directory);
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(directory, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end && budget.charge_entry(); it.increment(ec)) {
        newest = std::max(newest, modified_time(it->path()));
    }
    return newest;
}

// How many entries of each kind were no candidate.
using OtherCounts = std::array<std::size_t, static_cast<std::size_t>(Other::count)>;

void tally_others(const OtherCounts& others, Listing& listing) {
    for (std::size_t kind = 0; kind < others.size(); ++kind) {
        listing.other_entries += others[kind];
        if (others[kind] > 0) {
            listing.other_kinds.emplace_back(k_other_names[kind]);
        }
    }
}

// One directory entry as list_candidates looks at it. Looking never follows more than the
// entry's own symlink, and an error leaves the entry a plain file of its name.
struct ListedEntry {
    fs::path path;
    std::string name;
    std::string base;  // the name without a temporary prefix or suffix
    bool temporary = false;
    bool is_symlink = false;
    bool is_directory = false;
    bool dangling = false;         // a symlink whose target is missing or cannot be looked at
    std::error_code target_error;  // why the target cannot be looked at, if it exists
};

ListedEntry entry_of(const fs::directory_entry& listed) {
    ListedEntry entry;
    entry.path = listed.path();
    entry.name = entry.path.filename().string();
    std::error_code ec;
    entry.is_symlink = listed.is_symlink(ec);
    entry.is_directory = listed.is_directory(ec);
    // A target that cannot be looked at (another user's private file, read as the job's
    // owner) is not a missing one: exists() keeps the error only then.
    entry.dangling = entry.is_symlink && !fs::exists(entry.path, entry.target_error);
    entry.temporary = is_temporary_name(entry.name);
    entry.base = entry.temporary ? strip_temporary(entry.name) : entry.name;
    return entry;
}

// The layout an entry shows (by its name, or for a directory by what it holds), or the
// declared pattern it matches; none when it is no candidate.
std::optional<Layout> layout_of(const ListedEntry& entry, const ScanOptions& options,
                                ReadBudget& budget) {
    if (!options.pattern.empty()) {
        if (glob_matches(options.pattern, entry.name) ||
            (entry.temporary && glob_matches(options.pattern, entry.base))) {
            return Layout::declared;
        }
        return std::nullopt;
    }
    auto layout = entry.is_directory ? directory_layout(entry.path, entry.base, budget)
                                     : file_layout(entry.base);
    if (!layout && step_numbered(entry.base, entry.is_directory)) {
        layout = Layout::by_name;
    }
    return layout;
}

// A candidate: its step (from its name, or its symlink target's), when it was last written,
// and the verdict it gets at once: rejected for a temporary name or a symlink to nothing.
Found found_of(const ListedEntry& entry, Layout layout, ReadBudget& budget) {
    Found found;
    found.directory = entry.is_directory;
    found.candidate.path = entry.path;
    found.candidate.layout = layout;
    found.candidate.step = step_in_name(entry.base);
    found.candidate.modified =
        entry.is_directory ? newest_inside(entry.path, budget) : modified_time(entry.path);
    std::error_code ec;
    if (entry.is_symlink) {
        const auto target = fs::read_symlink(entry.path, ec);
        found.symlink_note = "symlink to " + target.string() + "; ";
        if (!found.candidate.step && !ec) {
            found.candidate.step = step_in_name(target.filename().string());
        }
    }
    if (entry.temporary) {
        found.candidate.verdict = Verdict::rejected;
        found.candidate.reason = "temporary name";
    } else if (entry.dangling) {
        found.candidate.verdict = Verdict::rejected;
        found.candidate.reason = "symlink to " + fs::read_symlink(entry.path, ec).string() +
                                 (entry.target_error ? ", which cannot be looked at (" +
                                                           entry.target_error.message() + ")"
                                                     : ", which does not exist");
    }
    return found;
}

}  // namespace

common::TimePoint modified_time(const fs::path& path) {
    std::error_code ec;
    const auto written = fs::last_write_time(path, ec);
    if (ec) {
        return {};
    }
    return std::chrono::time_point_cast<common::TimePoint::duration>(
        std::chrono::file_clock::to_sys(written));
}

common::Result<Listing> list_candidates(const fs::path& directory, const ScanOptions& options,
                                        ReadBudget& budget) {
    std::error_code ec;
    fs::directory_iterator it(directory, ec);
    if (ec) {
        return common::fail(
            "cannot read checkpoint directory " + directory.string() + ": " + ec.message(),
            "check that the directory exists, is a directory, and is readable "
            "by the user the supervisor runs as");
    }
    Listing listing;
    OtherCounts others{};
    const auto other = [&](Other kind) { ++others[static_cast<std::size_t>(kind)]; };
    // Step-numbered entries of no known layout: candidates only if nothing else is (detect.h).
    std::vector<Found> by_name;
    // The directory itself may be one torch.distributed.checkpoint save (.metadata + shards).
    bool self_is_dcp = false;
    common::TimePoint self_modified{};
    for (fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) {
            return common::fail(
                "cannot list checkpoint directory " + directory.string() + ": " + ec.message(),
                "check the directory's permissions and the file system");
        }
        if (!budget.charge_entry()) {
            break;
        }
        ++listing.entries;
        const auto entry = entry_of(*it);
        const auto& name = entry.name;
        if (name == k_deepspeed_tracker && !entry.is_directory) {
            listing.deepspeed_tracker = true;
            other(Other::trackers);
            continue;
        }
        if (name == k_megatron_tracker && !entry.is_directory) {
            listing.megatron_tracker = true;
            other(Other::trackers);
            continue;
        }
        if (!entry.is_directory && (name == ".metadata" || ends_with(name, ".distcp"))) {
            self_is_dcp = true;
            self_modified = std::max(self_modified, modified_time(entry.path));
        }
        if (!options.marker.empty() && ends_with(name, options.marker)) {
            other(Other::markers);
            continue;
        }
        const auto layout = layout_of(entry, options, budget);
        if (!layout) {
            const auto kind = non_checkpoint_kind(name, entry.is_directory);
            other(entry.temporary      ? Other::temporary
                  : kind               ? *kind
                  : entry.is_directory ? Other::directories
                                       : Other::files);
            continue;
        }
        auto found = found_of(entry, *layout, budget);
        (*layout == Layout::by_name ? by_name : listing.found).push_back(std::move(found));
    }
    if (budget.exhausted()) {
        return common::fail("checkpoint directory " + directory.string() +
                                " was not scanned: " + budget.exhausted_because() + " (" +
                                std::to_string(listing.entries) + " entries listed)",
                            "keep the checkpoints in a directory of their own (--checkpoint-dir), "
                            "apart from logs or other tasks' files, and prune old ones");
    }
    if (self_is_dcp && options.pattern.empty()) {
        Found self;
        self.directory = true;
        self.candidate.path = directory;
        self.candidate.layout = Layout::torch_dcp;
        self.candidate.step = step_in_name((directory / "").parent_path().filename().string());
        self.candidate.modified = self_modified;
        listing.found.push_back(std::move(self));
    }
    // A name is weak evidence: step_100/ next to a Hugging Face checkpoint-100/ is more likely
    // an export, a log or an evaluation than the save the trainer resumes from, and a directory
    // whose layout is known says how that trainer names its saves.
    if (listing.found.empty()) {
        listing.found = std::move(by_name);
    } else {
        for (const auto& f : by_name) {
            other(is_temporary_name(f.candidate.path.filename().string()) ? Other::temporary
                  : f.directory                                           ? Other::directories
                                                                          : Other::files);
        }
    }
    tally_others(others, listing);
    return listing;
}

}  // namespace recovery::checkpoints
