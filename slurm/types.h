// Plain value types that describe what slurmctld told us: job and node snapshots, and the
// small set of errors the rest of the supervisor must tell apart.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "common/clock.h"
#include "common/job_id.h"
#include "slurm/job_state.h"
#include "slurm/release.h"

namespace slurm {

using common::JobId;
using common::TimePoint;

// Whether the job shares its nodes: sbatch --exclusive (the whole node), --exclusive=user or
// =mcs (only with the same user's or MCS label's jobs), --oversubscribe; not_given: the
// partition's OverSubscribe decides.
enum class NodeSharing { not_given, exclusive, exclusive_user, exclusive_mcs, oversubscribe };

// One job as slurmctld sees it at the moment of the query.
struct JobSnapshot {
    JobId id;                      // as registered: "1234" or "1234_7"
    std::uint32_t raw_job_id = 0;  // Slurm's own id of this record (differs for array tasks)
    // An array task that has not started: it is still one of the tasks of the array's pending
    // record, so raw_job_id is that record's id, not yet the task's own (sbatch's %j).
    bool in_array_record = false;
    // The id of the array this record belongs to (sbatch --array's id); 0 for a plain job. A
    // record whose array_job_id is its own id answers for the array id itself: the array's
    // pending tasks, or the task that took the array's id.
    std::uint32_t array_job_id = 0;
    std::string name;
    std::uint32_t user_id = 0;
    JobState state = JobState::pending;
    bool completing = false;       // JOB_COMPLETING flag: still cleaning up on its nodes
    bool requeued = false;         // JOB_REQUEUE flag: being requeued right now
    bool held = false;             // priority 0: held by a user or an admin
    std::string state_reason;      // "NonZeroExitCode", "BeginTime", "None", ...
    std::optional<int> exit_code;  // exit status when the batch script exited
    std::optional<int> signal;     // signal that ended it (TIMEOUT: 15), if any
    // The worst ending of the job's srun steps so far (scontrol -d's DerivedExitCode), set only
    // when a step failed: a batch script that goes on after a failed step may still exit 0.
    std::optional<int> step_exit_code;
    std::optional<int> step_signal;
    std::uint32_t restart_count = 0;  // bumped by every requeue, ours or Slurm's
    std::string nodes;                // node list of the current/last run ("n[1-2]")
    std::string excluded_nodes;       // ExcNodeList
    std::string required_nodes;       // ReqNodeList (-w)
    std::string batch_host;
    std::string std_out;  // expanded path, as scontrol shows it
    std::string std_err;  // expanded path (same as std_out when not split)
    std::string work_dir;
    std::string partition;
    std::optional<TimePoint> submit_time;
    std::optional<TimePoint> start_time;
    std::optional<TimePoint> end_time;
    std::optional<std::chrono::minutes> time_limit;  // nullopt: unlimited
    bool requeueable = false;                        // Slurm will accept a requeue of this job
    bool batch = true;  // batch script (sbatch), not an interactive allocation
    // A component of a heterogeneous job (sbatch with ':' or `#SBATCH hetjob`): several
    // allocations that submit_request_from() cannot re-create. Registration refuses it.
    bool heterogeneous = false;

    // What the job asked for, as submit_request_from() needs it to submit it again. Slurm's
    // "not given" values (0, NO_VAL) are nullopt or empty. 22.05 does not report the open mode
    // of the output files, so there is no field for it.
    std::uint32_t num_nodes = 0;                   // minimum node count (-N min)
    std::optional<std::uint32_t> max_nodes;        // -N min-max
    std::optional<std::uint32_t> num_tasks;        // -n
    std::optional<std::uint16_t> ntasks_per_node;  // --ntasks-per-node
    std::optional<std::uint16_t> cpus_per_task;    // -c
    std::optional<std::uint64_t> pn_min_memory;    // MB, per node or (mem_per_cpu) per CPU
    bool mem_per_cpu = false;                      // pn_min_memory is --mem-per-cpu
    std::string tres_per_node;                     // --gres, as Slurm stores it ("gres:gpu:2")
    std::string account;
    std::string qos;
    std::string comment;
    std::string features;                          // -C/--constraint ("a&b", "[x|y]")
    NodeSharing sharing = NodeSharing::not_given;  // --exclusive[=user|mcs], --oversubscribe
    std::string reservation;                       // --reservation
    std::string licenses;                          // -L, as Slurm stores it ("lic:1")
    std::optional<std::uint32_t> time_min;         // --time-min, minutes
    std::int32_t nice = 0;                         // --nice adjustment; 0: not given
    std::string wckey;                             // --wckey; empty for the default ("*...")
    std::uint16_t mail_type = 0;                   // --mail-type, Slurm's MAIL_JOB_* bits
    std::string mail_user;                         // --mail-user; empty without --mail-type
    // --dependency as slurmctld reports it: the dependencies not yet fulfilled, each with its
    // state ("afterok:12(unfulfilled),afterany:13_*(failed)"); fulfilled ones are left out, so
    // a job whose dependencies are all met shows none.
    std::string dependency;
    std::string tres_per_job;                        // --gpus, as Slurm stores it
    std::string tres_per_task;                       // --gpus-per-task (24.05+: also "cpu=N")
    std::string tres_per_socket;                     // --gpus-per-socket
    std::string cpus_per_tres;                       // --cpus-per-gpu
    std::string mem_per_tres;                        // --mem-per-gpu
    std::optional<std::uint16_t> ntasks_per_tres;    // --ntasks-per-gpu
    std::string tres_bind;                           // --gpu-bind
    std::string tres_freq;                           // --gpu-freq
    std::optional<std::uint16_t> ntasks_per_socket;  // --ntasks-per-socket
    std::optional<std::uint16_t> ntasks_per_core;    // --ntasks-per-core
    std::optional<std::uint16_t> sockets_per_node;   // -B S / --sockets-per-node
    std::optional<std::uint16_t> cores_per_socket;   // -B S:C / --cores-per-socket
    std::optional<std::uint16_t> threads_per_core;   // -B S:C:T / --threads-per-core
    // The sbatch options the job uses that submit_request_from() cannot carry, as sbatch names
    // them with what the job asked ("--deadline", "--bb (burst buffer)"): registration lists
    // them. Slurm does not report every option (--signal, --kill-on-invalid-dep, ...): those
    // are neither carried nor named.
    std::vector<std::string> not_carried;
    std::string std_in;  // as given to -i (raw, not expanded)
    std::uint32_t group_id = 0;
    // Command=: the batch script's path as given to sbatch, then (only where
    // command_has_arguments) its arguments, joined by one blank each (Slurm keeps the argv
    // itself nowhere a query reads it, so an argument with a blank inside cannot be told
    // apart); empty for a script read from stdin.
    std::string command;
    // Whether slurmctld put the script's arguments into `command`: true up to Slurm 23.11;
    // from 24.05 it reports the script's path alone and the arguments cannot be read back.
    bool command_has_arguments = job_command_has_arguments();

