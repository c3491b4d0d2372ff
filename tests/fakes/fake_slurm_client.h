// FakeSlurmClient: an in-memory slurm::Client for unit tests, with a journal of every call.
//
// It mimics what slurmctld does to a job's state for each operation (tests/contract/ runs the
// same suite against it and against the real cluster, so it cannot drift), plus simulation
// hooks the real cluster offers only through time: start(), finish(), fail_node().
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "slurm/client.h"

namespace fakes {

class FakeSlurmClient final : public slurm::Client {
  public:
    explicit FakeSlurmClient(const common::Clock& clock, int node_count = 3);

    // --- slurm::Client -------------------------------------------------------------------
    [[nodiscard]] slurm::Result<slurm::JobQuery> load_jobs(
        std::span<const slurm::JobId> ids) override;
    // nullopt when the ids are those of the previous call here and no job changed since; only
    // the jobs that moved since that call's answer when the ids are the same.
    [[nodiscard]] slurm::Result<std::optional<slurm::JobChanges>> load_jobs_if_changed(
        std::span<const slurm::JobId> ids) override;
    [[nodiscard]] slurm::Result<std::optional<slurm::TimePoint>> load_expected_start(
        const slurm::JobId& id) override;
    // set_partitions()'s; by default the dev cluster's one: "debug", up, with every node.
    // Journaled as "load partitions".
    [[nodiscard]] slurm::Result<std::vector<slurm::PartitionSnapshot>> load_partitions() override;
    // set_will_run_start()'s time for the partition, else now (idle nodes). Refused
    // (operation_refused) for a partition load_partitions() does not list or shows down, as
    // slurmctld refuses them, and for one refuse_will_run() named. Journaled as
    // "will run JOB in PARTITION".
    [[nodiscard]] slurm::Result<slurm::TimePoint> ask_will_run(
        const slurm::JobSnapshot& job, const std::string& partition) override;
    [[nodiscard]] slurm::Result<std::vector<slurm::JobSnapshot>> load_user_jobs(
        std::uint32_t uid) override;
    [[nodiscard]] slurm::Result<std::vector<std::uint32_t>> load_array_tasks(
        std::uint32_t array_job) override;
    [[nodiscard]] slurm::Result<std::vector<slurm::NodeSnapshot>> load_nodes() override;
    [[nodiscard]] slurm::Result<void> requeue(const slurm::JobId& id,
                                              slurm::RequeueMode mode) override;
    [[nodiscard]] slurm::Result<void> release(const slurm::JobId& id) override;
    [[nodiscard]] slurm::Result<void> set_excluded_nodes(const slurm::JobId& id,
                                                         const std::string& nodes) override;
    [[nodiscard]] slurm::Result<void> set_required_nodes(const slurm::JobId& id,
                                                         const std::string& nodes) override;
    [[nodiscard]] slurm::Result<void> set_time_limit(const slurm::JobId& id,
                                                     std::chrono::minutes limit) override;
    [[nodiscard]] slurm::Result<void> set_start_time(const slurm::JobId& id,
                                                     slurm::TimePoint when) override;
    [[nodiscard]] slurm::Result<void> cancel(const slurm::JobId& id) override;
    // Accounting as slurmdbd keeps it: every job the fake knows, and each purged one as it was
    // when purged; nullopt for all while accounting is off (set_accounting(false)).
    [[nodiscard]] slurm::Result<std::optional<slurm::AccountingRecord>> load_accounting(
        const slurm::JobId& id) override;
    // The next id, the script kept for load_batch_script(); pending (held with priority 0 when
    // asked), with the request's options in the snapshot and output paths expanded.
    [[nodiscard]] slurm::Result<slurm::JobId> submit(const slurm::SubmitRequest& request) override;
    // Refused (operation_refused) like slurmctld: a reservation not made with
    // add_reservation(), a license or node feature the dev cluster does not have (licenses
    // "matlab"; features "fast", "ib", "slow"). A dependency on any job is accepted (22.05
    // shows one on a job it never knew as unfulfilled).
    // The script given to submit(); operation_refused for a job added by submit(name) or put()
    // without set_script() (like an salloc allocation: no script).
    [[nodiscard]] slurm::Result<std::string> load_batch_script(const slurm::JobId& id) override;
    // Marks the node drained with the reason; access_denied unless is_operator.
    [[nodiscard]] slurm::Result<void> drain_node(const std::string& node,
                                                 const std::string& reason) override;
    // Clears the node's drain and reason; operation_refused when it is not drained nor down.
    [[nodiscard]] slurm::Result<void> resume_node(const std::string& node) override;
    // What set_operator() said; true by default (the dev cluster runs everything as root).
    [[nodiscard]] slurm::Result<bool> ask_is_operator() override;
    // uid 0, or the caller's uid when set_operator(true).
    [[nodiscard]] slurm::Result<bool> ask_is_operator_uid(std::uint32_t uid) override;
    // What set_controller_release() said; the release this binary was built against by
    // default (a cluster installed from the same packages, as the dev cluster is).
    [[nodiscard]] slurm::Result<slurm::Release> load_controller_release() override;

