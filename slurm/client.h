// slurm::Client: everything the supervisor asks of Slurm, behind one interface.
//
// LibslurmClient talks to slurmctld through libslurm; tests use tests/fakes/FakeSlurmClient.
// tests/contract/ runs one suite against both so the fake cannot drift from Slurm. Every call
// is one RPC (or none, when the cache can answer), and its name says so: load_* reads from
// slurmctld, ask_* asks it a yes/no question, the verbs change something. Errors are values;
// nothing here throws for something slurmctld said.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "slurm/release.h"
#include "slurm/submit_request.h"
#include "slurm/types.h"

namespace slurm {

class Client {
  public:
    virtual ~Client() = default;

    // The requested jobs in one batched query. Ids slurmctld does not know are listed in
    // `missing`, not reported as an error. When the cluster's job table has not changed since
    // the previous successful call, `changed` is false and the answer comes from that call.
    // Fails with controller_unreachable while slurmctld cannot be reached.
    [[nodiscard]] virtual Result<JobQuery> load_jobs(std::span<const JobId> ids) = 0;

    // For a caller that keeps the previous answer (the poll cycle): nullopt when the answer would
    // be exactly this method's previous answer for the same ids, so an unchanged cluster costs
    // no copy of N snapshots; only what differs from that answer (JobChanges::whole false) when
    // this method answered the same ids last time; otherwise the whole of load_jobs()'s answer,
    // which may differ from that previous answer even when slurmctld said "no change" (another
    // call in between saw the change first). The default answers the whole of load_jobs() every
    // time: never nullopt, correct without the saving.
    [[nodiscard]] virtual Result<std::optional<JobChanges>> load_jobs_if_changed(
        std::span<const JobId> ids) {
        auto query = load_jobs(ids);
        if (!query) {
            return tl::unexpected(std::move(query.error()));
        }
        return std::optional<JobChanges>(
            JobChanges{true, std::move(query->jobs), std::move(query->missing)});
    }

    // When slurmctld expects the pending job to start: the backfill scheduler's plan, one RPC,
    // never answered from a cache (load_jobs() repeats its previous answer while slurmctld says
    // its job table has not changed, and the plan changes without that). nullopt when it has
    // no plan, the job is not pending or slurmctld does not know it. Fails with
    // controller_unreachable while slurmctld cannot be reached.
    [[nodiscard]] virtual Result<std::optional<TimePoint>> load_expected_start(const JobId& id) = 0;

    // Every partition of the cluster, hidden ones included, in slurmctld's order; one RPC.
    // Fails with controller_unreachable while slurmctld cannot be reached.
    [[nodiscard]] virtual Result<std::vector<PartitionSnapshot>> load_partitions() = 0;

    // When slurmctld would start `job`'s request if it were submitted to `partition` now: its
    // will-run estimate, as sbatch --test-only asks it (the running jobs' time limits, and
    // roughly the pending jobs of the partition ahead of a new job; not the backfill plan).
    // The request is the job's own (user, account, QOS, node, task, CPU, memory and GRES counts,
    // time limit, node lists, constraint, reservation, licenses) without its dependencies; one
    // RPC; nothing is submitted and the job is not touched. Fails with operation_refused where
    // the request cannot run (an unknown or down partition, one its user, account or QOS may
    // not use, nodes that cannot hold it), access_denied when we are neither the job's user,
    // root nor SlurmUser, controller_unreachable while slurmctld cannot be reached.
    [[nodiscard]] virtual Result<TimePoint> ask_will_run(const JobSnapshot& job,
                                                         const std::string& partition) = 0;

    // Every job of `uid` that slurmctld still shows, in any state, one RPC. Tasks of an array
    // that started are listed as "1234_7"; those still pending in the array's one record (no
    // task id of their own yet) are that record, listed once under the array's id ("1234",
    // array_job_id 1234), for load_array_tasks to expand. Fails with controller_unreachable
    // while slurmctld cannot be reached.
    [[nodiscard]] virtual Result<std::vector<JobSnapshot>> load_user_jobs(std::uint32_t uid) = 0;

    // The task ids of job array `array_job` (its master id, as sbatch --array printed it),
    // ascending: the tasks that started and those still pending in the array's one record, one
    // RPC. Empty when `array_job` is a plain job. Fails with job_not_found for an id slurmctld
    // does not know, controller_unreachable while it cannot be reached.
    [[nodiscard]] virtual Result<std::vector<std::uint32_t>> load_array_tasks(
        std::uint32_t array_job) = 0;

