// How many nodes the supervisor may still drain, now, for one job: a drain takes a node away
// from every user of the cluster. So drains are the site's to allow (Config::allow_drain, off by
// default), and only on the node's own evidence (the planner: Diagnosis::
// condemned_on_node_evidence), at most drain_max_per_job nodes for one job (all its attempts),
// drain_max_per_hour in any hour across all jobs and drain_max_per_user in any hour across one
// owner's jobs (a job no longer registered counts against every owner), counted from the done
// drain actions of the journal (the nodes each one planned: a partly refused drain still counts
// whole, which errs on the safe side). The planner
// asks before it plans a drain; the executor asks again right before draining (several jobs may
// have planned drains in one cycle, or a crash may have left one in flight).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "state/store.h"
#include "supervisor/config/config.h"

namespace supervisor {

struct DrainBudget {
    std::size_t nodes = 0;  // how many more may be drained for the job now
    std::string why_none;   // when 0: the limit that stops it, for a person
};

// Reads the job's actions, the drain actions of the last hour and the registration of each
// (2 + that many queries).
[[nodiscard]] DrainBudget drain_budget(const state::Store& store, const Config& config,
                                       const common::JobId& job, common::TimePoint now);

// The nodes a done drain action drained (its "nodes" parameter).
[[nodiscard]] std::vector<std::string> drained_by(const state::Action& action);

// The drain reason Slurm records: the supervisor's own words (job, cause, Xid), never a line
// of the job's log, which its owner could fill with anything. An Xid that asks for maintenance
// (recovery/xid.h) gets the administrator's next step instead of "failed with".
[[nodiscard]] std::string drain_reason(const common::JobId& job, std::string_view cause,
                                       std::optional<int> xid);
// Whether a node's reason is a drain_reason the supervisor wrote for a job other than `job`:
// what another run showed, never evidence of this one's end. Any other reason (an
// administrator's, a health check's) is not.
[[nodiscard]] bool drained_for_another_job(std::string_view reason, const common::JobId& job);

}  // namespace supervisor
