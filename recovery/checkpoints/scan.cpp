// scan (scan.h). The cheap rejections run on every candidate, because they read nothing and a
// person reading the listing wants to see them; validation stops at the first usable one
// because reading older checkpoints would only cost time.
#include "recovery/checkpoints/scan.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "common/time_text.h"

#include "common/try.h"
#include "recovery/checkpoints/detect.h"
#include "recovery/checkpoints/directories.h"
#include "recovery/checkpoints/naming.h"
#include "recovery/checkpoints/trackers.h"

namespace recovery::checkpoints {
namespace {

namespace fs = std::filesystem;

// Stepped candidates by step, then time; unstepped by time; merged by time (scan.h).
std::vector<Found> newest_first(std::vector<Found> found) {
    std::vector<Found> stepped;
    std::vector<Found> unstepped;
    for (auto& f : found) {
        (f.candidate.step ? stepped : unstepped).push_back(std::move(f));
    }
    std::sort(stepped.begin(), stepped.end(), [](const Found& a, const Found& b) {
        const auto& x = a.candidate;
        const auto& y = b.candidate;
        if (*x.step != *y.step) {
            return *x.step > *y.step;
        }
        if (x.modified != y.modified) {
            return x.modified > y.modified;
        }
        // A symlink (last.ckpt) after the file it points to; then by name, for a stable order.
        if (a.symlink_note.empty() != b.symlink_note.empty()) {
            return a.symlink_note.empty();
        }
        return x.path < y.path;
    });
    std::sort(unstepped.begin(), unstepped.end(), [](const Found& a, const Found& b) {
        if (a.candidate.modified != b.candidate.modified) {
            return a.candidate.modified > b.candidate.modified;
        }
        return a.candidate.path < b.candidate.path;
    });
    std::vector<Found> ordered;
    ordered.reserve(stepped.size() + unstepped.size());
    auto s = stepped.begin();
    auto u = unstepped.begin();
    while (s != stepped.end() || u != unstepped.end()) {
        const bool take_unstepped =
            s == stepped.end() ||
            (u != unstepped.end() && u->candidate.modified > s->candidate.modified);
        ordered.push_back(std::move(*(take_unstepped ? u++ : s++)));
    }
    return ordered;
}

void reject(Candidate& candidate, std::string reason) {
    candidate.verdict = Verdict::rejected;
    candidate.reason = std::move(reason);
}

bool same_path(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec) && !ec) {
        return true;
    }
    return a.lexically_normal() == b.lexically_normal();
}

// restore_older_checkpoint: the checkpoint the failed run could not load, and everything newer.
void apply_older_than(const fs::path& bad, std::vector<Candidate>& candidates,
                      std::vector<std::string>& notes) {
    const auto newer = "newer than " + bad.string() + ", which the failed run could not load";
    const auto itself = std::string("the checkpoint the failed run could not load");
    // The last match: last.ckpt and the file it links to are the same checkpoint, and the
    // symlink is ordered after its target.
    const auto match = std::find_if(candidates.rbegin(), candidates.rend(),
                                    [&](const Candidate& c) { return same_path(c.path, bad); });
    if (match != candidates.rend()) {
        const auto at = std::prev(match.base());
        for (auto it = candidates.begin(); it <= at; ++it) {
            reject(*it, same_path(it->path, bad) ? itself : newer);
        }
        return;
    }
    // Gone from the directory (or never in it): compare by its step, else its time.
    if (const auto step = step_in_name(bad.filename().string())) {
        for (auto& c : candidates) {
            if (c.step && *c.step >= *step) {
                reject(c, newer);
            }
        }
        notes.push_back(bad.string() +
                        " (the checkpoint the failed run could not load) is not "
                        "among the candidates: those at step " +
                        std::to_string(*step) + " and later are skipped");
        return;
    }
    notes.push_back(bad.string() +
                    " (the checkpoint the failed run could not load) is not among "
                    "the candidates and has no step number: nothing was skipped because of it");
}

std::string seconds_after(common::TimePoint later, common::TimePoint earlier) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(later - earlier).count();
    char text[64];
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000.0);
    return text;
}

// What a usable by-name candidate's reason says: that nothing vouches for its content, and on
// what grounds it was taken.
std::string used_by_name(const std::string& what, bool newest, bool settle_checked) {
    std::string grounds = newest ? "newest " : "";
    grounds += settle_checked ? "settled step-numbered entry"
                              : "step-numbered entry, settle time not checked";
    if (!newest) {
        grounds += ", older than the one chosen";
    }
    return "used by name: no known checkpoint format to validate (" + grounds + "; " + what + ")";
}

std::string counted(std::size_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool has_marker(const Found& found, const std::string& marker) {
    std::error_code ec;
    const auto& path = found.candidate.path;
    return found.directory ? fs::exists(path / marker, ec)
                           : fs::exists(fs::path(path.string() + marker), ec);
}

}  // namespace

