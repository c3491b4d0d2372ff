// One pass over the kept lines of each log, in order; RE2 per line is fine here because this
// runs once per stall, on bounded excerpts.
#include "recovery/silent_rank.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <set>

#include <re2/re2.h>

#include "common/join.h"
#include "recovery/attribution.h"
#include "recovery/detail/pattern_set.h"
#include "recovery/markers.h"

namespace recovery {
namespace {

const re2::RE2& marker_regex(MarkerKind kind) {
    static const auto compile = [](MarkerKind wanted) {
        for (const auto& marker : marker_patterns()) {
            if (marker.kind == wanted) {
                return std::make_unique<re2::RE2>(
                    re2::StringPiece(marker.pattern.data(), marker.pattern.size()),
                    detail::PatternSet::options());
            }
        }
        return std::make_unique<re2::RE2>("$^");
    };
    static const auto step = compile(MarkerKind::training_step);
    static const auto task = compile(MarkerKind::srun_task);
    return kind == MarkerKind::srun_task ? *task : *step;
}

struct RankTrack {
    std::optional<std::int64_t> step;  // highest step reported
    bool printed_after_step = false;   // a line after its last step line
    std::string last_line;
    std::string file;
    std::int64_t line = 0;
};

// What the logs say of each rank, and srun's reports of ended tasks (task -> node).
struct RankTracks {
    std::map<int, RankTrack> ranks;
    std::map<int, std::string> node_of_task;
};

RankTracks read_rank_tracks(const std::vector<LogExcerpt>& logs) {
    RankTracks tracks;
    for (const auto& log : logs) {
        for (const auto& line : log.lines()) {
            const auto text = log.line_text(line);
            const re2::StringPiece piece(text.data(), text.size());
            std::string node;
            std::string detail;
            if (re2::RE2::PartialMatch(piece, marker_regex(MarkerKind::srun_task), &node,
                                       &detail)) {
                for (const int task : srun_task_ids(detail)) {
                    tracks.node_of_task.emplace(task, node);
                }
                continue;
            }
            const auto rank = rank_from_prefix(text);
            if (!rank) {
                continue;
            }
            auto& track = tracks.ranks[*rank];
            track.last_line = std::string(text);
            track.file = log.name();
            track.line = line.number;
            std::string value;
            std::int64_t step = 0;
            if (re2::RE2::PartialMatch(piece, marker_regex(MarkerKind::training_step), &value) &&
                std::from_chars(value.data(), value.data() + value.size(), step).ec ==
                    std::errc{}) {
                track.step = std::max(track.step.value_or(step), step);
                track.printed_after_step = false;
            } else if (track.step) {
                track.printed_after_step = true;
            }
        }
    }
    return tracks;
}

// A silent rank and why it is the one.
using SingledOut = std::pair<int, std::string>;

// 1. srun saw every other task end.
std::optional<SingledOut> left_running(const RankTracks& tracks) {
    std::set<int> running;
    std::set<int> ended;
    for (const auto& [rank, track] : tracks.ranks) {
        (tracks.node_of_task.contains(rank) ? ended : running).insert(rank);
    }
    if (running.size() != 1 || ended.empty()) {
        return std::nullopt;
    }
    const int silent = *running.begin();
    return SingledOut{silent, "srun reported the tasks of ranks " + common::join(ended) +
                                  " ended; rank " + std::to_string(silent) +
                                  " is still running and silent"};
}

// 2. One rank behind all others.
std::optional<SingledOut> left_behind(const RankTracks& tracks) {
    std::map<std::int64_t, std::set<int>> by_step;
    for (const auto& [rank, track] : tracks.ranks) {
        by_step[track.step.value_or(-1)].insert(rank);
    }
    if (by_step.size() < 2) {
        return std::nullopt;  // every rank at one step: nobody is behind
    }
    const auto& [lowest, at_lowest] = *by_step.begin();
    if (at_lowest.size() != 1 || lowest < 0) {
        return std::nullopt;
    }
    const int silent = *at_lowest.begin();
    return SingledOut{silent, "rank " + std::to_string(silent) + " stopped at step " +
                                  std::to_string(lowest) + ", behind every other rank"};
}

// 3. Same step everywhere; only this rank printed nothing after it.
std::optional<SingledOut> alone_quiet(const RankTracks& tracks) {
    std::set<int> quiet;
    std::set<int> went_on;
    std::set<std::int64_t> steps;
    for (const auto& [rank, track] : tracks.ranks) {
        steps.insert(track.step.value_or(-1));
        (track.printed_after_step ? went_on : quiet).insert(rank);
    }
    if (steps.size() != 1 || *steps.begin() < 0 || quiet.size() != 1) {
        return std::nullopt;
    }
    const int silent = *quiet.begin();
    return SingledOut{silent, "every rank reached step " + std::to_string(*steps.begin()) +
                                  "; ranks " + common::join(went_on) + " printed more after it, " +
                                  "rank " + std::to_string(silent) + " nothing"};
}

// The silent rank's node: srun's report of its task, else the one node of the job without an
// ended task, else (one rank per node, no report at all) the node at its rank's position.
void place_on_node(SilentRank& result, const RankTracks& tracks,
                   const std::vector<std::string>& job_nodes) {
    if (const auto it = tracks.node_of_task.find(result.rank); it != tracks.node_of_task.end()) {
        result.node = it->second;
        return;
    }
    std::set<std::string> reported;
    for (const auto& [task, node] : tracks.node_of_task) {
        reported.insert(node);
    }
    std::vector<std::string> unreported;
    for (const auto& node : job_nodes) {
        if (!reported.contains(node)) {
            unreported.push_back(node);
        }
    }
    const auto rank = static_cast<std::size_t>(result.rank);
    if (!reported.empty() && unreported.size() == 1) {
        result.node = unreported.front();
        result.why += "; " + unreported.front() + " is the job's only node without an ended task";
    } else if (reported.empty() && job_nodes.size() == tracks.ranks.size() &&
               rank < job_nodes.size()) {
        result.node = job_nodes[rank];
        result.why += "; one rank per node, rank " + std::to_string(result.rank) + " on the " +
                      "node at that position of the job's node list";
    }
}

}  // namespace

std::optional<SilentRank> find_silent_rank(const std::vector<LogExcerpt>& logs,
                                           const std::vector<std::string>& job_nodes) {
    const auto tracks = read_rank_tracks(logs);
    if (tracks.ranks.size() < 2) {
        return std::nullopt;
    }
    auto verdict = left_running(tracks);
    if (!verdict) {
        verdict = left_behind(tracks);
    }
    if (!verdict) {
        verdict = alone_quiet(tracks);
    }
    if (!verdict) {
        return std::nullopt;
    }
    const auto& [silent, why] = *verdict;
    const auto& track = tracks.ranks.at(silent);
    SilentRank result{silent, std::nullopt, track.last_line, track.file, track.line, why};
    place_on_node(result, tracks, job_nodes);
    return result;
}

}  // namespace recovery
