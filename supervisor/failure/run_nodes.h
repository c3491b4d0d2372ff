// The nodes of the run that failed, read once: Slurm's host list as Slurm wrote it ("n[1-4]":
// shown to people, stored with the attempt, handed to the diagnosis) and the node names expanded
// from it. Everything that asks which nodes the run had (the nodes' facts and evidence, the
// silent rank, the planner's allocation, the correlation, the node verdicts) reads the names.
//
// A list that cannot be expanded (damaged, or past recovery::k_max_hosts names) has no names:
// the run's nodes are then unknown to every reader alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace supervisor {

struct RunNodes {
    std::string host_list;
    std::vector<std::string> names;

    // Expands `host_list` (recovery/hostlist.h); costs one pass over the text.
    [[nodiscard]] static RunNodes of(std::string host_list);

    [[nodiscard]] bool contains(std::string_view node) const;

    bool operator==(const RunNodes&) const = default;
};

}  // namespace supervisor