    // --- simulation ----------------------------------------------------------------------
    // Adds a pending batch job, requeueable unless told otherwise; returns its id.
    slurm::JobId submit(const std::string& name, bool requeueable = true);
    // Adds a job exactly as given (id, state and all).
    void put(const slurm::JobSnapshot& job);
    // The backfill plan load_expected_start() answers while the job is pending.
    void set_expected_start(const slurm::JobId& id, slurm::TimePoint when) {
        m_expected_starts[id] = when;
    }
    // The cluster's partitions (load_partitions()).
    void set_partitions(std::vector<slurm::PartitionSnapshot> partitions) {
        m_partitions = std::move(partitions);
    }
    // The will-run start ask_will_run() answers for any job in `partition`.
    void set_will_run_start(const std::string& partition, slurm::TimePoint when) {
        m_will_run_starts[partition] = when;
    }
    // ask_will_run() in `partition` is refused, as for a user AllowGroups leaves out.
    void refuse_will_run(const std::string& partition) { m_will_run_refused.insert(partition); }
    // Pending -> running on `node`.
    void start(const slurm::JobId& id, const std::string& node);
    // Pending -> running on the first node Slurm could pick: in the required list when there
    // is one, not excluded, not drained or down. Returns that node; throws when there is none.
    std::string schedule(const slurm::JobId& id);
    // The batch script load_batch_script() answers for a job added by submit(name) or put().
    void set_script(const slurm::JobId& id, std::string script) {
        m_scripts[id] = std::move(script);
    }
    // false: drain_node(), other users' scripts and submitting as another user are
    // access_denied.
    void set_operator(bool is_operator) { m_operator = is_operator; }
    // The uid the fake's caller has (default: this process's): owner of what it submits.
    void set_caller_uid(std::uint32_t uid) { m_caller_uid = uid; }
    // A reservation submit() accepts (scontrol create reservation).
    void add_reservation(std::string name) { m_reservations.insert(std::move(name)); }
    // The release slurmctld claims to run (load_controller_release()).
    void set_controller_release(const slurm::Release& release) { m_controller_release = release; }
    // Running -> finished with the given state, exit code and signal.
    void finish(const slurm::JobId& id, slurm::JobState state, int exit_code, int signal = 0);
    // What slurmctld does when a node stops responding: the node goes DOWN (Not responding)
    // and each requeueable job running on it goes back to pending with restart count +1.
    void fail_node(const std::string& name);
    void restore_node(const std::string& name);
    // The node answers again and is IDLE, but keeps its reason and the reason's time: what
    // slurmctld 23.11 and later do without accounting storage (the accounting plugin clears it).
    void return_node_keeping_reason(const std::string& name);
    // Forget a job, as slurmctld does after MinJobAge (accounting keeps its record).
    void purge(const slurm::JobId& id);
    // false: the cluster keeps no accounting (AccountingStorageType=accounting_storage/none).
    void set_accounting(bool enabled) { m_accounting_enabled = enabled; }
    // While true every call fails with controller_unreachable.
    void set_unreachable(bool unreachable) { m_unreachable = unreachable; }
    // Fault injection, to prove that a failure in one job's handling is contained to it:
    // load_accounting() of this job throws std::runtime_error (nullopt: no longer).
    void throw_from_accounting_of(std::optional<slurm::JobId> id) { m_throwing_job = id; }
    // load_jobs() of any set of ids holding `id` fails with access_denied, as slurmctld
    // answers for a job whose owner's account is gone (nullopt: no longer).
    void refuse_to_show(std::optional<slurm::JobId> id) { m_refused_job = id; }
    // Runs `what` once, at the next call whose journal line (calls()) starts with `prefix`
    // ("load nodes" for load_nodes()), before the call does anything: something that happens
    // in the cluster at that moment (a person cancels, slurmctld goes away).
    void before_call(std::string prefix, std::function<void()> what) {
        m_before_call = {std::move(prefix), std::move(what)};
    }
    // While true load_jobs() fails with authentication_failure, as when munged restarts.
    void set_authentication_failing(bool failing) { m_authentication_failing = failing; }

