// stuck_pending_reason(): whether Slurm's reason for keeping a job PENDING will pass by itself.
// Priority, resources, a begin time, a dependency still running, the group limits of an
// account or QOS (other jobs end) are normal waits and answer nullopt. A reason that needs a
// person (required nodes down or drained, a partition down, a hold by an administrator or a
// failed launch, a dependency that can never be met, an invalid account, QOS or partition, a
// per-job limit the job exceeds, constraints no node satisfies) answers what it means and what
// to do. Pure; an unknown reason is a normal wait (never report what is not understood).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace supervisor {

struct StuckPending {
    std::string reason;   // Slurm's word, as given ("ReqNodeNotAvail, UnavailableNodes:n2")
    std::string meaning;  // what it means, in plain words
    std::string what_to_do;
};

[[nodiscard]] std::optional<StuckPending> stuck_pending_reason(std::string_view slurm_reason);

}  // namespace supervisor