    // Every node of the cluster.
    [[nodiscard]] virtual Result<std::vector<NodeSnapshot>> load_nodes() = 0;

    // Requeue a running or finished batch job (restart count +1). Fails with operation_refused
    // for a job that is not requeueable, job_not_found for an unknown id.
    [[nodiscard]] virtual Result<void> requeue(const JobId& id, RequeueMode mode) = 0;

    // Release a held job.
    [[nodiscard]] virtual Result<void> release(const JobId& id) = 0;

    // Replace the job's excluded node list (e.g. "n1,n3"; empty clears it). Only while the job
    // is pending; a running job gives operation_refused.
    [[nodiscard]] virtual Result<void> set_excluded_nodes(const JobId& id,
                                                          const std::string& nodes) = 0;

    // Replace the job's required node list (-w); empty clears it.
    [[nodiscard]] virtual Result<void> set_required_nodes(const JobId& id,
                                                          const std::string& nodes) = 0;

    [[nodiscard]] virtual Result<void> set_time_limit(const JobId& id,
                                                      std::chrono::minutes limit) = 0;

    // Earliest start of a pending job. After a requeue Slurm waits ~120 s unless told otherwise.
    [[nodiscard]] virtual Result<void> set_start_time(const JobId& id, TimePoint when) = 0;

    [[nodiscard]] virtual Result<void> cancel(const JobId& id) = 0;

    // How the job ended according to Slurm's accounting: its last record, for a job slurmctld
    // has purged. nullopt when the cluster keeps no accounting (AccountingStorageType is not
    // accounting_storage/slurmdbd; answered without asking slurmdbd) or accounting has no record
    // of the job. Fails with controller_unreachable while slurmctld or slurmdbd cannot be
    // reached (try later), other for anything else slurmdbd refuses.
    [[nodiscard]] virtual Result<std::optional<AccountingRecord>> load_accounting(
        const JobId& id) = 0;

    // Submit a new batch job; its id. Fails with access_denied when asking for another user's
    // uid/gid without being root or SlurmUser, operation_refused for a request Slurm will not
    // queue (unknown partition, node or account, a limit it can never meet, no environment...).
    [[nodiscard]] virtual Result<JobId> submit(const SubmitRequest& request) = 0;

    // The batch script slurmctld stored for the job, byte for byte. An array task answers the
    // array's one script. Fails with job_not_found for an unknown (or purged) job,
    // access_denied when we are neither its owner nor an operator, operation_refused for a job
    // that has no script (an salloc/srun allocation).
    [[nodiscard]] virtual Result<std::string> load_batch_script(const JobId& id) = 0;

    // Drain a node (no new jobs; running ones finish) with `reason`, recorded as ours. Fails
    // with access_denied unless we are an operator (ask_is_operator), operation_refused for an
    // unknown node. Undoing it (resume_node) is left to a person.
    [[nodiscard]] virtual Result<void> drain_node(const std::string& node,
                                                  const std::string& reason) = 0;

    // Resume a drained or down node (`scontrol update nodename=X state=resume`): it takes jobs
    // again and its reason is cleared. Fails with access_denied unless we are an operator,
    // operation_refused for an unknown node or one that is neither drained nor down.
    [[nodiscard]] virtual Result<void> resume_node(const std::string& node) = 0;

    // Whether slurmctld will let us act on other users' jobs and on nodes: true for uid 0 and
    // for slurmctld's SlurmUser. AdminLevel=Operator/Administrator in slurmdbd is NOT looked
    // at (such a user answers false although slurmctld would accept them). Fails only when
    // slurmctld cannot be asked for its SlurmUser.
    [[nodiscard]] virtual Result<bool> ask_is_operator() = 0;
    // The same question about any uid (who registered a job through the site daemon): uid 0
    // and SlurmUser are. Asks slurmctld for SlurmUser once (cached); fails like ask_is_operator.
    [[nodiscard]] virtual Result<bool> ask_is_operator_uid(std::uint32_t uid) = 0;

    // The Slurm release slurmctld runs ("24.11.5"), for check_compatibility() (release.h).
    // Fails with controller_unreachable while slurmctld cannot be reached, release_mismatch
    // when it speaks a protocol version this build cannot (then it cannot even say which).
    [[nodiscard]] virtual Result<Release> load_controller_release() = 0;
};

}  // namespace slurm