    bool operator==(const JobSnapshot&) const = default;
};

// Result of one batched job query.
struct JobQuery {
    bool changed = true;            // false: slurmctld answered "no change since last time"
    std::vector<JobSnapshot> jobs;  // the requested jobs slurmctld knows, in request order
    std::vector<JobId> missing;     // requested ids slurmctld does not know (purged or never)
};

// What Client::load_jobs_if_changed learned: a whole answer, or only what moved since its
// previous answer about the same ids.
struct JobChanges {
    // true: `jobs` and `missing` are the whole answer, as load_jobs() gives it; replace whatever
    // you hold. false: `jobs` holds only the snapshots that are new or differ from the previous
    // answer, `missing` only the ids that answer knew and slurmctld no longer does; every other
    // job is as that answer showed it.
    bool whole = true;
    std::vector<JobSnapshot> jobs;
    std::vector<JobId> missing;
};

struct NodeSnapshot {
    std::string name;
    NodeState state = NodeState::unknown;
    bool not_responding = false;
    bool drain = false;
    std::string reason;  // admin- or slurmd-given reason ("Not responding")
    // When the reason was set. Slurm 24.11 without accounting storage keeps a "Not responding"
    // reason on a node that came back (its clearing is left to the accounting plugin): only its
    // time tells a reason of this run from one of a run before.
    std::optional<TimePoint> reason_time = std::nullopt;

    bool operator==(const NodeSnapshot&) const = default;
};

// One partition as slurmctld describes it: what decides whether a user's job may be moved there.
// An allow list that is empty allows everyone (AllowAccounts=ALL); a deny list names whom it
// refuses. AllowGroups is not kept: slurmctld knows the groups of a user, we do not.
struct PartitionSnapshot {
    std::string name;
    bool up = false;                // State=UP: takes jobs and starts them
    bool hidden = false;            // Hidden=YES
    bool root_only = false;         // RootOnly=YES: only root may submit
    bool reservation_only = false;  // ReqResv=YES: only jobs of a reservation
    std::vector<std::string> allow_accounts;
    std::vector<std::string> deny_accounts;
    std::vector<std::string> allow_qos;
    std::vector<std::string> deny_qos;
    std::string nodes;  // "n[1-3]"

    bool operator==(const PartitionSnapshot&) const = default;
};

// How a job ended according to Slurm's accounting (slurmdbd), which keeps jobs long after
// slurmctld has purged them: the job's last record.
struct AccountingRecord {
    JobState state = JobState::pending;
    std::optional<int> exit_code;    // exit status of the batch script, when it ended
    std::optional<int> signal;       // signal that ended it, if any
    std::uint32_t record_count = 1;  // records accounting holds for the id (a requeue adds one)
    std::string nodes;               // node list of the last run ("n[1-2]"), empty if none
    std::optional<TimePoint> end_time;

    bool operator==(const AccountingRecord&) const = default;
};

enum class ErrorKind {
    controller_unreachable,  // slurmctld down, timed out, or no config: try again later
    job_not_found,
    access_denied,           // not the owner and not an operator
    authentication_failure,  // munge credential rejected, expired or absent
    operation_refused,       // Slurm refused this operation in the job's state (not requeueable...)
    controller_busy,         // slurmctld's RPC rate limiter said "back off" (23.02+): try later
    release_mismatch,        // slurmctld speaks a protocol this build cannot: rebuild against it
    other,
};

[[nodiscard]] std::string_view to_string(ErrorKind kind);

struct Error {
    ErrorKind kind = ErrorKind::other;
    std::string message;  // Slurm's own words, with the operation and job that failed

    bool operator==(const Error&) const = default;
};

template <typename T>
using Result = tl::expected<T, Error>;

enum class RequeueMode {
    run_again,  // back to PENDING, eligible to run
    hold,       // back to PENDING and held until release()
};

}  // namespace slurm
