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

}  // namespace

std::optional<SilentRank> find_silent_rank(const std::vector<LogExcerpt>& logs,
                                           const std::vector<std::string>& job_nodes) {
    std::map<int, RankTrack> ranks;
    std::map<int, std::string> node_of_task;  // srun's reports of ended tasks
    for (const auto& log : logs) {
        for (const auto& line : log.lines()) {
            const auto text = log.line_text(line);
            const re2::StringPiece piece(text.data(), text.size());
            std::string node;
            std::string detail;
            if (re2::RE2::PartialMatch(piece, marker_regex(MarkerKind::srun_task), &node,
                                       &detail)) {
                for (const int task : srun_task_ids(detail)) {
                    node_of_task.emplace(task, node);
                }
                continue;
            }
            const auto rank = rank_from_prefix(text);
            if (!rank) {
                continue;
            }
            auto& track = ranks[*rank];
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
    if (ranks.size() < 2) {
        return std::nullopt;
    }

    std::optional<int> silent;
    std::string why;
    // 1. srun saw every other task end.
    std::set<int> running;
    std::set<int> ended;
    for (const auto& [rank, track] : ranks) {
        (node_of_task.contains(rank) ? ended : running).insert(rank);
    }
    if (running.size() == 1 && !ended.empty()) {
        silent = *running.begin();
        why = "srun reported the tasks of ranks " + common::join(ended) + " ended; rank " +
              std::to_string(*silent) + " is still running and silent";
    }
    // 2. One rank behind all others.
    if (!silent) {
        std::map<std::int64_t, std::set<int>> by_step;
        for (const auto& [rank, track] : ranks) {
            by_step[track.step.value_or(-1)].insert(rank);
        }
        if (by_step.size() >= 2 && by_step.begin()->second.size() == 1 &&
            by_step.begin()->first >= 0) {
            silent = *by_step.begin()->second.begin();
            why = "rank " + std::to_string(*silent) + " stopped at step " +
                  std::to_string(by_step.begin()->first) + ", behind every other rank";
        }
    }
    // 3. Same step everywhere; only this rank printed nothing after it.
    if (!silent) {
        std::set<int> quiet;
        std::set<int> went_on;
        std::set<std::int64_t> steps;
        for (const auto& [rank, track] : ranks) {
            steps.insert(track.step.value_or(-1));
            (track.printed_after_step ? went_on : quiet).insert(rank);
        }
        if (steps.size() == 1 && *steps.begin() >= 0 && quiet.size() == 1) {
            silent = *quiet.begin();
            why = "every rank reached step " + std::to_string(*steps.begin()) + "; ranks " +
                  common::join(went_on) + " printed more after it, rank " +
                  std::to_string(*silent) + " nothing";
        }
    }
    if (!silent) {
        return std::nullopt;
    }

    const auto& track = ranks.at(*silent);
    SilentRank result{*silent, std::nullopt, track.last_line, track.file, track.line, why};
    if (const auto it = node_of_task.find(*silent); it != node_of_task.end()) {
        result.node = it->second;
    } else {
        std::set<std::string> reported;
        for (const auto& [task, node] : node_of_task) {
            reported.insert(node);
        }
        std::vector<std::string> unreported;
        for (const auto& node : job_nodes) {
            if (!reported.contains(node)) {
                unreported.push_back(node);
            }
        }
        if (!reported.empty() && unreported.size() == 1) {
            result.node = unreported.front();
            result.why +=
                "; " + unreported.front() + " is the job's only node without an ended task";
        } else if (reported.empty() && job_nodes.size() == ranks.size() &&
                   static_cast<std::size_t>(*silent) < job_nodes.size()) {
            result.node = job_nodes[static_cast<std::size_t>(*silent)];
            result.why += "; one rank per node, rank " + std::to_string(*silent) + " on the " +
                          "node at that position of the job's node list";
        }
    }
    return result;
}

}  // namespace recovery
