#include "slurm/time_limit.h"

#include <string>

namespace slurm {

Result<void> check_time_limit_storable(const JobId& id, std::chrono::minutes limit) {
    if (limit.count() >= 1 && limit.count() <= k_longest_time_limit_minutes) {
        return {};
    }
    return tl::unexpected(Error{ErrorKind::operation_refused,
                                "setting time limit " + std::to_string(limit.count()) +
                                    " min on job " + id.to_string() + ": Slurm takes 1 to " +
                                    std::to_string(k_longest_time_limit_minutes) + " minutes"});
}

}  // namespace slurm
