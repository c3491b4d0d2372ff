// LibslurmClient: slurm::Client over libslurm (the only code that includes <slurm/slurm.h>).
//
// create() fails with a clear Error when no Slurm configuration can be found, because libslurm
// itself would end the whole process in that case. Every call is one RPC to slurmctld; the job
// query reuses the previous answer when slurmctld reports that nothing changed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/error.h"
#include "slurm/client.h"
#include "slurm/job_query_form.h"

// libslurm's job table answer (<slurm/slurm.h>, included by the sources only).
struct job_info_msg;

namespace slurm {

// The API number of the libslurm this binary runs with ("38" for libslurm.so.38; the release
// it was compiled against is compiled_release(), release.h). The ABI changes with every major
// release, so a binary must run against the libslurm it was built with.
[[nodiscard]] std::string runtime_slurm_api_version();

// Where libslurm will read its configuration: $SLURM_CONF, else the compiled-in default.
[[nodiscard]] std::string default_slurm_conf_path();

class LibslurmClient final : public Client {
  public:
    // conf_path: a slurm.conf to use (empty: $SLURM_CONF or the default path). Fails when the
    // file does not exist or cannot be read, naming the path and how to point us at the right
    // one. libslurm is initialised once per process; a second create() must name the same file.
    [[nodiscard]] static common::Result<std::unique_ptr<LibslurmClient>> create(
        const std::string& conf_path = {});

    // The cheapest of three forms of query for these ids (job_query_form.h): 1 RPC for the
    // whole table (a few bytes when slurmctld says nothing changed), 1 per owner, or 1 per job
    // number (at most 16 RPCs, 256 for root or SlurmUser, whom the rate limiter exempts).
    [[nodiscard]] Result<JobQuery> load_jobs(std::span<const JobId> ids) override;
    // load_jobs in the form given, whatever it costs (benchmarks and tests compare the forms).
    [[nodiscard]] Result<JobQuery> load_jobs_as(std::span<const JobId> ids, JobQueryForm form);
    // The form of the last job query, and what the answers so far taught about the table.
    [[nodiscard]] JobQueryForm last_query_form() const { return m_last_form; }
    [[nodiscard]] const JobTableKnowledge& job_table_knowledge() const { return m_knowledge; }
    [[nodiscard]] Result<std::optional<TimePoint>> load_expected_start(const JobId& id) override;
    [[nodiscard]] Result<std::vector<JobSnapshot>> load_user_jobs(std::uint32_t uid) override;
    // slurm_load_partitions with SHOW_ALL (hidden partitions too).
    [[nodiscard]] Result<std::vector<PartitionSnapshot>> load_partitions() override;
    // slurm_job_will_run2 with a job description built as submit() builds one, without a
    // script (an allocation's test, as salloc --test-only sends). slurmctld makes a job record
    // for the test and drops it at once: it uses up a job id, and a site's job_submit plugin
    // sees the request.
    [[nodiscard]] Result<TimePoint> ask_will_run(const JobSnapshot& job,
                                                 const std::string& partition) override;

    [[nodiscard]] Result<std::vector<std::uint32_t>> load_array_tasks(
        std::uint32_t array_job) override;
    [[nodiscard]] Result<std::vector<NodeSnapshot>> load_nodes() override;
    [[nodiscard]] Result<void> requeue(const JobId& id, RequeueMode mode) override;
    [[nodiscard]] Result<void> release(const JobId& id) override;
    [[nodiscard]] Result<void> set_excluded_nodes(const JobId& id,
                                                  const std::string& nodes) override;
    [[nodiscard]] Result<void> set_required_nodes(const JobId& id,
                                                  const std::string& nodes) override;
    [[nodiscard]] Result<void> set_time_limit(const JobId& id, std::chrono::minutes limit) override;
    [[nodiscard]] Result<void> set_start_time(const JobId& id, TimePoint when) override;
    [[nodiscard]] Result<void> cancel(const JobId& id) override;
    // Asks slurmctld once for AccountingStorageType (cached for this client's life): nullopt at
    // once unless it is accounting_storage/slurmdbd. Otherwise one connection to slurmdbd and
    // one query per call (every run of the id, the last one returned). slurmdbd down or
    // unreachable is controller_unreachable, like slurmctld: accounting may answer later.
    [[nodiscard]] Result<std::optional<AccountingRecord>> load_accounting(const JobId& id) override;

