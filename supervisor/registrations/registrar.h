// register_job(): `supervisor register` as a function over the store and the Slurm client.
//
// Fails (value, nothing written) for: a job slurmctld does not know, a job already registered
// (unless its registration ended in credential_error or was unregistered: then it is checked
// again in place, keeping its history), an invalid whitelist entry or knob (two knobs of one
// name, or a variable used twice), resubmit whitelisted for a job whose script slurmctld will
// not give us, and when slurmctld cannot be reached. Declared knobs start the job's resume
// environment (BATCH_SIZE=64); the job's time limit becomes the time_limit knob. A progress
// pattern that is not a valid regular expression fails too, and so does an expected rate that is
// negative, too large, or given without a progress pattern. Otherwise the registration is written
// as `pending`, checked, and left `enabled` or `credential_error` (with the reason and the fix) —
// both are successes here.
#pragma once

#include <sys/types.h>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config/config.h"

namespace supervisor {

struct RegisterRequest {
    common::JobId job;
    std::string checkpoint_dir;
    std::string checkpoint_pattern;            // glob of checkpoint names; empty: auto-detect
    std::string checkpoint_marker;             // completion marker; empty: none
    std::vector<std::string> allowed_actions;  // whitelist entries; default: requeue
    std::vector<std::string> knobs;            // "batch_size=64:env=BATCH_SIZE:min=8", ...
    std::uint32_t max_attempts = 3;
    std::vector<std::string> notify;
    // Stall detection (stall.h): seconds without log growth (or without a new line matching
    // progress_pattern, when given) after which a RUNNING job counts as hung; 0: off.
    std::int64_t stall_timeout_s = state::k_default_stall_timeout_s;
    std::string progress_pattern;
    // The steps per hour the owner expects (expected_rate.h); 0: none. Needs progress_pattern:
    // the rate is read from the step numbers of its lines.
    std::int64_t expect_steps_per_hour = 0;
    uid_t caller = 0;
    // With resubmit whitelisted: the environment a resubmitted job gets ("NAME=value"), the
    // registering shell's as sbatch would export it. SLURM_* and the job contract's own
    // SUPERVISOR_RESUME_FROM and SUPERVISOR_ATTEMPT are dropped.
    std::vector<std::string> environment;
    // With resubmit whitelisted: the script's path and arguments exactly as submitted (`supervisor
    // sbatch` knows them). Empty: taken from Slurm's Command=, split at blanks.
    std::vector<std::string> script_argv;
    // `job` is one task of an array registered whole: its end goes into the array's summary.
    bool whole_array = false;
};

// The checks of a request that need neither Slurm nor the store (whitelist, targets, knobs,
// timeout, progress pattern, expected rate, attempt budget): the CLI runs them before it connects
// anywhere, so a typo is reported as itself, not as an unreachable cluster. register_job runs them
// too.
[[nodiscard]] common::Result<void> check_request(const RegisterRequest& request);

[[nodiscard]] common::Result<state::Registration> register_job(state::Store& store,
                                                               slurm::Client& client,
                                                               const common::Clock& clock,
                                                               const Config& config,
                                                               const RegisterRequest& request);

// `supervisor register ID ID ...` and `--mine`: the same options for many jobs, with one Slurm
// query for all of them and one transaction for all their rows (the registration checks run
// before it; each row is written with its verdict, enabled or credential_error). One result per
// job in `jobs`' order; a job fails alone (unknown, already registered, named twice, its
// script not given for resubmit); an invalid request or an unreachable slurmctld fails them all.
struct BulkRegistration {
    common::JobId job;
    common::Result<state::Registration> result;
};
[[nodiscard]] std::vector<BulkRegistration> register_jobs(
    state::Store& store, slurm::Client& client, const common::Clock& clock, const Config& config,
    const RegisterRequest& options, std::span<const common::JobId> jobs);

// `ids` with each array id (a job id without a task that names a job array, as sbatch --array
// printed it) replaced by the ids of all its tasks, present and future, in task order; other
// ids as they are, each id once. `arrays` lists the array ids that were replaced. One job query for
// all ids, then one more per array. Fails when slurmctld cannot be reached.
struct ExpandedJobs {
    std::vector<common::JobId> jobs;
    std::vector<common::JobId> arrays;
};
[[nodiscard]] common::Result<ExpandedJobs> expand_arrays(slurm::Client& client,
                                                         std::span<const common::JobId> ids);

// With resubmit whitelisted, the sbatch options the job uses that a resubmit cannot reproduce
// (slurm::options_not_carried, and the environment: --export), as its latest registration
// recorded them in the journal (the "registered" event; each also has a "resubmit_limits"
// event for a person). Empty for a job registered without resubmit, or never registered.
[[nodiscard]] std::vector<std::string> resubmit_not_carried(const state::Store& store,
                                                            const common::JobId& job);

// `supervisor unregister`: stop watching, keep the history. Fails when the job is unknown.
[[nodiscard]] common::Result<void> unregister_job(state::Store& store, const common::Clock& clock,
                                                  const common::JobId& job);

}  // namespace supervisor