common::Result<Scan> scan(const fs::path& directory, const ScanOptions& options) {
    // One budget for the whole scan: listing the directory costs entries, validating costs
    // bytes, both cost time.
    ReadBudget budget(options.limits, options.budget_clock
                                          ? options.budget_clock
                                          : ReadBudget::Now(&std::chrono::steady_clock::now));
    auto listing = TRY(list_candidates(directory, options, budget));
    auto found = newest_first(std::move(listing.found));
    Scan result;
    result.candidates.reserve(found.size());
    for (const auto& f : found) {
        result.candidates.push_back(f.candidate);
    }
    auto& candidates = result.candidates;
    result.entries = listing.entries;
    result.other_entries = listing.other_entries;
    result.other_kinds = std::move(listing.other_kinds);
    if (candidates.empty()) {
        result.notes.push_back(options.pattern.empty()
                                   ? "no checkpoint of a known layout in " + directory.string()
                                   : "nothing in " + directory.string() + " matches the pattern '" +
                                         options.pattern + "'");
    } else if (candidates.front().layout == Layout::by_name) {
        result.notes.push_back(
            "no checkpoint of a known layout in " + directory.string() + ": " +
            counted(candidates.size(), "step-numbered entry is", "step-numbered entries are") +
            " used by name; none can be validated (only their kind, size and time are checked)");
    }
    if (options.older_than) {
        apply_older_than(*options.older_than, candidates, result.notes);
    }
    apply_trackers(directory, candidates, result.notes, result.bytes_read, budget);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        auto& c = candidates[i];
        if (c.verdict != Verdict::not_checked) {
            continue;
        }
        // Before the cut-off rule: for a by-name entry the settle time is the whole story.
        if (c.layout == Layout::by_name && options.settled_before &&
            c.modified > *options.settled_before) {
            reject(c, "modified within the settle time (at " + common::format_time(c.modified) +
                          "); it may still be being written");
            c.unsettled = true;
        } else if (options.unfinished_after && c.modified > *options.unfinished_after) {
            reject(c, "still being written: modified " +
                          seconds_after(c.modified, *options.unfinished_after) +
                          " after the cut-off");
        } else if (!options.marker.empty() && !has_marker(found[i], options.marker)) {
            reject(c, "completion marker " +
                          (found[i].directory ? c.path.filename().string() + "/" + options.marker
                                              : c.path.filename().string() + options.marker) +
                          " missing");
        }
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        auto& c = candidates[i];
        if (c.verdict != Verdict::not_checked) {
            continue;
        }
        const auto validation = c.layout == Layout::by_name ? validate_by_name(c.path, budget)
                                : found[i].directory ? validate_directory(c.path, c.layout, budget)
                                                     : validate_file(c.path, budget);
        c.bytes_read = validation.bytes_read;
        result.bytes_read += validation.bytes_read;
        if (budget.exhausted()) {
            // What this one could not finish says nothing about it; neither does silence
            // about the older ones.
            c.reason = budget.exhausted_because();
            result.notes.push_back(
                "validation stopped at " + c.path.filename().string() + ": " +
                budget.exhausted_because() +
                "; it and the older candidates were not checked (a directory built to be "
                "expensive to read, or a very slow filesystem)");
            break;
        }
        c.verdict = validation.ok ? Verdict::usable : Verdict::rejected;
        c.reason = found[i].symlink_note + (c.layout == Layout::by_name && validation.ok
                                                ? used_by_name(validation.reason, !result.chosen,
                                                               options.settled_before.has_value())
                                                : validation.reason);
        if (validation.ok && !result.chosen) {
            result.chosen = i;
            if (!options.check_all) {
                break;
            }
        }
    }
    return result;
}

std::string describe_layout(const Scan& scan) {
    if (scan.candidates.empty()) {
        if (scan.other_entries == 0) {
            return "no checkpoint candidates (empty directory)";
        }
        std::string kinds;
        for (const auto& kind : scan.other_kinds) {
            kinds += (kinds.empty() ? "" : ", ") + kind;
        }
        return "no checkpoint candidates (" +
               counted(scan.other_entries, "other entry", "other entries") +
               (kinds.empty() ? "" : ": " + kinds) + ")";
    }
    // Per layout, in Layout's order (an array indexed by it: no map, no hashing order).
    constexpr auto k_layouts = static_cast<std::size_t>(Layout::by_name) + 1;
    std::array<std::size_t, k_layouts> per_layout{};
    for (const auto& c : scan.candidates) {
        ++per_layout.at(static_cast<std::size_t>(c.layout));
    }
    const auto total = scan.candidates.size();
    const auto entries = counted(scan.entries, "entry", "entries") + "; ";
    if (per_layout[static_cast<std::size_t>(Layout::by_name)] == total) {
        return entries + "detected layout: none known; " +
               counted(total, "step-numbered entry", "step-numbered entries") +
               " used by name (newest settled one is chosen, not validated)";
    }
    if (per_layout[static_cast<std::size_t>(Layout::declared)] == total) {
        return entries + "declared pattern matched (" + counted(total, "candidate", "candidates") +
               ")";
    }
    std::string layouts;
    std::size_t kinds = 0;
    for (std::size_t i = 0; i < k_layouts; ++i) {
        if (per_layout[i] == 0) {
            continue;
        }
        layouts += (layouts.empty() ? "" : ", ") + std::string(to_string(static_cast<Layout>(i))) +
                   " (" + counted(per_layout[i], "candidate", "candidates") + ")";
        ++kinds;
    }
    return entries + (kinds == 1 ? "detected layout: " : "detected layouts: ") + layouts;
}

}  // namespace recovery::checkpoints