    // One slurm_submit_batch_job RPC. Our own uid/gid unless the request names others; an
    // empty work_dir is our current directory, as with sbatch.
    [[nodiscard]] Result<JobId> submit(const SubmitRequest& request) override;
    // slurm_job_batch_script into memory; for an array task, the array's script (by its id).
    [[nodiscard]] Result<std::string> load_batch_script(const JobId& id) override;
    [[nodiscard]] Result<void> drain_node(const std::string& node,
                                          const std::string& reason) override;
    [[nodiscard]] Result<void> resume_node(const std::string& node) override;
    // uid 0, else our uid against SlurmUser (asked of slurmctld once, then cached).
    [[nodiscard]] Result<bool> ask_is_operator() override;
    [[nodiscard]] Result<bool> ask_is_operator_uid(std::uint32_t uid) override;
    // One slurm_load_ctl_conf RPC (not cached: slurmctld may be upgraded under us).
    [[nodiscard]] Result<Release> load_controller_release() override;

    // For the poll cycle: when the ids are those of the previous call here, nothing else
    // changed what this client knows since, and that call asked for the whole table, one
    // "changed since?" RPC and nothing else: no choice of form, no per-id work, no copy.
    // When the table moved, only the ids whose snapshot moved are converted into the answer
    // (JobChanges::whole false), and nullopt when none did.
    [[nodiscard]] Result<std::optional<JobChanges>> load_jobs_if_changed(
        std::span<const JobId> ids) override;

    // Forget the cached answer so the next load_jobs() does a full query.
    void invalidate_cache() { m_last_update = 0; }

  private:
    LibslurmClient() = default;

    [[nodiscard]] WatchedJobs watched_jobs(std::span<const JobId> ids) const;
    // k_max_round_trips_exempt for root or SlurmUser (when already known), else the
    // rate-limited cap. No RPC.
    [[nodiscard]] std::size_t max_round_trips() const;
    [[nodiscard]] Result<JobQuery> load_whole_table(std::span<const JobId> ids);
    // What a whole-table answer says of the table itself: m_last_update, m_knowledge.
    void learn_table(const job_info_msg& message);
    // What moved among `ids` since m_known, which holds the previous answer about exactly these
    // ids; m_known follows.
    [[nodiscard]] JobChanges changes_from_table(const job_info_msg& message,
                                                std::span<const JobId> ids);
    // A whole-table answer (slurm_load_jobs with data) for `ids`, recorded in m_known.
    [[nodiscard]] JobQuery answer_from_table(const job_info_msg& message,
                                             std::span<const JobId> ids);
    [[nodiscard]] Result<JobQuery> load_per_owner(std::span<const JobId> ids);

    // One slurm_load_job per distinct job number; nullopt for an id slurmctld does not know.
    [[nodiscard]] Result<std::map<JobId, std::optional<JobSnapshot>>> load_one_by_one(
        std::span<const JobId> ids);
    // The answer in request order, recorded in m_known; changed unless every job is as the
    // previous answer about it showed.
    [[nodiscard]] JobQuery answer_from(std::span<const JobId> ids,
                                       std::map<JobId, std::optional<JobSnapshot>> found);

    // What the latest answers said about each id we were asked for (nullopt: unknown to
    // slurmctld); a whole-table answer replaces it all.
    std::map<JobId, std::optional<JobSnapshot>> m_known;
    std::uint64_t m_known_generation = 0;  // bumped whenever an answer changes m_known
    // load_jobs_if_changed's previous call: its ids, and m_known's generation after it.
    std::vector<JobId> m_if_changed_ids;
    std::optional<std::uint64_t> m_if_changed_generation;
    long m_last_update = 0;  // last_update of the latest whole-table answer (time_t)
    JobTableKnowledge m_knowledge;
    JobQueryForm m_last_form = JobQueryForm::whole_table;
    std::optional<bool> m_accounting_enabled;      // AccountingStorageType is slurmdbd
    std::string m_cluster_name;                    // ClusterName: accounting is asked about it only
    std::optional<std::uint32_t> m_slurm_user_id;  // SlurmUser's uid, once asked
};

}  // namespace slurm
