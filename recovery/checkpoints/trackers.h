// Tracker files: DeepSpeed's 'latest' (the tag of the last finished save, e.g. global_step40)
// and Megatron's latest_checkpointed_iteration.txt (an iteration number, or "release"). Both
// are written after a save has finished, so a directory of the same layout with a higher step
// than the tracker names is a save that never finished: apply_trackers() rejects it. A tracker
// naming a directory that does not exist, an unreadable or unparsable tracker, or a layout
// without its tracker becomes a note; the directories are then validated on their own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "recovery/checkpoints/read_budget.h"
#include "recovery/checkpoints/types.h"

namespace recovery::checkpoints {

// Updates the not-yet-judged deepspeed and megatron candidates; adds notes and bytes read.
void apply_trackers(const std::filesystem::path& directory, std::vector<Candidate>& candidates,
                    std::vector<std::string>& notes, std::uint64_t& bytes_read, ReadBudget& budget);

}  // namespace recovery::checkpoints
