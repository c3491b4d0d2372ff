// ActionExecutor: carries out the recorded intents (actions still planned or executing),
// idempotently, so that running it again after a crash finishes the work without repeating it.
//
// Before acting it compares Slurm's restart count with the count recorded when the action was
// planned: a higher count means the requeue already happened (we crashed after acting, or
// Slurm requeued the job itself), and the action is only recorded. Slurm errors are values:
// "unreachable" leaves the action for the next cycle; a refusal fails the action and
// escalates the job. Database errors throw.
#pragma once

#include <map>
#include <optional>

#include "common/clock.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config.h"

namespace supervisor {

class ActionExecutor {
public:
    ActionExecutor(state::Store& store, slurm::Client& client, const common::Clock& clock,
                   const Config& config)
        : m_store(store), m_client(client), m_clock(clock), m_config(config) {}

    // Runs every unfinished action; `jobs` holds this cycle's snapshots. Returns how many
    // actions finished (done, failed or refused).
    int run(const std::map<common::JobId, slurm::JobSnapshot>& jobs);

private:
    // false: stop for this cycle (slurmctld unreachable)
    bool execute(const state::Action& action, const std::optional<slurm::JobSnapshot>& job);
    bool requeue(const state::Action& action, const slurm::JobSnapshot& job);
    void finish(const state::Action& action, state::ActionStatus status,
                const std::string& result, std::optional<std::uint32_t> seen_restart_count,
                bool escalate);

    state::Store& m_store;
    slurm::Client& m_client;
    const common::Clock& m_clock;
    const Config& m_config;
};

}  // namespace supervisor