    // Sets the job's JOB_COMPLETING flag (its nodes still clean up after it).
    void set_completing(const slurm::JobId& id, bool completing);
    [[nodiscard]] const slurm::JobSnapshot& job(const slurm::JobId& id) const;
    // One line per call that reached the "controller", e.g. "requeue 12 hold".
    [[nodiscard]] const std::vector<std::string>& calls() const { return m_calls; }
    // Every request submit() accepted, in order (the environment is not in the snapshot).
    [[nodiscard]] const std::vector<slurm::SubmitRequest>& submitted() const { return m_submitted; }
    [[nodiscard]] int load_count() const { return m_load_count; }

  private:
    // The node, once the call is recorded and we are an operator; the refusal otherwise.
    slurm::Result<slurm::NodeSnapshot*> node_an_operator_may_change(const std::string& node,
                                                                    const std::string& operation);
    [[nodiscard]] slurm::Result<slurm::JobSnapshot*> find(const slurm::JobId& id,
                                                          const std::string& operation);
    [[nodiscard]] slurm::Result<slurm::JobSnapshot*> find_pending(const slurm::JobId& id,
                                                                  const std::string& operation);
    [[nodiscard]] slurm::Error unreachable_error(const std::string& operation) const;
    void run_before_call(const std::string& operation);
    void touch() { ++m_version; }

    const common::Clock& m_clock;
    std::map<slurm::JobId, slurm::JobSnapshot> m_jobs;
    std::map<slurm::JobId, slurm::TimePoint> m_expected_starts;  // set_expected_start()
    std::vector<slurm::NodeSnapshot> m_nodes;
    std::vector<slurm::PartitionSnapshot> m_partitions;
    std::map<std::string, slurm::TimePoint, std::less<>> m_will_run_starts;
    std::set<std::string, std::less<>> m_will_run_refused;
    std::vector<std::string> m_calls;
    std::uint32_t m_next_id = 1000;
    std::vector<slurm::SubmitRequest> m_submitted;
    std::uint64_t m_version = 1;           // bumped by every change to the job table
    std::uint64_t m_answered_version = 0;  // version of the last full answer
    std::set<slurm::JobId> m_answered_ids;
    // load_jobs_if_changed's previous call: its ids, the version it answered, and its answer.
    std::vector<slurm::JobId> m_if_changed_ids;
    std::uint64_t m_if_changed_version = 0;
    std::map<slurm::JobId, slurm::JobSnapshot> m_if_changed_answer;
    int m_load_count = 0;
    bool m_unreachable = false;
    bool m_accounting_enabled = true;
    std::optional<slurm::JobId> m_throwing_job;
    std::optional<slurm::JobId> m_refused_job;
    std::pair<std::string, std::function<void()>> m_before_call;
    bool m_authentication_failing = false;
    std::map<slurm::JobId, slurm::AccountingRecord> m_purged;  // accounting of purged jobs
    std::map<slurm::JobId, std::string> m_scripts;             // batch scripts, by job
    bool m_operator = true;
    slurm::Release m_controller_release = slurm::compiled_release();
    std::uint32_t m_caller_uid;
    std::set<std::string, std::less<>> m_reservations;
};

}  // namespace fakes
