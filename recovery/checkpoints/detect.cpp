// list_candidates (detect.h). Layout rules are tried in a fixed order so a directory that fits
// two (a Megatron iter_N saved in torch_dist format also holds .metadata) gets the more
// specific one; its validator then knows both forms.
#include "recovery/checkpoints/detect.h"

#include <algorithm>
#include <cctype>
#include <system_error>

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

bool holds_distcp_or_metadata(const fs::path& directory) {
    std::error_code ec;
    if (fs::exists(directory / ".metadata", ec)) {
        return true;
    }
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        if (ends_with(it->path().filename().string(), ".distcp")) {
            return true;
        }
    }
    return false;
}

std::optional<Layout> directory_layout(const fs::path& path, const std::string& name) {
    if (numbered(name, "global_step")) {
        return Layout::deepspeed;
    }
    if (numbered(name, "iter_") || name == "release") {
        return Layout::megatron;
    }
    if (numbered(name, "checkpoint-") || contains(path, "trainer_state.json")) {
        return Layout::huggingface;
    }
    if (holds_distcp_or_metadata(path)) {
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

common::TimePoint newest_inside(const fs::path& directory) {
    auto newest = modified_time(directory);
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(directory, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        newest = std::max(newest, modified_time(it->path()));
    }
    return newest;
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

common::Result<Listing> list_candidates(const fs::path& directory, const ScanOptions& options) {
    std::error_code ec;
    fs::directory_iterator it(directory, ec);
    if (ec) {
        return common::fail(
            "cannot read checkpoint directory " + directory.string() + ": " + ec.message(),
            "check that the directory exists, is a directory, and is readable "
            "by the user the supervisor runs as");
    }
    Listing listing;
    // The directory itself may be one torch.distributed.checkpoint save (.metadata + shards).
    bool self_is_dcp = false;
    common::TimePoint self_modified{};
    for (fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) {
            return common::fail(
                "cannot list checkpoint directory " + directory.string() + ": " + ec.message(),
                "check the directory's permissions and the file system");
        }
        const auto path = it->path();
        const auto name = path.filename().string();
        const bool is_symlink = it->is_symlink(ec);
        const bool is_directory = it->is_directory(ec);
        // A target that cannot be looked at (another user's private file, read as the job's
        // owner) is not a missing one: exists() keeps the error only then.
        std::error_code target_error;
        const bool dangling = is_symlink && !fs::exists(path, target_error);
        if (name == k_deepspeed_tracker && !is_directory) {
            listing.deepspeed_tracker = true;
            continue;
        }
        if (name == k_megatron_tracker && !is_directory) {
            listing.megatron_tracker = true;
            continue;
        }
        if (!is_directory && (name == ".metadata" || ends_with(name, ".distcp"))) {
            self_is_dcp = true;
            self_modified = std::max(self_modified, modified_time(path));
        }
        if (!options.marker.empty() && ends_with(name, options.marker)) {
            continue;
        }
        const bool temporary = is_temporary_name(name);
        const auto base = temporary ? strip_temporary(name) : name;
        std::optional<Layout> layout;
        if (!options.pattern.empty()) {
            if (glob_matches(options.pattern, name) ||
                (temporary && glob_matches(options.pattern, base))) {
                layout = Layout::declared;
            }
        } else {
            layout = is_directory ? directory_layout(path, base) : file_layout(base);
        }
        if (!layout) {
            continue;
        }
        Found found;
        found.directory = is_directory;
        found.candidate.path = path;
        found.candidate.layout = *layout;
        found.candidate.step = step_in_name(base);
        found.candidate.modified = is_directory ? newest_inside(path) : modified_time(path);
        if (is_symlink) {
            const auto target = fs::read_symlink(path, ec);
            found.symlink_note = "symlink to " + target.string() + "; ";
            if (!found.candidate.step && !ec) {
                found.candidate.step = step_in_name(target.filename().string());
            }
        }
        if (temporary) {
            found.candidate.verdict = Verdict::rejected;
            found.candidate.reason = "temporary name";
        } else if (dangling) {
            found.candidate.verdict = Verdict::rejected;
            found.candidate.reason =
                "symlink to " + fs::read_symlink(path, ec).string() +
                (target_error ? ", which cannot be looked at (" + target_error.message() + ")"
                              : ", which does not exist");
        }
        listing.found.push_back(std::move(found));
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
    return listing;
}

}  // namespace recovery::checkpoints
